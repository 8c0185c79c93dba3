import type { DataSource } from 'typeorm';
import { isUuid } from '../is-uuid';
import { insertReceivedMessageSql, ReceivedMessageRepository } from './received-message.repository';
import type { SessionRef } from './session.repository';

/**
 * Where a message's stanza arrived: the socket (the ms it opened) and its place on it. The worker
 * may store a message before one that arrived earlier; the outbox is read in this order.
 */
export interface ArrivalKey {
  socket: number;
  position: number;
}

/** One message waiting in a session's outbox: opaque (sealed) bytes, with its arrival key. */
export interface OutboxEntry {
  messageId: string;
  value: Buffer;
  arrival: ArrivalKey;
}

/**
 * The `inbound_outbox` table: received messages not yet on the event stream, per session, in the
 * order they arrived (their arrival keys; equal keys in the order stored). A message id is kept
 * once (WhatsApp may deliver a message again).
 */
export class InboundOutboxRepository {
  constructor(
    private readonly dataSource: DataSource,
    /** Where `quote` copies go (and are pruned); pass the instance the driver reads them from. */
    private readonly received = new ReceivedMessageRepository(dataSource),
  ) {}

  /**
   * Keeps a received message for the stream; with `quote`, also the sealed copy a reply can
   * quote (`received_messages`), in the same statement: one round trip, both rows or neither.
   * Without `arrival` it comes before every message stored with one.
   */
  async add(
    ref: SessionRef,
    messageId: string,
    value: Buffer,
    quote?: Buffer,
    arrival: ArrivalKey = { socket: 0, position: 0 },
  ): Promise<void> {
    if (!isUuid(ref.accountId)) return;
    const params = [ref.accountId, ref.sessionId, messageId, value, arrival.socket, arrival.position];
    const outboxInsert = `INSERT INTO inbound_outbox (account_id, session_id, message_id, value, arrival_socket, arrival_position)
        VALUES ($1, $2, $3, $4, $5, $6)
        ON CONFLICT (account_id, session_id, message_id) DO NOTHING`;
    if (quote === undefined) {
      await this.dataSource.query(outboxInsert, params);
      return;
    }
    await this.dataSource.query(`WITH quotable AS (${insertReceivedMessageSql('$7')}) ${outboxInsert}`, [
      ...params,
      quote,
    ]);
    await this.received.saved(ref);
  }

  /** The first `limit` waiting messages of the session, in arrival order. */
  async oldest(ref: SessionRef, limit: number): Promise<OutboxEntry[]> {
    if (!isUuid(ref.accountId)) return [];
    const rows = (await this.dataSource.query(
      `SELECT message_id, value, arrival_socket, arrival_position FROM inbound_outbox
        WHERE account_id = $1 AND session_id = $2
        ORDER BY arrival_socket, arrival_position, seq LIMIT $3`,
      [ref.accountId, ref.sessionId, limit],
    )) as { message_id: string; value: Buffer; arrival_socket: string; arrival_position: string }[];
    // bigint columns come back as strings; both parts stay below 2^53.
    return rows.map((row) => ({
      messageId: row.message_id,
      value: row.value,
      arrival: { socket: Number(row.arrival_socket), position: Number(row.arrival_position) },
    }));
  }

  /** Removes these delivered messages: one statement for a whole delivered batch. */
  async remove(ref: SessionRef, messageIds: readonly string[]): Promise<void> {
    if (!isUuid(ref.accountId) || messageIds.length === 0) return;
    await this.dataSource.query(
      `DELETE FROM inbound_outbox WHERE account_id = $1 AND session_id = $2 AND message_id = ANY($3::text[])`,
      [ref.accountId, ref.sessionId, messageIds],
    );
  }
}
