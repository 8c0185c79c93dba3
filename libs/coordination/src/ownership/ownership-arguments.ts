// Argument checks shared by the Redis and in-memory twins: both reject exactly the same input, so
// the all-in-one mode cannot hide a bug that would only show against Redis (where, say, a
// fractional TTL is a script error and a non-integer shard a key nobody else uses).

export function assertValidShard(shard: number): void {
  if (!(Number.isSafeInteger(shard) && shard >= 0)) {
    throw new RangeError(`shard must be a non-negative integer, got ${shard}`);
  }
}

export function assertValidWorkerId(workerId: string): void {
  if (typeof workerId !== 'string' || workerId.length === 0) {
    throw new RangeError('workerId must be a non-empty string');
  }
}

export function assertValidTtlMs(ttlMs: number): void {
  if (!(Number.isSafeInteger(ttlMs) && ttlMs > 0)) {
    throw new RangeError(`ttlMs must be a positive integer, got ${ttlMs}`);
  }
}

export function assertValidFencingToken(token: number): void {
  if (!(Number.isSafeInteger(token) && token > 0)) {
    throw new RangeError(`token must be a positive integer, got ${token}`);
  }
}
