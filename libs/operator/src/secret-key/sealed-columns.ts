import {
  credentialBinding,
  inboundMediaBinding,
  inboundMessageBinding,
  receivedMessageBinding,
  SECRET_PURPOSES,
  sentMessageBinding,
  sessionProxyBinding,
  WEBHOOK_SECRET_BINDING,
} from '@jumbe/domain';

/** A row's key columns (`SealedColumn.key`), which the rotation selects with the value. */
type Row = Record<string, string>;

/** A column whose values are sealed with a key derived from JUMBE_SECRET_KEY (see SecretBox). */
export interface SealedColumn {
  table: string;
  column: string;
  /** The columns that identify a row (its primary key). */
  key: string[];
  purpose: string;
  /** `bytes`: bytea; `text`: base64url of the sealed bytes. */
  encoding: 'bytes' | 'text';
  /** The associated data the value was sealed with, from its row. */
  binding(row: Row): string;
}

const session = (row: Row) => ({ accountId: row['account_id'], sessionId: row['session_id'] });

/** A table of message content a session keeps (sent, received, outbox, media), sealed per message. */
function keptMessage(
  table: string,
  bindingOf: (ref: ReturnType<typeof session>, messageId: string) => string,
): SealedColumn {
  return {
    table,
    column: 'value',
    key: ['account_id', 'session_id', 'message_id'],
    purpose: SECRET_PURPOSES.networkCredentials,
    encoding: 'bytes',
    binding: (row) => bindingOf(session(row), row['message_id']),
  };
}

/** Every sealed column in the schema: what a secret-key rotation re-seals. */
export const SEALED_COLUMNS: readonly SealedColumn[] = [
  {
    table: 'webhooks',
    column: 'secret_ciphertext',
    key: ['account_id'],
    purpose: SECRET_PURPOSES.webhookSigningSecret,
    encoding: 'text',
    binding: () => WEBHOOK_SECRET_BINDING,
  },
  {
    table: 'network_credentials',
    column: 'value',
    key: ['account_id', 'session_id', 'kind', 'key_id'],
    purpose: SECRET_PURPOSES.networkCredentials,
    encoding: 'bytes',
    binding: (row) => credentialBinding(session(row), row['kind'], row['key_id']),
  },
  keptMessage('sent_messages', sentMessageBinding),
  keptMessage('inbound_outbox', inboundMessageBinding),
  keptMessage('inbound_media', inboundMediaBinding),
  keptMessage('received_messages', receivedMessageBinding),
  {
    table: 'session_proxies',
    column: 'url_ciphertext',
    key: ['account_id', 'session_id'],
    purpose: SECRET_PURPOSES.sessionProxy,
    encoding: 'text',
    binding: (row) => sessionProxyBinding(session(row)),
  },
];
