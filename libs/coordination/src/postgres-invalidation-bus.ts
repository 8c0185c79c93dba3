import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { CoordinationLogger } from './coordination-logger';
import type { InvalidationBus, InvalidationHandler } from './invalidation-bus';
import { MemoryInvalidationBus } from './memory-invalidation-bus';

/** The PostgreSQL channel invalidations travel on (one per database, so per deployment). */
export const POSTGRES_INVALIDATION_CHANNEL = 'jumbe_invalidation';

interface Notice {
  topic: string;
  message: string;
  /** The publishing bus, so a process does not handle its own message twice. */
  from?: string;
}

/**
 * Publishes an invalidation through PostgreSQL `NOTIFY` — for a process that has PostgreSQL but
 * no Redis, such as the operator CLI beside a running all-in-one.
 */
export async function notifyInvalidation(
  query: (sql: string, parameters: unknown[]) => Promise<unknown>,
  topic: string,
  message: string,
  from?: string,
): Promise<void> {
  const notice: Notice = { topic, message, ...(from ? { from } : {}) };
  await query('SELECT pg_notify($1, $2)', [POSTGRES_INVALIDATION_CHANNEL, JSON.stringify(notice)]);
}

/**
 * The all-in-one's invalidation bus: in-process delivery at once (like MemoryInvalidationBus),
 * plus `LISTEN` on PostgreSQL so changes made by other processes on the same database (the CLI)
 * reach this process's caches at once instead of after their TTL. The listening connection is
 * re-opened when it drops, followed by `onPossibleLoss` (notifications sent meanwhile are lost).
 */
export class PostgresInvalidationBus implements InvalidationBus {
  private readonly local: MemoryInvalidationBus;
  private readonly id = randomUUID();
  private readonly lossHandlers = new Set<() => void>();
  private listener: Client | null = null;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly connectionString: string,
    private readonly logger?: CoordinationLogger,
  ) {
    this.local = new MemoryInvalidationBus(logger);
  }

  /** Opens the listening connection; resolves even if PostgreSQL is unreachable (it retries). */
  async start(): Promise<void> {
    await this.connect(false);
  }

  async publish(topic: string, message: string): Promise<void> {
    await this.local.publish(topic, message);
    const listener = this.listener;
    if (listener === null) return;
    // Other processes on the database (another all-in-one on the same data) hear it too.
    await notifyInvalidation(
      (sql, parameters) => listener.query(sql, parameters),
      topic,
      message,
      this.id,
    ).catch((error: unknown) => this.logger?.('postgres invalidation notify failed', error));
  }

  subscribe(topic: string, handler: InvalidationHandler): Promise<() => Promise<void>> {
    return this.local.subscribe(topic, handler);
  }

  onPossibleLoss(handler: () => void): () => void {
    this.lossHandlers.add(handler);
    return () => this.lossHandlers.delete(handler);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const listener = this.listener;
    this.listener = null;
    await listener?.end().catch(() => undefined);
    await this.local.close();
  }

  private async connect(afterLoss: boolean, delayMs = 250): Promise<void> {
    if (this.closed) return;
    const client = new Client({
      connectionString: this.connectionString,
      application_name: 'jumbe-invalidations',
    });
    client.on('notification', (notification) => this.deliver(notification.payload));
    client.on('error', (error) => this.dropped(client, error));
    client.on('end', () => this.dropped(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${POSTGRES_INVALIDATION_CHANNEL}`);
    } catch (error) {
      this.logger?.('postgres invalidation listener could not connect; retrying', error);
      await client.end().catch(() => undefined);
      this.schedule(true, Math.min(delayMs * 2, 5_000));
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.listener = client;
    if (afterLoss) this.possibleLoss();
  }

  private dropped(client: Client, error?: unknown): void {
    if (this.listener !== client || this.closed) return;
    this.listener = null;
    this.logger?.('postgres invalidation listener lost its connection; reconnecting', error);
    client.end().catch(() => undefined);
    this.schedule(true, 250);
  }

  private schedule(afterLoss: boolean, delayMs: number): void {
    if (this.closed || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.connect(afterLoss, delayMs);
    }, delayMs);
    this.reconnectTimer.unref();
  }

  private possibleLoss(): void {
    for (const handler of [...this.lossHandlers]) {
      try {
        handler();
      } catch (error) {
        this.logger?.('invalidation loss handler failed', error);
      }
    }
  }

  private deliver(payload: string | undefined): void {
    let notice: Partial<Notice>;
    try {
      notice = JSON.parse(payload ?? '') as Partial<Notice>;
    } catch {
      return;
    }
    if (typeof notice.topic !== 'string' || typeof notice.message !== 'string' || notice.from === this.id)
      return;
    void this.local.publish(notice.topic, notice.message);
  }
}
