import type { DataSource } from 'typeorm';
import type { SessionRef } from './session.repository';

/** A session's stored network credentials (the WhatsApp driver fills them; logout clears them). */
export class NetworkCredentialRepository {
  constructor(private readonly dataSource: DataSource) {}

  async clear(ref: SessionRef): Promise<void> {
    await this.dataSource.query(`DELETE FROM network_credentials WHERE account_id = $1 AND session_id = $2`, [
      ref.accountId,
      ref.sessionId,
    ]);
  }
}
