import type { StoredWebhook } from '@jumbe/domain';

/** Where the dispatcher reads an account's webhook destination and sealed secret. */
export abstract class WebhookLookup {
  abstract find(accountId: string): Promise<StoredWebhook | null>;
}
