/** Which session a driver call is about: session ids are per account, so both are needed. */
export interface SessionRef {
  accountId: string;
  sessionId: string;
}

/**
 * One string per session, for maps and storage keys. Both parts are URI-encoded, so the `:`
 * separator cannot occur inside either and two refs never share a key.
 */
export function sessionRefKey(ref: SessionRef): string {
  return `${encodeURIComponent(ref.accountId)}:${encodeURIComponent(ref.sessionId)}`;
}
