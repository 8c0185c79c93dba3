import type { DataSource } from 'typeorm';
import { isUuid } from '../is-uuid';

/** What opening a WhatsApp session reads: its sealed proxy, its sealed creds and its key index. */
export interface StoredSessionStart {
  sealedProxy: string | null;
  creds: Buffer | null;
  /** The ids of the stored items but the excepted kinds', or null when more than the limit. */
  storedKeys: { kind: string; keyId: string }[] | null;
}

interface StartRow {
  sealed_proxy: string | null;
  creds: Buffer | null;
  kinds: string[] | null;
  key_ids: string[] | null;
}

/**
 * The WhatsApp driver's reads when a session opens (its SessionStartStore), in one statement: the
 * proxy (session_proxies, as SessionProxyRepository.sealedProxyOf), the creds item and the ids
 * of the stored items (network_credentials, as NetworkCredentialStore.read and storedKeys). A
 * worker that takes shards over opens all their sessions at once; as three statements these were
 * three of a restored session's ~11 transactions (issue 28's restore bench).
 */
export class SessionStartRepository {
  constructor(private readonly dataSource: DataSource) {}

  async startOf(
    ref: { accountId: string; sessionId: string },
    creds: { kind: string; keyId: string },
    exceptKinds: readonly string[],
    limit: number,
  ): Promise<StoredSessionStart> {
    if (!isUuid(ref.accountId)) return { sealedProxy: null, creds: null, storedKeys: [] };
    const [row] = (await this.dataSource.query(
      `SELECT
         (SELECT url_ciphertext FROM session_proxies
           WHERE account_id = $1 AND session_id = $2) AS sealed_proxy,
         (SELECT value FROM network_credentials
           WHERE account_id = $1 AND session_id = $2 AND kind = $3 AND key_id = $4) AS creds,
         ids.kinds, ids.key_ids
       FROM (SELECT array_agg(kind) AS kinds, array_agg(key_id) AS key_ids
               FROM (SELECT kind, key_id FROM network_credentials
                      WHERE account_id = $1 AND session_id = $2 AND kind <> ALL($5::text[])
                      LIMIT $6) AS stored) AS ids`,
      [ref.accountId, ref.sessionId, creds.kind, creds.keyId, [...exceptKinds], limit + 1],
    )) as StartRow[];
    if (!row) throw new Error('the session start read answered no row');
    const kinds = row.kinds ?? [];
    const keyIds = row.key_ids ?? [];
    return {
      sealedProxy: row.sealed_proxy,
      creds: row.creds,
      storedKeys: kinds.length > limit ? null : kinds.map((kind, index) => ({ kind, keyId: keyIds[index] })),
    };
  }
}
