import {
  credentialBinding,
  inboundMediaBinding,
  inboundMessageBinding,
  receivedMessageBinding,
  SECRET_PURPOSES,
  SecretBox,
  sentMessageBinding,
  SessionProxyVault,
} from '@jumbe/domain';
import { type MigratedTestDatabase, openMigratedTestDatabase } from '@jumbe/persistence';
import { Client } from 'pg';
import { rotateSecretKey } from './secret-key-rotation';

const CURRENT = 'the-current-secret-key-0123456789abcdef';
const NEXT = 'the-next-secret-key-0123456789abcdefghij';

/** On a real database: values sealed as the services seal them, rotated, then opened again. */
describe('rotateSecretKey', () => {
  let db: MigratedTestDatabase;
  const boxes = (key: string) => ({
    credentials: new SecretBox(key, SECRET_PURPOSES.networkCredentials),
    webhooks: new SecretBox(key, SECRET_PURPOSES.webhookSigningSecret),
  });
  const ref = { accountId: '', sessionId: 'main' };

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
  }, 60_000);
  afterAll(() => db?.close());

  beforeEach(async () => {
    await db.dataSource.query('TRUNCATE plans CASCADE');
    const [plan] = await db.dataSource.query(
      `INSERT INTO plans (name, monthly_api_hits, max_sessions) VALUES ('p', 10, 1) RETURNING id`,
    );
    const [account] = await db.dataSource.query(
      `INSERT INTO accounts (name, plan_id) VALUES ('a', $1) RETURNING id`,
      [plan.id],
    );
    ref.accountId = account.id;
    await db.dataSource.query(
      `INSERT INTO sessions (account_id, session_id, shard, state) VALUES ($1, 'main', 0, 'connected')`,
      [ref.accountId],
    );
    const { credentials, webhooks } = boxes(CURRENT);
    await db.dataSource.query(
      `INSERT INTO network_credentials (account_id, session_id, kind, key_id, value) VALUES ($1, 'main', 'creds', 'k1', $2)`,
      [ref.accountId, credentials.sealBytes('{"noiseKey":1}', credentialBinding(ref, 'creds', 'k1'))],
    );
    await db.dataSource.query(
      `INSERT INTO sent_messages (account_id, session_id, message_id, value) VALUES ($1, 'main', 'm1', $2)`,
      [ref.accountId, credentials.sealBytes('sent bytes', sentMessageBinding(ref, 'm1'))],
    );
    await db.dataSource.query(
      `INSERT INTO inbound_outbox (account_id, session_id, message_id, value) VALUES ($1, 'main', 'm2', $2)`,
      [ref.accountId, credentials.sealBytes('{"text":"hi"}', inboundMessageBinding(ref, 'm2'))],
    );
    await db.dataSource.query(
      `INSERT INTO inbound_media (account_id, session_id, message_id, value) VALUES ($1, 'main', 'm3', $2)`,
      [ref.accountId, credentials.sealBytes('media key', inboundMediaBinding(ref, 'm3'))],
    );
    await db.dataSource.query(
      `INSERT INTO received_messages (account_id, session_id, message_id, value) VALUES ($1, 'main', 'm3', $2)`,
      [ref.accountId, credentials.sealBytes('quotable bytes', receivedMessageBinding(ref, 'm3'))],
    );
    await db.dataSource.query(
      `INSERT INTO webhooks (account_id, url, enabled, secret_ciphertext) VALUES ($1, 'https://example.com', true, $2)`,
      [ref.accountId, webhooks.seal('whsec_abc')],
    );
    await db.dataSource.query(
      `INSERT INTO session_proxies (account_id, session_id, masked_url, url_ciphertext) VALUES ($1, 'main', 'socks5://u:****@p.example.com:1080', $2)`,
      [ref.accountId, new SessionProxyVault(CURRENT).seal(ref, 'socks5://u:pw@p.example.com:1080')],
    );
  });

  const stored = async () => {
    const [credential] = await db.dataSource.query(`SELECT value FROM network_credentials`);
    const [sent] = await db.dataSource.query(`SELECT value FROM sent_messages`);
    const [inbound] = await db.dataSource.query(`SELECT value FROM inbound_outbox`);
    const [media] = await db.dataSource.query(`SELECT value FROM inbound_media`);
    const [received] = await db.dataSource.query(`SELECT value FROM received_messages`);
    const [webhook] = await db.dataSource.query(`SELECT secret_ciphertext FROM webhooks`);
    const [proxy] = await db.dataSource.query(`SELECT url_ciphertext FROM session_proxies`);
    return {
      credential: credential.value,
      sent: sent.value,
      inbound: inbound.value,
      media: media.value,
      received: received.value,
      webhook: webhook.secret_ciphertext,
      proxy: proxy.url_ciphertext,
    };
  };

  const openAll = async (key: string) => {
    const { credentials, webhooks } = boxes(key);
    const values = await stored();
    return {
      credential: credentials.openBytes(values.credential, credentialBinding(ref, 'creds', 'k1')).toString(),
      sent: credentials.openBytes(values.sent, sentMessageBinding(ref, 'm1')).toString(),
      inbound: credentials.openBytes(values.inbound, inboundMessageBinding(ref, 'm2')).toString(),
      media: credentials.openBytes(values.media, inboundMediaBinding(ref, 'm3')).toString(),
      received: credentials.openBytes(values.received, receivedMessageBinding(ref, 'm3')).toString(),
      webhook: webhooks.openText(values.webhook),
      proxy: new SessionProxyVault(key).open(ref, values.proxy),
    };
  };

  it('re-seals every sealed value under the new key, which then opens them; the old key no longer does', async () => {
    const before = await openAll(CURRENT);
    const summary = await rotateSecretKey({ url: db.url, currentKey: CURRENT, newKey: NEXT, force: false });
    expect(summary.resealed).toEqual([
      { table: 'webhooks', column: 'secret_ciphertext', rows: 1 },
      { table: 'network_credentials', column: 'value', rows: 1 },
      { table: 'sent_messages', column: 'value', rows: 1 },
      { table: 'inbound_outbox', column: 'value', rows: 1 },
      { table: 'inbound_media', column: 'value', rows: 1 },
      { table: 'received_messages', column: 'value', rows: 1 },
      { table: 'session_proxies', column: 'url_ciphertext', rows: 1 },
    ]);
    expect(await openAll(NEXT)).toEqual(before);
    await expect(openAll(CURRENT)).rejects.toThrow();
  });

  it('changes nothing when one value does not open with the current key', async () => {
    await db.dataSource.query(`UPDATE sent_messages SET value = $1`, [
      boxes('some-other-key-0123456789abcdefghijk').credentials.sealBytes('x', sentMessageBinding(ref, 'm1')),
    ]);
    const before = await stored();
    await expect(
      rotateSecretKey({ url: db.url, currentKey: CURRENT, newKey: NEXT, force: false }),
    ).rejects.toThrow(/sent_messages .* does not open with the current key/);
    expect(await stored()).toEqual(before);
  });

  it('refuses while a Jumbe service is connected, unless forced', async () => {
    const gateway = new Client({ connectionString: db.url, application_name: 'jumbe-gateway' });
    await gateway.connect();
    try {
      await expect(
        rotateSecretKey({ url: db.url, currentKey: CURRENT, newKey: NEXT, force: false }),
      ).rejects.toThrow(/services are connected to the database: gateway \(1 connections\)/);
      expect((await openAll(CURRENT)).webhook).toBe('whsec_abc');
      await rotateSecretKey({ url: db.url, currentKey: CURRENT, newKey: NEXT, force: true });
      expect((await openAll(NEXT)).webhook).toBe('whsec_abc');
    } finally {
      await gateway.end();
    }
  });
});
