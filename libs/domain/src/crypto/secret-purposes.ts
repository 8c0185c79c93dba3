/**
 * The SecretBox purposes: each kind of secret at rest is sealed under its own derived key, and
 * every process that seals or opens one kind uses the same name.
 */
export const SECRET_PURPOSES = {
  webhookSigningSecret: 'webhook-signing-secret',
  /** The full URL of a webhook whose URL carries credentials (query, userinfo, fragment). */
  webhookUrl: 'webhook-url',
  networkCredentials: 'network-credentials',
  /** A session's proxy URL, its password included (`session_proxies.url_ciphertext`). */
  sessionProxy: 'session-proxy',
  /** The events kept for live subscribers in JetStream (`<events stream>_LIVE`): their payloads. */
  liveEvents: 'live-events',
} as const;
