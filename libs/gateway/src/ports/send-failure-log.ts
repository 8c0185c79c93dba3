import type { NewSendFailure, SendFailure } from '@jumbe/domain';

/** The failed-send log (CONTRACT §5), newest first. */
export abstract class SendFailureLog {
  abstract record(failure: NewSendFailure): Promise<void>;
  abstract list(accountId: string, options: { sessionId?: string; limit: number }): Promise<SendFailure[]>;
}
