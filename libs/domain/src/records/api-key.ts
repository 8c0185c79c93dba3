import type { KeyScope } from '../key-scope';

/** An API key's public record. The hash never leaves the store. */
export interface ApiKey {
  id: string;
  accountId: string;
  name: string | null;
  scope: KeyScope;
  prefix: string;
  createdAt: Date;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

/** What authentication needs to know about a presented key. */
export interface ActiveKey {
  id: string;
  accountId: string;
  scope: KeyScope;
  /** When a key being rotated stops working (it works until then), else null. */
  revokesAt: Date | null;
}
