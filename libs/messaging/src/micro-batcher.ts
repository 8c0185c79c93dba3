interface Waiting<I, R> {
  input: I;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Gathers calls into batches, so one round trip serves many: the calls made while a batch is in
 * flight form the next one. A lone call waits only for the current tick to end, and under load
 * batches grow by themselves, up to `maxBatch`. With `concurrency` above 1, that many batches may
 * be in flight at once (a store whose round trip is long, such as a commit, then serves more calls
 * a second); calls wait only when every one of them is busy.
 *
 * With `lingerMs`, a call that finds no batch due waits that long for others to join it before its
 * batch starts (calls waiting for a busy batcher start as soon as a batch is over, as before): at a
 * steady trickle (events spread evenly, one per turn of the loop) batches then hold several calls
 * instead of one, each round trip being a wake-up of the store and of this process.
 *
 * When a batch of several inputs fails, each input is run again alone (unless told not to): one
 * input the store refuses fails its own caller only, never the others that shared its batch.
 */
export class MicroBatcher<I, R> {
  private waiting: Waiting<I, R>[] = [];
  /** A start of batches is due at the end of this tick. */
  private scheduled = false;
  private running = 0;

  private readonly maxBatch: number;
  private readonly isolateFailures: boolean;
  private readonly concurrency: number;
  private readonly lingerMs: number;

  constructor(
    /** Runs one batch; resolves with one result per input, in order. */
    private readonly run: (inputs: I[]) => Promise<R[]>,
    /** `isolateFailures: false` where a failure can never be one input's fault (a read). */
    options: { maxBatch?: number; isolateFailures?: boolean; concurrency?: number; lingerMs?: number } = {},
  ) {
    this.maxBatch = options.maxBatch ?? 1_000;
    this.isolateFailures = options.isolateFailures ?? true;
    this.concurrency = Math.max(1, options.concurrency ?? 1);
    this.lingerMs = Math.max(0, options.lingerMs ?? 0);
  }

  submit(input: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      // All batches busy: the first one to finish takes this call along.
      if (this.scheduled || this.running >= this.concurrency) return;
      this.scheduled = true;
      const start = () => {
        this.scheduled = false;
        this.startBatches();
      };
      // Calls made in the same tick (a burst handed over by the stream) join the same batch, and
      // with a linger those of the next few milliseconds too.
      if (this.lingerMs > 0) setTimeout(start, this.lingerMs);
      else setImmediate(start);
    });
  }

  private startBatches(): void {
    while (this.waiting.length > 0 && this.running < this.concurrency) {
      const batch = this.waiting.splice(0, this.maxBatch);
      this.running += 1;
      void this.runBatch(batch).finally(() => {
        this.running -= 1;
        this.startBatches();
      });
    }
  }

  private async runBatch(batch: Waiting<I, R>[]): Promise<void> {
    try {
      const results = await this.run(batch.map((waiting) => waiting.input));
      batch.forEach((waiting, i) => waiting.resolve(results[i] as R));
    } catch (error) {
      if (batch.length === 1 || !this.isolateFailures)
        return batch.forEach((waiting) => waiting.reject(error));
      // Alone, one after another: a database that is down fails each quickly, a bad row only its own.
      for (const waiting of batch) await this.runBatch([waiting]);
    }
  }
}
