/** Expired rows deleted from each kind of kept message content. */
export interface ExpiredRowsDeleted {
  sentMessages: number;
  receivedMessages: number;
  inboundMedia: number;
  /** Idempotency records past their 24 h window (they hold the API's answers). */
  idempotencyRecords: number;
}

/**
 * Where the worker deletes message content past its retention (sent messages, received messages
 * kept for quotes, media descriptors), of every session: idle sessions never prune their own.
 */
export abstract class ExpiredMessageSweeper {
  /** Deletes at most `limit` expired rows of each kind; how many of each went. */
  abstract deleteExpiredBatch(limit: number): Promise<ExpiredRowsDeleted>;
}
