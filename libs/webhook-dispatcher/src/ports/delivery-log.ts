import type { DeliveryRecord } from '@jumbe/domain';

/** Every delivery attempt, recorded before its event is acknowledged (CONTRACT §6 Delivery). */
export abstract class DeliveryLog {
  /** Records one attempt (a delivery made on request); false when its event's attempt was already recorded. */
  abstract record(delivery: DeliveryRecord): Promise<boolean>;
  /**
   * Settles handled stream events in one transaction: their attempts recorded (an event already
   * recorded keeps its first record) and, where the event log shares the database (all-in-one),
   * the events removed from it. All of it is written, or none.
   */
  abstract recordBatch(deliveries: DeliveryRecord[], settledEventIds: string[]): Promise<void>;
  /** Of these stream events, those whose attempt is already recorded (they must not be posted again). */
  abstract recordedAmong(eventIds: string[]): Promise<Set<string>>;
  abstract find(accountId: string, deliveryId: string): Promise<DeliveryRecord | null>;
}
