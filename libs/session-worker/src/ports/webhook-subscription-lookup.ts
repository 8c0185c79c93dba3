/** Where the worker reads which event types an account's webhook takes. */
export abstract class WebhookSubscriptionLookup {
  /**
   * The event types the account's webhook is subscribed to, or null when nothing can reach it
   * (no webhook, no secret yet, or disabled): its events would not be delivered anyway.
   */
  abstract eventsOf(accountId: string): Promise<readonly string[] | null>;
}
