import { AsyncResource } from 'node:async_hooks';

/** libsignal's SessionCipher (Baileys' own dependency, untyped here): its per-address job queue. */
const { SessionCipher } = require('libsignal') as {
  SessionCipher: {
    prototype: {
      queueJob<T>(awaitable: () => Promise<T>): Promise<T>;
      jobsInContext?: true;
    };
  };
};

/**
 * Makes each of libsignal's session jobs (an encryption or decryption of one session with one
 * address) run in the async context of the code that queued it, not of the job that happened to
 * start the queue. Idempotent; process-wide, as the queue is.
 *
 * Why: libsignal runs all work on one address in one process-wide queue, and its executor awaits
 * each job from the context of the job that started the queue, which is another session's when
 * two sessions of a worker write to the same contact. Such a job's key changes then missed its own
 * send's transaction (durableEncryptions) and were written on their own: 1.98 fenced writes per
 * send to a known contact instead of 1 in the capacity bench, where 50 sessions share one
 * contact (issue 32). In its own context the change joins the send's one write, as it does when
 * the queue is free. Nothing else changes: the job still waits its turn in the same queue.
 */
export function runSignalJobsInTheirContext(): void {
  const prototype = SessionCipher.prototype;
  if (prototype.jobsInContext) return;
  const queueJob = prototype.queueJob;
  prototype.queueJob = function <T>(this: unknown, awaitable: () => Promise<T>): Promise<T> {
    return queueJob.call(this, AsyncResource.bind(awaitable)) as Promise<T>;
  };
  prototype.jobsInContext = true;
}
