import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * A shard-keeping member's id (a worker, a dispatcher). Unique per process: two processes sharing
 * an id would share a lease and its fencing token.
 */
export function newMemberId(): string {
  return `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
}
