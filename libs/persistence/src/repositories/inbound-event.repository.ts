import type { DataSource } from 'typeorm';

export interface InboundEventRow {
  eventId: string;
  shard: number;
  subject: string;
  payload: unknown;
}

/** The all-in-one durable event log's table (it implements messaging's EventLogStore). */
export class InboundEventRepository {
  constructor(private readonly dataSource: DataSource) {}

  async append(event: InboundEventRow): Promise<boolean> {
    const rows = (await this.dataSource.query(
      `INSERT INTO inbound_events (event_id, shard, subject, payload) VALUES ($1, $2, $3, $4::jsonb)
       ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
      [event.eventId, event.shard, event.subject, JSON.stringify(event.payload)],
    )) as unknown[];
    return rows.length > 0;
  }

  async pending(shard: number): Promise<{ eventId: string; subject: string; payload: unknown }[]> {
    const rows = (await this.dataSource.query(
      `SELECT event_id, subject, payload FROM inbound_events WHERE shard = $1 ORDER BY created_at, event_id`,
      [shard],
    )) as { event_id: string; subject: string; payload: unknown }[];
    return rows.map((row) => ({ eventId: row.event_id, subject: row.subject, payload: row.payload }));
  }

  async removeAll(eventIds: string[]): Promise<void> {
    if (eventIds.length === 0) return;
    await this.dataSource.query(`DELETE FROM inbound_events WHERE event_id = ANY($1::text[])`, [eventIds]);
  }
}
