import type { DataSource } from 'typeorm';
import { isUuid } from '../is-uuid';
import type { DeliveryRecord, LastAttempt } from '@jumbe/contracts';
export type { DeliveryRecord, LastAttempt };

interface DeliveryRow {
  id: string;
  account_id: string;
  event_id: string | null;
  event: string;
  session_id: string;
  url: string;
  status: 'success' | 'failed';
  status_code: number | null;
  error: string | null;
  response: string | null;
  duration_ms: number;
  payload: unknown;
  created_at: Date;
  attempted_at: Date;
  request_id: string | null;
  attempt: number;
}

const fromRow = (row: DeliveryRow): DeliveryRecord => ({
  id: row.id,
  accountId: row.account_id,
  eventId: row.event_id,
  event: row.event,
  sessionId: row.session_id,
  url: row.url,
  status: row.status,
  statusCode: row.status_code,
  error: row.error,
  response: row.response,
  durationMs: row.duration_ms,
  payload: row.payload,
  createdAt: row.created_at,
  attemptedAt: row.attempted_at,
  requestId: row.request_id,
  attempt: row.attempt,
});

const toRow = (delivery: DeliveryRecord): DeliveryRow => ({
  id: delivery.id,
  account_id: delivery.accountId,
  event_id: delivery.eventId,
  event: delivery.event,
  session_id: delivery.sessionId,
  url: delivery.url,
  status: delivery.status,
  status_code: delivery.statusCode,
  error: delivery.error,
  response: delivery.response,
  duration_ms: delivery.durationMs,
  payload: delivery.payload,
  created_at: delivery.createdAt,
  attempted_at: delivery.attemptedAt,
  request_id: delivery.requestId ?? null,
  attempt: delivery.attempt,
});

/** Every delivery attempt, recorded before its event is acknowledged on the stream. */
export class WebhookDeliveryRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Records an attempt; false when the event's delivery was already recorded (by another dispatcher). */
  async record(delivery: DeliveryRecord): Promise<boolean> {
    const rows = (await this.dataSource.query(
      `INSERT INTO webhook_deliveries
         (id, account_id, event_id, event, session_id, url, status, status_code, error, response, duration_ms, payload, created_at, attempted_at, request_id, attempt)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13, $14, $15, $16)
       ON CONFLICT DO NOTHING RETURNING id`,
      [
        delivery.id,
        delivery.accountId,
        delivery.eventId,
        delivery.event,
        delivery.sessionId,
        delivery.url,
        delivery.status,
        delivery.statusCode,
        delivery.error,
        delivery.response,
        delivery.durationMs,
        JSON.stringify(delivery.payload),
        delivery.createdAt,
        delivery.attemptedAt,
        delivery.requestId ?? null,
        delivery.attempt,
      ],
    )) as unknown[];
    return rows.length > 0;
  }

  /**
   * Settles a batch of handled stream events in one statement, so in one transaction: their
   * attempts recorded (an event already recorded keeps its first record) and the events removed
   * from the all-in-one event log (`inbound_events`, in this database; empty where the stream is
   * JetStream). Either all of it is written or none: an event never leaves the log unrecorded.
   */
  async recordBatch(deliveries: DeliveryRecord[], settledEventIds: string[]): Promise<void> {
    // One JSON parameter for the whole batch: sixteen text[] parameters made node-postgres escape
    // every element character by character (each payload a JSON text full of quotes); the drain
    // cost 0.19 against 0.15 ms of the dispatcher's CPU per delivery (BENCHMARKS.md, session 9).
    // Dates become ISO 8601 strings through Date#toJSON.
    await this.dataSource.query(
      `WITH removed AS (DELETE FROM inbound_events WHERE event_id = ANY($1::text[]))
       INSERT INTO webhook_deliveries
         (id, account_id, event_id, event, session_id, url, status, status_code, error, response, duration_ms, payload, created_at, attempted_at, request_id, attempt)
       SELECT id, account_id, event_id, event, session_id, url, status, status_code, error, response, duration_ms, payload, created_at, attempted_at, request_id, attempt
       FROM jsonb_to_recordset($2::jsonb)
         AS batch (id uuid, account_id uuid, event_id text, event text, session_id text, url text, status text, status_code int,
                   error text, response text, duration_ms int, payload jsonb, created_at timestamptz, attempted_at timestamptz,
                   request_id text, attempt int)
       ON CONFLICT DO NOTHING`,
      [settledEventIds, JSON.stringify(deliveries.map(toRow))],
    );
  }

  /** Of these stream events, the ids whose attempt is already recorded: one query for a whole batch. */
  async recordedAmong(eventIds: string[]): Promise<Set<string>> {
    if (eventIds.length === 0) return new Set();
    const rows = (await this.dataSource.query(
      `SELECT event_id FROM webhook_deliveries WHERE event_id = ANY($1::text[])`,
      [eventIds],
    )) as { event_id: string }[];
    return new Set(rows.map((row) => row.event_id));
  }

  /**
   * Of these stream events, the latest recorded attempt of each that has one (one query for a
   * whole batch): a success or a last failure is never POSTed again; a failure may be retried.
   */
  async lastAttemptsAmong(eventIds: string[]): Promise<Map<string, LastAttempt>> {
    if (eventIds.length === 0) return new Map();
    const rows = (await this.dataSource.query(
      `SELECT DISTINCT ON (event_id) event_id, attempt, status, attempted_at FROM webhook_deliveries
        WHERE event_id = ANY($1::text[]) ORDER BY event_id, attempt DESC`,
      [eventIds],
    )) as { event_id: string; attempt: number; status: 'success' | 'failed'; attempted_at: Date }[];
    return new Map(
      rows.map((row) => [
        row.event_id,
        { attempt: row.attempt, status: row.status, attemptedAt: row.attempted_at },
      ]),
    );
  }

  async isRecorded(eventId: string): Promise<boolean> {
    const rows = (await this.dataSource.query(`SELECT 1 FROM webhook_deliveries WHERE event_id = $1`, [
      eventId,
    ])) as unknown[];
    return rows.length > 0;
  }

  /** The delivery's latest attempt (every attempt of a delivery carries the same event). */
  async find(accountId: string, id: string): Promise<DeliveryRecord | null> {
    if (!isUuid(accountId) || !isUuid(id)) return null;
    const [row] = (await this.dataSource.query(
      `SELECT * FROM webhook_deliveries WHERE account_id = $1 AND id = $2 ORDER BY attempt DESC LIMIT 1`,
      [accountId, id],
    )) as DeliveryRow[];
    return row ? fromRow(row) : null;
  }

  /** The newest attempts first, each retry its own entry (GET /webhook lists 20). */
  async latest(accountId: string, limit: number): Promise<DeliveryRecord[]> {
    if (!isUuid(accountId)) return [];
    const rows = (await this.dataSource.query(
      `SELECT * FROM webhook_deliveries WHERE account_id = $1 ORDER BY attempted_at DESC, id DESC, attempt DESC LIMIT $2`,
      [accountId, limit],
    )) as DeliveryRow[];
    return rows.map(fromRow);
  }
}
