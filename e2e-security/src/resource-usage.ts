import { mediaBucketName } from '@jumbe/contracts';
import { connect, type NatsConnection } from 'nats';
import { readdir } from 'node:fs/promises';
import { residentMiB } from './raw-http';

/** Open file descriptors of a process (sockets, files, pipes), from /proc. */
export async function openDescriptors(pid: number): Promise<number> {
  return (await readdir(`/proc/${pid}/fd`)).length;
}

/** What the serving processes hold at one moment. */
export interface ResourceSample {
  descriptors: number;
  residentMiB: number;
  /** JetStream consumers on the media bucket's stream (0 where media are kept in the data dir). */
  mediaConsumers: number;
}

/**
 * Reads the resources of a deployment's serving processes: descriptors and resident memory summed
 * over `pids`, and the consumers on its JetStream media bucket when it has one.
 */
export class ResourceGauge {
  private constructor(
    private readonly pids: number[],
    private readonly nats: NatsConnection | null,
    private readonly mediaStream: string | null,
  ) {}

  static async open(pids: number[], jetStream?: { url: string; deployment: string }): Promise<ResourceGauge> {
    if (!jetStream) return new ResourceGauge(pids, null, null);
    const nats = await connect({ servers: jetStream.url.replace(/^nats:\/\//, '') });
    return new ResourceGauge(pids, nats, `OBJ_${mediaBucketName(jetStream.deployment)}`);
  }

  async sample(): Promise<ResourceSample> {
    let descriptors = 0;
    let resident = 0;
    for (const pid of this.pids) {
      descriptors += await openDescriptors(pid);
      resident += await residentMiB(pid);
    }
    return {
      descriptors,
      residentMiB: Math.round(resident * 10) / 10,
      mediaConsumers: await this.mediaConsumers(),
    };
  }

  /** Consumers on the media stream, as JetStream's API counts them (no monitoring port needed). */
  async mediaConsumers(): Promise<number> {
    if (!this.nats || !this.mediaStream) return 0;
    const manager = await this.nats.jetstreamManager();
    const info = await manager.streams.info(this.mediaStream).catch(() => null);
    return info?.state.consumer_count ?? 0;
  }

  /** Samples every `everyMs` until `work` settles; returns the largest of each reading. */
  async peakWhile<T>(work: Promise<T>, everyMs = 200): Promise<{ result: T; peak: ResourceSample }> {
    const peak: ResourceSample = { descriptors: 0, residentMiB: 0, mediaConsumers: 0 };
    let done = false;
    const sampling = (async () => {
      while (!done) {
        const now = await this.sample();
        peak.descriptors = Math.max(peak.descriptors, now.descriptors);
        peak.residentMiB = Math.max(peak.residentMiB, now.residentMiB);
        peak.mediaConsumers = Math.max(peak.mediaConsumers, now.mediaConsumers);
        await new Promise((resolve) => setTimeout(resolve, everyMs));
      }
    })();
    try {
      return { result: await work, peak };
    } finally {
      done = true;
      await sampling;
    }
  }

  async close(): Promise<void> {
    await this.nats?.close();
  }
}

/** Latencies a client saw while something else went on, in ms, and how many requests were not 200. */
export class LatencyProbe {
  private readonly latencies: number[] = [];
  private failed = 0;
  private running = true;
  private readonly loop: Promise<void>;

  constructor(request: () => Promise<{ status: number }>, everyMs = 50) {
    this.loop = (async () => {
      while (this.running) {
        const started = performance.now();
        const status = await request().then(
          (response) => response.status,
          () => 0,
        );
        this.latencies.push(performance.now() - started);
        if (status !== 200) this.failed += 1;
        await new Promise((resolve) => setTimeout(resolve, everyMs));
      }
    })();
  }

  async stop(): Promise<{ count: number; failed: number; p50: number; p99: number; max: number }> {
    this.running = false;
    await this.loop;
    const sorted = [...this.latencies].sort((a, b) => a - b);
    const at = (q: number) =>
      Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
    return {
      count: sorted.length,
      failed: this.failed,
      p50: at(0.5),
      p99: at(0.99),
      max: Math.round(sorted.at(-1) ?? 0),
    };
  }
}

/** Runs `count` calls of `call` with at most `concurrency` at once; returns each result. */
export async function hammer<T>(
  count: number,
  concurrency: number,
  call: (i: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await call(i);
      }
    }),
  );
  return results;
}
