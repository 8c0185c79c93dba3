/**
 * An account's one webhook destination (CONTRACT §6); the signing secret only as ciphertext, and
 * a URL that carries credentials only masked in `url`, its full form sealed in `urlCiphertext`
 * (see `WebhookVault`).
 */
export interface StoredWebhook {
  accountId: string;
  url: string;
  urlCiphertext: string | null;
  enabled: boolean;
  secretCiphertext: string | null;
  /** Event types it receives (`webhook.test` always goes). */
  events: string[];
  /** Retries of a failed event (1–10); null: none, as the spec says. */
  retryAttempts: number | null;
  updatedAt: Date;
}
