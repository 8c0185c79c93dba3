import type { DataSource } from 'typeorm';
import { isUuid } from '../is-uuid';
import type { DeliveryRecord } from '@jumbe/domain';
export type { DeliveryRecord };

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
});

/** Every delivery attempt, recorded before its event is acknowledged on the stream. */
export class WebhookDeliveryRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Records an attempt; false when the event's delivery was already recorded (by another dispatcher). */
  async record(delivery: DeliveryRecord): Promise<boolean> {
    const rows = (await this.dataSource.query(
      `INSERT INTO webhook_deliveries
         (id, account_id, event_id, event, session_id, url, status, status_code, error, response, duration_ms, payload, created_at, attempted_at, request_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13, $14, $15)
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
      ],
    )) as unknown[];
    return rows.length > 0;
  }

  async isRecorded(eventId: string): Promise<boolean> {
    const rows = (await this.dataSource.query(`SELECT 1 FROM webhook_deliveries WHERE event_id = $1`, [
      eventId,
    ])) as unknown[];
    return rows.length > 0;
  }

  async find(accountId: string, id: string): Promise<DeliveryRecord | null> {
    if (!isUuid(accountId) || !isUuid(id)) return null;
    const [row] = (await this.dataSource.query(
      `SELECT * FROM webhook_deliveries WHERE account_id = $1 AND id = $2`,
      [accountId, id],
    )) as DeliveryRow[];
    return row ? fromRow(row) : null;
  }

  /** The newest attempts first (GET /webhook lists 20). */
  async latest(accountId: string, limit: number): Promise<DeliveryRecord[]> {
    if (!isUuid(accountId)) return [];
    const rows = (await this.dataSource.query(
      `SELECT * FROM webhook_deliveries WHERE account_id = $1 ORDER BY attempted_at DESC, id DESC LIMIT $2`,
      [accountId, limit],
    )) as DeliveryRow[];
    return rows.map(fromRow);
  }
}
