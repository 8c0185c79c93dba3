import { ApiError } from '@jumbe/contracts';
import { createHash, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** Failed admin-token attempts one client address may make per window before it is refused. */
export const ADMIN_FAILURES_PER_WINDOW = 10;
export const ADMIN_FAILURE_WINDOW_MS = 60_000;

interface FailureWindow {
  startedAt: number;
  failures: number;
}

/**
 * The admin token check, shared by the early (pre-body) hook and the route guard: compared in
 * constant time, and a client address that keeps guessing is refused with 429 for the rest of the
 * window, before its token is even compared, so the token cannot be tried thousands of times a
 * second. Counted per process: each gateway limits what reaches it.
 */
export class AdminTokenCheck {
  private readonly expected: Buffer | null;
  private readonly failures = new LRUCache<string, FailureWindow>({
    max: 50_000,
    ttl: ADMIN_FAILURE_WINDOW_MS,
  });

  constructor(
    token: string | null,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.expected = token === null ? null : digest(token);
  }

  /** Throws the contract's error unless `authorization` carries the admin token. */
  verify(authorization: string | undefined, clientAddress: string): void {
    if (this.expected === null) {
      throw new ApiError(
        'not_found',
        'The admin API is off: set JUMBE_ADMIN_TOKEN to enable it, or use the `npx jumbe` CLI.',
      );
    }
    this.refuseIfBlocked(clientAddress);
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    // Comparing fixed-length digests keeps the comparison constant-time whatever the input length.
    if (!match?.[1] || !timingSafeEqual(digest(match[1]), this.expected)) {
      const failures = this.recordFailure(clientAddress);
      this.logger.warn({ clientAddress, failures }, 'admin token refused');
      throw new ApiError(
        'unauthorized',
        'Missing or invalid admin token. Send "Authorization: Bearer <JUMBE_ADMIN_TOKEN>".',
      );
    }
  }

  private refuseIfBlocked(clientAddress: string): void {
    const window = this.currentWindow(clientAddress);
    if (!window || window.failures < ADMIN_FAILURES_PER_WINDOW) return;
    const seconds = Math.max(1, Math.ceil((window.startedAt + ADMIN_FAILURE_WINDOW_MS - this.now()) / 1000));
    throw new ApiError(
      'rate_limited',
      `Too many failed admin token attempts from this address. Retry in ${seconds} s.`,
      undefined,
      { 'Retry-After': String(seconds) },
    );
  }

  private recordFailure(clientAddress: string): number {
    const window = this.currentWindow(clientAddress) ?? { startedAt: this.now(), failures: 0 };
    window.failures += 1;
    this.failures.set(clientAddress, window);
    return window.failures;
  }

  private currentWindow(clientAddress: string): FailureWindow | undefined {
    const window = this.failures.get(clientAddress);
    if (window && this.now() - window.startedAt >= ADMIN_FAILURE_WINDOW_MS) {
      this.failures.delete(clientAddress);
      return undefined;
    }
    return window;
  }
}
