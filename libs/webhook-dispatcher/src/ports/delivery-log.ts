import type { DeliveryRecord } from '@jumbe/domain';

/** Every delivery attempt, recorded before its event is acknowledged (CONTRACT §6 Delivery). */
export abstract class DeliveryLog {
  /** Records one attempt; false when the event's attempt was already recorded (nothing written). */
  abstract record(delivery: DeliveryRecord): Promise<boolean>;
  /** Whether an attempt of this stream event is already recorded (it must not be posted again). */
  abstract isRecorded(eventId: string): Promise<boolean>;
  abstract find(accountId: string, deliveryId: string): Promise<DeliveryRecord | null>;
}
