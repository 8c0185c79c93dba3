import {
  credentialBinding,
  inboundMediaBinding,
  inboundMessageBinding,
  receivedMessageBinding,
  SECRET_PURPOSES,
  sentMessageBinding,
  WEBHOOK_SECRET_BINDING,
} from '@jumbe/domain';

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

const session = (row: Row) => ({ accountId: row['account_id']!, sessionId: row['session_id']! });

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
    binding: (row) => credentialBinding(session(row), row['kind']!, row['key_id']!),
  },
  {
    table: 'sent_messages',
    column: 'value',
    key: ['account_id', 'session_id', 'message_id'],
    purpose: SECRET_PURPOSES.networkCredentials,
    encoding: 'bytes',
    binding: (row) => sentMessageBinding(session(row), row['message_id']!),
  },
  {
    table: 'inbound_outbox',
    column: 'value',
    key: ['account_id', 'session_id', 'message_id'],
    purpose: SECRET_PURPOSES.networkCredentials,
    encoding: 'bytes',
    binding: (row) => inboundMessageBinding(session(row), row['message_id']!),
  },
  {
    table: 'inbound_media',
    column: 'value',
    key: ['account_id', 'session_id', 'message_id'],
    purpose: SECRET_PURPOSES.networkCredentials,
    encoding: 'bytes',
    binding: (row) => inboundMediaBinding(session(row), row['message_id']!),
  },
  {
    table: 'received_messages',
    column: 'value',
    key: ['account_id', 'session_id', 'message_id'],
    purpose: SECRET_PURPOSES.networkCredentials,
    encoding: 'bytes',
    binding: (row) => receivedMessageBinding(session(row), row['message_id']!),
  },
];
