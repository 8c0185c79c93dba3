import type { NewSendFailure } from '@jumbe/domain';

/** Where the worker logs the failed sends it produces (CONTRACT §5 failed-send log). */
export abstract class SendFailureRecorder {
  abstract record(failure: NewSendFailure): Promise<void>;
}
