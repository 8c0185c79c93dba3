/** An account's one webhook destination (CONTRACT §6); the secret only as ciphertext. */
export interface StoredWebhook {
  accountId: string;
  url: string;
  enabled: boolean;
  secretCiphertext: string | null;
  /** Event types it receives (`webhook.test` always goes). */
  events: string[];
  updatedAt: Date;
}
