import type { ApiKey, KeyScope } from '@jumbe/domain';

/** An account's API keys, stored only as their hashes (CONTRACT §3). */
export interface ApiKeyStore {
  create(key: {
    accountId: string;
    name: string | null;
    scope: KeyScope;
    /** The recognisable start of the key, shown in listings. */
    prefix: string;
    keyHash: string;
  }): Promise<ApiKey>;
  listByAccount(accountId: string): Promise<ApiKey[]>;
  /** Revokes the key now; null when the account has no such key. */
  revoke(accountId: string, keyId: string): Promise<ApiKey | null>;
  /** Revokes the key at `at` (a rotation's grace); null when the account has no such key. */
  scheduleRevoke(accountId: string, keyId: string, at: Date): Promise<ApiKey | null>;
}
