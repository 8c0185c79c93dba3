import type { DeliveryRecord } from '@jumbe/contracts';
import { MicroBatcher } from '@jumbe/messaging';
import type { Logger } from 'pino';
import type { DeliveryLog } from './ports/delivery-log';

/** One handled stream event: the attempt made, or null when nothing was sent (nothing to record). */
export interface HandledEvent {
  eventId: string;
  record: DeliveryRecord | null;
  /** A retry of it is due later: the event stays in the log (all-in-one) and unacknowledged. */
  retrying?: boolean;
}

export interface DeliveryRecorderOptions {
  /** How long to wait before trying again to record an attempt the database refused. */
  retryDelayMs: number;
  /**
   * Tries to record an attempt before it is recorded without its response and payload, so that
   * one record the database refuses never holds up the session's later events.
   */
  maxRecordTries: number;
  /**
   * Record batches committing at once. A commit is the recorder's long round trip (and a
   * session's attempts wait for theirs before it POSTs more), so overlapping a few keeps
   * sessions moving; the database groups their flushes.
   */
  concurrentRecords: number;
  /**
   * How long an attempt finished while no record batch is due waits for others to join its
   * batch. Events spread evenly over time (1,000/s over 20 sessions: one per turn of the loop)
   * would otherwise each get a transaction of their own, and every round trip to the database
   * costs this process a write, a wake-up and the database a commit. It delays only the record
   * and the acknowledgement, not the next POST (a session holds `maxUnrecordedPerSession`).
   */
  recordLingerMs: number;
}

/** The payload kept for an attempt whose own payload the database refused. */
const UNRECORDABLE = Object.freeze({ unrecordable: true });

/**
 * Records handled events in batches: the attempts finished while a write is in flight go out
 * together in the next one (one multi-row insert, one transaction, the all-in-one log's removal
 * included). `settle` resolves once the event's outcome is committed, so its caller may then
 * acknowledge the event, and never before.
 */
export class DeliveryRecorder {
  private readonly batches: MicroBatcher<HandledEvent, void>;

  constructor(
    deliveries: Pick<DeliveryLog, 'recordBatch'>,
    private readonly logger: Logger,
    private readonly options: DeliveryRecorderOptions,
  ) {
    this.batches = new MicroBatcher<HandledEvent, void>(
      async (handled) => {
        const records = handled.flatMap((event) => (event.record ? [event.record] : []));
        await deliveries.recordBatch(
          records,
          handled.filter((event) => !event.retrying).map((event) => event.eventId),
        );
        return handled.map(() => undefined);
      },
      { concurrency: options.concurrentRecords, lingerMs: options.recordLingerMs },
    );
  }

  /**
   * Resolves true once the event's outcome is recorded; false if `stopped()` turned true first
   * (the event then stays unacknowledged, for the shard's next owner). After `maxRecordTries`
   * failures the attempt is recorded without what the database may refuse (the receiver's
   * response, the payload), with the reason in `error`: the attempt stays visible in GET /webhook.
   * While the database itself is down even that fails, and the event waits.
   */
  async settle(
    handled: HandledEvent,
    stopped: () => boolean,
    /** Told when the first write is over, committed or failed. */
    firstWriteOver: () => void = () => undefined,
  ): Promise<boolean> {
    let record = handled.record;
    for (let tries = 1; !stopped(); tries += 1) {
      try {
        await this.batches.submit({ ...handled, record });
        return true;
      } catch (error) {
        firstWriteOver();
        this.logger.warn(
          { err: error, eventId: handled.eventId },
          'delivery could not be recorded; retrying',
        );
        if (record && tries >= this.options.maxRecordTries) record = withoutWhatWasRefused(record, error);
        await new Promise((resolve) => setTimeout(resolve, this.options.retryDelayMs));
      }
    }
    return false;
  }
}

function withoutWhatWasRefused(record: DeliveryRecord, error: unknown): DeliveryRecord {
  if (record.payload === UNRECORDABLE) return record;
  const reason = error instanceof Error ? error.message : String(error);
  return {
    ...record,
    response: null,
    payload: UNRECORDABLE,
    error:
      `${record.error ? `${record.error}; ` : ''}the attempt was recorded without its response and payload, which the database refused: ${reason}`.slice(
        0,
        1_000,
      ),
  };
}
