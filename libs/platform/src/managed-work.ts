import type { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';

/** Background work a service runs for as long as its Nest application lives. */
export interface StartStop {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Ties background work to the application's lifecycle: started once the app is up, stopped
 * (shards handed over, queues drained) before it shuts down. Nest calls these hooks on any
 * provider instance, so a module provides `new ManagedWork(work)` from a factory.
 */
export class ManagedWork<T extends StartStop> implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(readonly work: T) {}

  onApplicationBootstrap(): Promise<void> {
    return this.work.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.work.stop();
  }
}
