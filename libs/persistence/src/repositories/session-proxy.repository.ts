import type { DataSource } from 'typeorm';
import { isUuid } from '../is-uuid';

/** A session's proxy as stored: the form that may be shown, and the URL sealed. */
export interface StoredSessionProxy {
  maskedUrl: string;
  urlCiphertext: string;
  updatedAt: Date;
}

interface SessionProxyRow {
  masked_url: string;
  url_ciphertext: string;
  updated_at: Date;
}

/** Sessions' own proxies (docs/session-proxy.md), one per account and session id. */
export class SessionProxyRepository {
  constructor(private readonly dataSource: DataSource) {}

  async find(accountId: string, sessionId: string): Promise<StoredSessionProxy | null> {
    if (!isUuid(accountId)) return null;
    const [row] = (await this.dataSource.query(
      `SELECT masked_url, url_ciphertext, updated_at FROM session_proxies WHERE account_id = $1 AND session_id = $2`,
      [accountId, sessionId],
    )) as SessionProxyRow[];
    return row
      ? { maskedUrl: row.masked_url, urlCiphertext: row.url_ciphertext, updatedAt: row.updated_at }
      : null;
  }

  /** The sealed URL the WhatsApp driver dials (its SessionProxyStore). */
  async sealedProxyOf(ref: { accountId: string; sessionId: string }): Promise<string | null> {
    return (await this.find(ref.accountId, ref.sessionId))?.urlCiphertext ?? null;
  }

  /** Sets (or replaces) the session's proxy; answers it as stored. */
  async save(
    accountId: string,
    sessionId: string,
    proxy: { maskedUrl: string; urlCiphertext: string },
  ): Promise<StoredSessionProxy> {
    const [row] = (await this.dataSource.query(
      `INSERT INTO session_proxies (account_id, session_id, masked_url, url_ciphertext, updated_at)
       VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (account_id, session_id) DO UPDATE
         SET masked_url = $3, url_ciphertext = $4, updated_at = now()
       RETURNING masked_url, url_ciphertext, updated_at`,
      [accountId, sessionId, proxy.maskedUrl, proxy.urlCiphertext],
    )) as SessionProxyRow[];
    if (!row) throw new Error('the session proxy was not stored');
    return { maskedUrl: row.masked_url, urlCiphertext: row.url_ciphertext, updatedAt: row.updated_at };
  }

  /** Removes the session's proxy; false when it had none. */
  async delete(accountId: string, sessionId: string): Promise<boolean> {
    if (!isUuid(accountId)) return false;
    const [, affected] = (await this.dataSource.query(
      `DELETE FROM session_proxies WHERE account_id = $1 AND session_id = $2`,
      [accountId, sessionId],
    )) as [unknown, number];
    return affected > 0;
  }
}
