import type { DeliveryRecord, LastAttempt } from '@jumbe/contracts';

/** Every delivery attempt, recorded before its event is acknowledged (CONTRACT §6 Delivery). */
export abstract class DeliveryLog {
  /** Records one attempt (a delivery made on request); false when its event's attempt was already recorded. */
  abstract record(delivery: DeliveryRecord): Promise<boolean>;
  /**
   * Settles handled stream events in one transaction: their attempts recorded (an event already
   * recorded keeps its first record of each attempt) and, where the event log shares the
   * database (all-in-one), the settled events removed from it (an event awaiting a retry stays).
   * All of it is written, or none.
   */
  abstract recordBatch(deliveries: DeliveryRecord[], settledEventIds: string[]): Promise<void>;
  /**
   * Of these stream events, the latest recorded attempt of each that has one: an attempt
   * recorded is never POSTed again; a failed one may be followed by a retry.
   */
  abstract lastAttemptsAmong(eventIds: string[]): Promise<Map<string, LastAttempt>>;
  abstract find(accountId: string, deliveryId: string): Promise<DeliveryRecord | null>;
}
