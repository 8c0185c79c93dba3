/** An operator's dashboard session to store: the token as a hash, bound to the admin token. */
export interface NewOperatorSession {
  tokenHash: string;
  /** An HMAC of the token hash keyed by the admin token: checks the admin token is still the same. */
  adminBinding: string;
  expiresAt: Date;
}

/** An operator's dashboard session as stored. */
export interface StoredOperatorSession {
  id: string;
  adminBinding: string;
  expiresAt: Date;
}

/** Where the operator's dashboard sessions (CONTRACT §11) are kept: one store every gateway reads. */
export abstract class OperatorSessionStore {
  /** Stores a new session; the expired ones and the oldest beyond `maxLive` are ended. */
  abstract open(session: NewOperatorSession, maxLive: number): Promise<{ id: string }>;
  /** The unexpired session whose token has this hash. */
  abstract findLive(tokenHash: string): Promise<StoredOperatorSession | null>;
  /** Ends a session (sign-out); false when it was already gone. */
  abstract end(id: string): Promise<boolean>;
}
