import type { Logger } from 'pino';
import type { ExpiredMessageSweeper, ExpiredRowsDeleted } from './ports/expired-message-sweeper';

export interface RetentionSweepOptions {
  /** Time between two sweeps of this worker, on average. */
  everyMs: number;
  /** Rows of each kind deleted by one statement. */
  batchSize: number;
  /** Statements of one sweep at most: a large backlog goes over several sweeps. */
  maxBatches: number;
}

export const RETENTION_SWEEP_DEFAULTS: RetentionSweepOptions = {
  everyMs: 10 * 60 * 1000,
  batchSize: 1_000,
  maxBatches: 100,
};

/**
 * Deletes expired message content now and then, so what an idle session kept does not outlive its
 * retention. Every worker runs it, with no election: deleting expired rows is idempotent, two
 * sweeps at once take different rows (SKIP LOCKED), and a sweep with nothing to delete costs three
 * index lookups. Each wait is drawn between half and one and a half `everyMs`, so workers started
 * together do not sweep together.
 */
export class RetentionSweep {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly expired: ExpiredMessageSweeper,
    private readonly logger: Logger,
    private readonly options: RetentionSweepOptions = RETENTION_SWEEP_DEFAULTS,
    private readonly random: () => number = Math.random,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  /** Stops sweeping; resolves once a sweep under way has finished its statement. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One sweep: batches until nothing expired is left, `maxBatches` at most, or stopped. */
  async sweep(): Promise<ExpiredRowsDeleted> {
    const total: ExpiredRowsDeleted = {
      sentMessages: 0,
      receivedMessages: 0,
      inboundMedia: 0,
      idempotencyRecords: 0,
    };
    for (let batch = 0; batch < this.options.maxBatches && !this.stopped; batch += 1) {
      const deleted = await this.expired.deleteExpiredBatch(this.options.batchSize);
      total.sentMessages += deleted.sentMessages;
      total.receivedMessages += deleted.receivedMessages;
      total.inboundMedia += deleted.inboundMedia;
      total.idempotencyRecords += deleted.idempotencyRecords;
      // A batch short of the limit in every table: nothing expired is left.
      if (Object.values(deleted).every((count) => count < this.options.batchSize)) break;
    }
    return total;
  }

  private schedule(): void {
    if (this.stopped) return;
    const wait = this.options.everyMs * (0.5 + this.random());
    this.timer = setTimeout(() => {
      this.running = this.sweepLogged().finally(() => {
        this.running = null;
        this.schedule();
      });
    }, wait);
    // A pending sweep never keeps the process alive.
    this.timer.unref();
  }

  private async sweepLogged(): Promise<void> {
    try {
      const deleted = await this.sweep();
      if (Object.values(deleted).some((count) => count > 0)) {
        this.logger.info({ deleted }, 'expired message content deleted');
      }
    } catch (error) {
      // Retried at the next sweep: the rows stay expired (and unreadable) meanwhile.
      this.logger.warn({ err: error }, 'retention sweep failed');
    }
  }
}
