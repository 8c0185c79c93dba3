import type { KeyScope } from '@jumbe/domain';

/** A dashboard session to store: its token only as a hash. */
export interface NewDashboardSession {
  accountId: string;
  keyId: string;
  tokenHash: string;
  expiresAt: Date;
}

/** A dashboard session that still works: not expired, not signed out, its key not revoked. */
export interface LiveDashboardSession {
  id: string;
  accountId: string;
  keyId: string;
  /** The key's scope as it is now. */
  scope: KeyScope;
  expiresAt: Date;
}

/**
 * Where dashboard sessions (CONTRACT §11) are kept: one store every gateway reads, so a sign-out,
 * an expiry or a key's revocation holds on all of them at the next request.
 */
export abstract class DashboardSessionStore {
  /** Stores a new session and ends the account's oldest live ones beyond `maxPerAccount`. */
  abstract open(session: NewDashboardSession, maxPerAccount: number): Promise<{ id: string }>;
  /** The live session whose token has this hash; null when unknown, expired, or its key revoked. */
  abstract findLive(tokenHash: string): Promise<LiveDashboardSession | null>;
  /** Ends a session (sign-out); false when it was already gone. */
  abstract end(id: string): Promise<boolean>;
}
