import { ACCESS_INVALIDATION_TOPIC, ApiError, decodeAccessInvalidation } from '@jumbe/contracts';
import type { InvalidationBus } from '../ports/invalidation-bus';
import { hashApiKey, looksLikeApiKey } from '@jumbe/domain';
import { LRUCache } from 'lru-cache';
import type { ApiKeyLookup } from '../ports/api-key-lookup';
import { orUnavailable } from '../http/dependency-failure';
import type { Principal } from './principal';

/** How precise a key's "last used" time is. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Resolves API keys to principals. Lookups are cached by key hash; a revocation published on the
 * invalidation bus evicts the key on every gateway at once, and the TTL bounds staleness if a
 * message is ever lost.
 */
export class ApiKeyAuthenticator {
  private readonly cache = new LRUCache<string, Principal>({ max: 10_000, ttl: 30_000 });
  /**
   * Hashes of keys the database did not know, remembered briefly so a client replaying a wrong key
   * costs no query. Keys are random, so a key created later was never in here.
   */
  private readonly unknown = new LRUCache<string, true>({ max: 10_000, ttl: 10_000 });
  /** Keys whose "last used" time this gateway wrote within the minute: one write a minute, not per request. */
  private readonly recentlyMarked = new LRUCache<string, true>({ max: 10_000, ttl: LAST_USED_RESOLUTION_MS });

  constructor(
    private readonly keys: Pick<ApiKeyLookup, 'findActiveByHash'> & Partial<Pick<ApiKeyLookup, 'markUsed'>>,
    private readonly invalidations: InvalidationBus,
  ) {}

  async start(): Promise<void> {
    this.invalidations.onPossibleLoss(() => this.cache.clear());
    await this.invalidations.subscribe(ACCESS_INVALIDATION_TOPIC, (text) => {
      const message = decodeAccessInvalidation(text);
      if (message === null) return this.cache.clear();
      if (message.kind === 'key') this.evict(message.keyId);
    });
  }

  async authenticate(key: string | null): Promise<Principal> {
    return this.authenticateHash(this.hashOf(key));
  }

  /** The stored form of a presented key; 401 when it is missing or cannot be a key. */
  hashOf(key: string | null): string {
    if (key === null || !looksLikeApiKey(key)) throw new ApiError('unauthorized');
    return hashApiKey(key);
  }

  /**
   * The principal of a key hash this gateway holds in its cache (revocations evict it), without a
   * promise: the request path answers most requests from here and only falls back to
   * `authenticateHash` on a miss.
   */
  cachedPrincipal(hash: string): Principal | undefined {
    const cached = this.cache.get(hash);
    return cached === undefined ? undefined : this.used(cached);
  }

  /** Resolves a key by its hash (from `hashOf`), checked against the cache and the database. */
  async authenticateHash(hash: string): Promise<Principal> {
    const cached = this.cachedPrincipal(hash);
    if (cached) return cached;
    if (this.unknown.has(hash)) throw new ApiError('unauthorized');
    const found = await orUnavailable('database', () => this.keys.findActiveByHash(hash));
    if (!found) {
      this.unknown.set(hash, true);
      throw new ApiError('unauthorized');
    }
    const principal: Principal = { keyId: found.id, accountId: found.accountId, scope: found.scope };
    // A key being rotated leaves the cache when its revocation comes, not up to a TTL later.
    const untilRevoked = found.revokesAt ? found.revokesAt.getTime() - Date.now() : Infinity;
    if (untilRevoked <= 0) throw new ApiError('unauthorized');
    this.cache.set(hash, principal, untilRevoked < 30_000 ? { ttl: Math.ceil(untilRevoked) } : undefined);
    return this.used(principal);
  }

  /** Records the use in the background: a failed write must never fail the request. */
  private used(principal: Principal): Principal {
    if (this.keys.markUsed && !this.recentlyMarked.has(principal.keyId)) {
      this.recentlyMarked.set(principal.keyId, true);
      this.keys.markUsed(principal.keyId).catch(() => this.recentlyMarked.delete(principal.keyId));
    }
    return principal;
  }

  private evict(keyId: string): void {
    for (const [hash, principal] of this.cache.entries()) {
      if (principal.keyId === keyId) this.cache.delete(hash);
    }
  }
}

/** The key from `x-api-key` or `Authorization: Bearer` (CONTRACT §3). */
export function extractApiKey(headers: Record<string, string | string[] | undefined>): string | null {
  const direct = headers['x-api-key'];
  const fromHeader = typeof direct === 'string' && direct.trim() !== '' ? direct.trim() : null;
  const authorization = headers['authorization'];
  const fromBearer =
    typeof authorization === 'string' ? (/^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] ?? null) : null;
  // Two different keys in one request: which account is meant is unclear, so neither is used.
  if (fromHeader !== null && fromBearer !== null && fromHeader !== fromBearer) return null;
  return fromHeader ?? fromBearer;
}
