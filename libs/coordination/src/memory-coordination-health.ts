import type { CoordinationHealth } from './coordination-health';

/** In-memory coordination lives in this process, so it is available whenever the process is. */
export class MemoryCoordinationHealth implements CoordinationHealth {
  check(): Promise<void> {
    return Promise.resolve();
  }
}
