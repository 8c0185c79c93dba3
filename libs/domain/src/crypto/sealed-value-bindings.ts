/**
 * The associated data each kind of sealed value is bound to (see SecretBox): where it is stored,
 * so a value copied into another row fails to open. Defined once, because the code that seals
 * them and the secret-key rotation that re-seals them must agree to the byte.
 */
export interface SealedSessionRef {
  accountId: string;
  sessionId: string;
}

/** A WhatsApp credential (`network_credentials.value`). */
export const credentialBinding = (ref: SealedSessionRef, kind: string, keyId: string): string =>
  JSON.stringify([ref.accountId, ref.sessionId, kind, keyId]);

/** A message a session sent, kept for retry requests (`sent_messages.value`). */
export const sentMessageBinding = (ref: SealedSessionRef, messageId: string): string =>
  `sent-message:${ref.accountId}/${ref.sessionId}/${messageId}`;

/** A received message waiting for the event stream (`inbound_outbox.value`). */
export const inboundMessageBinding = (ref: SealedSessionRef, messageId: string): string =>
  `inbound:${ref.accountId}/${ref.sessionId}/${messageId}`;

/** A received message kept so replies can quote it (`received_messages.value`). */
export const receivedMessageBinding = (ref: SealedSessionRef, messageId: string): string =>
  `received-message:${ref.accountId}/${ref.sessionId}/${messageId}`;

/** How to download a received media file (`inbound_media.value`). */
export const inboundMediaBinding = (ref: SealedSessionRef, messageId: string): string =>
  `inbound-media:${ref.accountId}/${ref.sessionId}/${messageId}`;

/** A session's proxy URL (`session_proxies.url_ciphertext`). */
export const sessionProxyBinding = (ref: SealedSessionRef): string =>
  `session-proxy:${ref.accountId}/${ref.sessionId}`;
/** A webhook signing secret (`webhooks.secret_ciphertext`) is sealed without associated data. */
export const WEBHOOK_SECRET_BINDING = '';
