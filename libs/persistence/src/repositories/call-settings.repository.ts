import type { DataSource } from 'typeorm';
import { isUuid } from '../is-uuid';

/** A session's calls setting as stored. */
export interface StoredCallSettings {
  rejectCalls: boolean;
  reply: string | null;
}

interface CallSettingsRow {
  reject_calls: boolean;
  reply: string | null;
}

type Ref = { accountId: string; sessionId: string };

/** Sessions' calls settings (`PUT /session/calls`), one per account and session id. */
export class CallSettingsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async find(ref: Ref): Promise<StoredCallSettings | null> {
    if (!isUuid(ref.accountId)) return null;
    const [row] = (await this.dataSource.query(
      `SELECT reject_calls, reply FROM session_call_settings WHERE account_id = $1 AND session_id = $2`,
      [ref.accountId, ref.sessionId],
    )) as CallSettingsRow[];
    return row ? { rejectCalls: row.reject_calls, reply: row.reply } : null;
  }

  async save(ref: Ref, settings: StoredCallSettings): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO session_call_settings (account_id, session_id, reject_calls, reply, updated_at)
       VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (account_id, session_id) DO UPDATE SET reject_calls = $3, reply = $4, updated_at = now()`,
      [ref.accountId, ref.sessionId, settings.rejectCalls, settings.reply],
    );
  }
}
