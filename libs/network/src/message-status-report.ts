/** The steps of a sent message's life the network reports, in order; `failed` ends it. */
export type SentMessageStatus = 'server_ack' | 'delivered' | 'read' | 'played' | 'failed';

/** The network reports a status of a message this session sent through the API. */
export interface MessageStatusReport {
  /** The id the send returned (`SentKey.id`). */
  messageId: string;
  /** The chat it was sent to (`SentKey.remoteJid`). */
  to: string;
  status: SentMessageStatus;
  /** When the network says it happened. */
  at: Date;
}
