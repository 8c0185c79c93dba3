import type { ActiveKey } from '@jumbe/domain';

/** Where presented API keys are looked up by their hash (CONTRACT §3: keys are stored hashed). */
export abstract class ApiKeyLookup {
  abstract findActiveByHash(keyHash: string): Promise<ActiveKey | null>;
  /** Records that the key was used (shown as "last used" in listings). */
  abstract markUsed(keyId: string): Promise<void>;
}
