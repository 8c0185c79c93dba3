import type { ValueTransformer } from 'typeorm';

/**
 * node-postgres returns `bigint` columns as strings because they may exceed 2^53. Jumbe's bigint
 * columns hold counters, limits and fencing tokens that never get near that, so callers get plain
 * numbers instead of having to remember to convert.
 */
export const bigintNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null ? null : Number(value)),
};
