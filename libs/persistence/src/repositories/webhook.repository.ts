import type { DataSource } from 'typeorm';
import { isUuid } from '../is-uuid';
import type { StoredWebhook } from '@jumbe/domain';
export type { StoredWebhook };

export type WebhookToSave = Omit<StoredWebhook, 'updatedAt' | 'retryAttempts'> & {
  retryAttempts?: number | null;
};

/** The account's one webhook destination (CONTRACT §6); its secrets only as ciphertext. */
export class WebhookRepository {
  constructor(private readonly dataSource: DataSource) {}

  async find(accountId: string): Promise<StoredWebhook | null> {
    if (!isUuid(accountId)) return null;
    const [row] = (await this.dataSource.query(
      `SELECT account_id, url, url_ciphertext, enabled, secret_ciphertext, events, retry_attempts, updated_at FROM webhooks WHERE account_id = $1`,
      [accountId],
    )) as {
      account_id: string;
      url: string;
      url_ciphertext: string | null;
      enabled: boolean;
      secret_ciphertext: string | null;
      events: string[];
      retry_attempts: number | null;
      updated_at: Date;
    }[];
    return row
      ? {
          accountId: row.account_id,
          url: row.url,
          urlCiphertext: row.url_ciphertext,
          enabled: row.enabled,
          secretCiphertext: row.secret_ciphertext,
          events: row.events,
          retryAttempts: row.retry_attempts,
          updatedAt: row.updated_at,
        }
      : null;
  }

  /** Saves the whole destination; `retryAttempts` left out means none (the spec's default). */
  async save(webhook: WebhookToSave): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO webhooks (account_id, url, url_ciphertext, enabled, secret_ciphertext, events, retry_attempts, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, now())
       ON CONFLICT (account_id) DO UPDATE
         SET url = $2, url_ciphertext = $3, enabled = $4, secret_ciphertext = $5, events = $6,
             retry_attempts = $7, updated_at = now()`,
      [
        webhook.accountId,
        webhook.url,
        webhook.urlCiphertext,
        webhook.enabled,
        webhook.secretCiphertext,
        webhook.events,
        webhook.retryAttempts ?? null,
      ],
    );
  }

  async delete(accountId: string): Promise<void> {
    if (!isUuid(accountId)) return;
    await this.dataSource.query(`DELETE FROM webhooks WHERE account_id = $1`, [accountId]);
  }
}
