import type { DeliveryRecord } from '@jumbe/domain';

/** The account's recent webhook deliveries, as `GET /webhook` lists them. */
export abstract class DeliveryHistory {
  abstract latest(accountId: string, limit: number): Promise<DeliveryRecord[]>;
}
