interface QueuedCall<I, O> {
  input: I;
  resolve(output: O): void;
  reject(error: unknown): void;
}

/**
 * Groups calls into batches: the calls made in one turn of the event loop, and those made while
 * a batch is on its way, go together in the next one. A worker restoring thousands of sandbox
 * sessions then reaches Redis in a few commands instead of one (and one socket write) each.
 * Each call gets its own result; a batch that fails fails each of its calls with that error.
 */
export class CallBatcher<I, O> {
  private queue: QueuedCall<I, O>[] = [];
  private flushing = false;

  constructor(
    /** Runs one batch; answers one output per input, in order. */
    private readonly run: (inputs: I[]) => Promise<O[]>,
    private readonly maxBatch = 500,
  ) {}

  call(input: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      if (this.flushing) return;
      this.flushing = true;
      // The rest of this turn's calls (other sessions' timers due now) join the first batch.
      setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          const outputs = await this.run(batch.map((call) => call.input));
          batch.forEach((call, i) => call.resolve(outputs[i] as O));
        } catch (error) {
          for (const call of batch) call.reject(error);
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}
