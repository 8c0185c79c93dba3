import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/** Unique per process: two processes sharing an id would share a lease and its fencing token. */
export function newWorkerId(): string {
  return `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
}
