import type { DeliveryRecord } from '@jumbe/contracts';

/** The account's recent webhook deliveries, as `GET /webhook` lists them. */
export abstract class DeliveryHistory {
  abstract latest(accountId: string, limit: number): Promise<DeliveryRecord[]>;
}
