import { ApiError, type contactCheckResultSchema } from '@jumbe/contracts';
import type { RateLimiter } from '../ports/rate-limiter';
import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { z } from 'zod';
import { orUnavailable } from '../http/dependency-failure';
import { RATE_LIMITER } from '../gateway.tokens';
import { SessionCommandClient } from '../sessions/session-command.client';

/**
 * Look-ups per session and minute. WhatsApp bans numbers that probe many others, so a session may
 * ask this often (every gateway counts into the same window), and answers are reused for a while.
 */
export const LOOKUPS_PER_SESSION_PER_MINUTE = 20;
const ANSWER_TTL_MS = 10 * 60 * 1000;

type Lookup = z.output<typeof contactCheckResultSchema>;

/** "Is this number on WhatsApp?", asked through a session: rate-limited per session, cached briefly. */
@Injectable()
export class NumberLookups {
  private readonly answers = new LRUCache<string, Lookup>({ max: 50_000, ttl: ANSWER_TTL_MS });

  constructor(
    private readonly commands: SessionCommandClient,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
  ) {}

  async check(accountId: string, sessionId: string, phoneNumber: string): Promise<Lookup> {
    const key = `${accountId}/${sessionId}/${phoneNumber}`;
    const known = this.answers.get(key);
    if (known) return known;
    await this.withinLimit(accountId, sessionId);
    const answer = await this.commands.send({ type: 'contact.check', accountId, sessionId, phoneNumber });
    this.answers.set(key, answer);
    return answer;
  }

  /** Counts one look-up of the session against its limit; `rate_limited` beyond it. */
  async withinLimit(accountId: string, sessionId: string): Promise<void> {
    const decision = await orUnavailable('coordination store', () =>
      this.limiter.consume(`lookups:${accountId}:${sessionId}`, LOOKUPS_PER_SESSION_PER_MINUTE, 60_000),
    );
    if (decision.allowed) return;
    const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
    throw new ApiError(
      'rate_limited',
      `A session may look up ${LOOKUPS_PER_SESSION_PER_MINUTE} numbers a minute (WhatsApp bans numbers that probe many others). Retry in ${seconds} s.`,
      undefined,
      { 'Retry-After': String(seconds) },
    );
  }
}
