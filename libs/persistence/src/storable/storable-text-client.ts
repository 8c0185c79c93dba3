import pg from 'pg';
import { storableParameter } from './storable-text';

/**
 * node-postgres' Client with every bound value made storable (see storable-text.ts): the one
 * place text enters PostgreSQL, whichever repository, raw query or TypeORM save it comes from.
 * Handed to the pool as its `Client`.
 */
export class StorableTextClient extends pg.Client {}

const baseQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;

// Assigned on the prototype: `query` has a dozen overloads, and the wrapper serves all of them.
StorableTextClient.prototype.query = function query(this: pg.Client, ...args: unknown[]) {
  const [first, second] = args;
  if (Array.isArray(second)) args[1] = second.map(storableParameter);
  else if (isQueryConfig(first) && Array.isArray(first.values)) {
    args[0] = Object.assign(Object.create(Object.getPrototypeOf(first) as object) as object, first, {
      values: first.values.map(storableParameter),
    });
  }
  return baseQuery.apply(this, args);
} as pg.Client['query'];

function isQueryConfig(value: unknown): value is { values?: unknown[] } {
  return typeof value === 'object' && value !== null && 'values' in value;
}
