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

/**
 * Live arrivals stored while their socket's offline backlog was still coming in (the driver's
 * ArrivalOrder): WhatsApp may hand what it still queued for the device to a later socket instead,
 * so they are read among the latest socket's backlog by the server's time (each position in their
 * range, and in a backlog's, is a server second times `perSecond` plus an order): after that
 * second's backlog stanzas. Once that socket's backlog is complete they settle there.
 */
export interface PendingArrivals {
  /** Their positions: [from, until). */
  from: number;
  until: number;
  perSecond: number;
}

/** One message waiting in a session's outbox: opaque (sealed) bytes, with its arrival key. */
export interface OutboxEntry {
  messageId: string;
  value: Buffer;
  arrival: ArrivalKey;
  /**
   * Set on a row that stands in for a message asked for again (`awaitResend`): until when (epoch
   * ms) the copy sent back is awaited.
   */
  resendAwaitedUntil?: number;
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
    // A row standing in for this message (asked for again) takes it, and keeps its place.
    const outboxInsert = `INSERT INTO inbound_outbox (account_id, session_id, message_id, value, arrival_socket, arrival_position)
        VALUES ($1, $2, $3, $4, $5, $6)
        ON CONFLICT (account_id, session_id, message_id) DO UPDATE
          SET value = EXCLUDED.value, resend_awaited_until = NULL
          WHERE inbound_outbox.resend_awaited_until IS NOT NULL`;
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

  /**
   * Holds `arrival`'s place for a message Baileys asked its sender for again (a retry receipt),
   * until `until` (epoch ms): the copy sent back, stored under the same id (`add`), takes the row
   * and its place, whichever socket or worker receives it. `value`: a sealed placeholder. Nothing
   * changes if the message is here already, or its place is held already (the first retry's
   * deadline stands).
   */
  async awaitResend(
    ref: SessionRef,
    messageId: string,
    value: Buffer,
    arrival: ArrivalKey,
    until: number,
  ): Promise<void> {
    if (!isUuid(ref.accountId)) return;
    await this.dataSource.query(
      `INSERT INTO inbound_outbox (account_id, session_id, message_id, value, arrival_socket, arrival_position, resend_awaited_until)
        VALUES ($1, $2, $3, $4, $5, $6, $7)
        ON CONFLICT (account_id, session_id, message_id) DO NOTHING`,
      [ref.accountId, ref.sessionId, messageId, value, arrival.socket, arrival.position, until],
    );
  }

  /**
   * Removes places held for messages asked for again (`awaitResend`) that are no longer awaited;
   * a copy stored meanwhile (the row a message now) stays.
   */
  async forgetAwaited(ref: SessionRef, messageIds: readonly string[]): Promise<void> {
    if (!isUuid(ref.accountId) || messageIds.length === 0) return;
    await this.dataSource.query(
      `DELETE FROM inbound_outbox WHERE account_id = $1 AND session_id = $2 AND message_id = ANY($3::text[])
        AND resend_awaited_until IS NOT NULL`,
      [ref.accountId, ref.sessionId, messageIds],
    );
  }

  /**
   * The first `limit` waiting messages of the session, in arrival order. With `carriedTo` (the
   * current socket), its own and earlier sockets' `pending` arrivals are read on it, after its
   * backlog rows of their second (ties among them: earlier sockets' first, then in their order). The session's rows are sorted then, not
   * read along the index: an outbox holds a few, thousands after a long event-stream outage.
   */
  async oldest(
    ref: SessionRef,
    limit: number,
    carriedTo?: number,
    pending?: PendingArrivals,
  ): Promise<OutboxEntry[]> {
    if (!isUuid(ref.accountId)) return [];
    const select = `SELECT message_id, value, arrival_socket, arrival_position, resend_awaited_until FROM inbound_outbox
        WHERE account_id = $1 AND session_id = $2`;
    const carried = `arrival_socket <= $4::bigint AND arrival_position >= $5::bigint AND arrival_position < $6::bigint`;
    const rows = (await (carriedTo === undefined || pending === undefined
      ? this.dataSource.query(`${select} ORDER BY arrival_socket, arrival_position, seq LIMIT $3`, [
          ref.accountId,
          ref.sessionId,
          limit,
        ])
      : this.dataSource.query(
          `${select} ORDER BY
            CASE WHEN ${carried} THEN $4::bigint ELSE arrival_socket END,
            CASE WHEN ${carried} THEN ${placed('$5', '$7')} ELSE arrival_position END,
            arrival_socket, arrival_position, seq
          LIMIT $3`,
          [ref.accountId, ref.sessionId, limit, carriedTo, pending.from, pending.until, pending.perSecond],
        ))) as {
      message_id: string;
      value: Buffer;
      arrival_socket: string;
      arrival_position: string;
      resend_awaited_until: string | null;
    }[];
    // bigint columns come back as strings; every one stays below 2^53.
    return rows.map((row) => ({
      messageId: row.message_id,
      value: row.value,
      arrival: { socket: Number(row.arrival_socket), position: Number(row.arrival_position) },
      ...(row.resend_awaited_until === null ? {} : { resendAwaitedUntil: Number(row.resend_awaited_until) }),
    }));
  }

  /**
   * `socket`'s backlog is complete: its own and earlier sockets' pending arrivals settle where
   * `oldest` reads them on it (a later owner finds them there, and a later socket does not move
   * them again).
   */
  async settlePending(ref: SessionRef, socket: number, pending: PendingArrivals): Promise<void> {
    if (!isUuid(ref.accountId)) return;
    await this.dataSource.query(
      `UPDATE inbound_outbox SET arrival_socket = $3::bigint, arrival_position = ${placed('$4', '$6')}
        WHERE account_id = $1 AND session_id = $2 AND arrival_socket <= $3::bigint
          AND arrival_position >= $4::bigint AND arrival_position < $5::bigint`,
      [ref.accountId, ref.sessionId, socket, pending.from, pending.until, pending.perSecond],
    );
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

/** A pending position read on a later socket: after that socket's backlog rows of its second. */
function placed(from: string, perSecond: string): string {
  return `((arrival_position - ${from}::bigint) / ${perSecond}::bigint) * ${perSecond}::bigint + ${perSecond}::bigint - 1`;
}
