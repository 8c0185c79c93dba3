import type { StoredWebhook } from '@jumbe/domain';

/** Each account's one webhook destination (CONTRACT §6). */
export abstract class WebhookStore {
  abstract find(accountId: string): Promise<StoredWebhook | null>;
  abstract save(webhook: Omit<StoredWebhook, 'updatedAt'>): Promise<void>;
  abstract delete(accountId: string): Promise<void>;
}
