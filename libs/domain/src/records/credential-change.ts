/** One stored item of a session's network credentials; `value: null` deletes it. */
export interface CredentialChange {
  kind: string;
  keyId: string;
  value: Buffer | null;
}

/** `fenced`: a newer owner holds the session (or it no longer exists); nothing was written. */
export type CredentialWriteResult = 'saved' | 'fenced';
