import type { DataSource } from 'typeorm';

export interface InboundEventRow {
  eventId: string;
  shard: number;
  subject: string;
  payload: unknown;
}

/** What one append did (messaging's AppendOutcome, by shape). */
export interface InboundEventAppended {
  /** New, and stored now. */
  stored: boolean;
  /** The statement that stored it found no delivery attempt recorded under its id. */
  unrecorded: boolean;
}

/** The all-in-one durable event log's table (it implements messaging's EventLogStore). */
export class InboundEventRepository {
  constructor(private readonly dataSource: DataSource) {}

  async append(event: InboundEventRow): Promise<boolean> {
    const [outcome] = await this.appendAll([event]);
    return outcome?.stored ?? false;
  }

  /**
   * Stores events in one statement, in the order given (`seq`), each unless its id is already
   * stored (or given earlier in the same call): for each, whether it was new, and whether the same
   * statement found no delivery attempt recorded under its id (so the dispatcher need not ask).
   */
  async appendAll(events: InboundEventRow[]): Promise<InboundEventAppended[]> {
    if (events.length === 0) return [];
    // One JSON document rather than four arrays: node-postgres escapes every character of an
    // array literal's elements (a payload is JSON, full of quotes), the dearest part of the append.
    const batch = events.map(({ eventId, shard, subject, payload }) => ({
      eventId,
      shard,
      subject,
      payload,
    }));
    const rows = (await this.dataSource.query(
      `WITH appended AS (
         INSERT INTO inbound_events (event_id, shard, subject, payload)
         SELECT event->>'eventId', (event->>'shard')::smallint, event->>'subject', event->'payload'
           FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS batch (event, position)
          ORDER BY position
         ON CONFLICT (event_id) DO NOTHING RETURNING event_id)
       SELECT event_id,
              NOT EXISTS (SELECT 1 FROM webhook_deliveries WHERE webhook_deliveries.event_id = appended.event_id)
                AS unrecorded
         FROM appended`,
      [JSON.stringify(batch)],
    )) as { event_id: string; unrecorded: boolean }[];
    // An id given twice is stored once: the first of its copies is the one appended.
    const unrecordedById = new Map(rows.map((row) => [row.event_id, row.unrecorded]));
    return events.map((event) => {
      const unrecorded = unrecordedById.get(event.eventId);
      unrecordedById.delete(event.eventId);
      return unrecorded === undefined ? { stored: false, unrecorded: false } : { stored: true, unrecorded };
    });
  }

  async pending(shard: number): Promise<{ eventId: string; subject: string; payload: unknown }[]> {
    const rows = (await this.dataSource.query(
      `SELECT event_id, subject, payload FROM inbound_events WHERE shard = $1 ORDER BY created_at, seq`,
      [shard],
    )) as { event_id: string; subject: string; payload: unknown }[];
    return rows.map((row) => ({ eventId: row.event_id, subject: row.subject, payload: row.payload }));
  }

  async removeAll(eventIds: string[]): Promise<void> {
    if (eventIds.length === 0) return;
    await this.dataSource.query(`DELETE FROM inbound_events WHERE event_id = ANY($1::text[])`, [eventIds]);
  }
}
