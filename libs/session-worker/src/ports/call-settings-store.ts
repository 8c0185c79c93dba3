/** A session's calls setting (CONTRACT §11): reject incoming calls, and the text sent after. */
export interface StoredCallSettings {
  rejectCalls: boolean;
  reply: string | null;
}

/** Where sessions' calls settings live (CallSettingsRepository of @jumbe/persistence). */
export abstract class CallSettingsStore {
  /** Null when the session never set it: calls ring on the phone as the spec has it. */
  abstract find(ref: { accountId: string; sessionId: string }): Promise<StoredCallSettings | null>;
  abstract save(ref: { accountId: string; sessionId: string }, settings: StoredCallSettings): Promise<void>;
}
