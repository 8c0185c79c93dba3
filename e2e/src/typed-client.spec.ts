// The typed client (@jumbe/client) against a running all-in-one on the sandbox: the calls a bot and
// an operator make, written with the generated types, reaching the real routes and getting back
// what the types promise (the contract test checks every response against the document as well).
import { createJumbeClient, type JumbeClient } from '@jumbe/client';
import { randomBytes } from 'node:crypto';
import { randomPhone } from './support/sandbox-helpers';
import { startAllInOne, type Topology } from './support/topology';

const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

describe('@jumbe/client against the all-in-one', () => {
  let topology: Topology;
  let baseUrl: string;

  beforeAll(async () => {
    topology = await startAllInOne();
    const [gateway] = topology.gateways;
    if (!gateway) throw new Error('no gateway');
    baseUrl = gateway.baseUrl;
  });
  afterAll(() => topology?.stop());

  /** An account and a customer client with its key, made by the operator's client. */
  async function customer(): Promise<JumbeClient> {
    const admin = createJumbeClient({ baseUrl, adminToken: topology.adminToken });
    const plan = unique('plan');
    const created = await admin.POST('/api/v1/admin/plans', {
      body: { name: plan, monthlyApiHits: 1_000, maxSessions: 2 },
    });
    expect(created.response.status).toBe(201);
    const account = await admin.POST('/api/v1/admin/accounts', { body: { name: unique('acct'), plan } });
    if (!account.data) throw new Error(`account: ${JSON.stringify(account.error)}`);
    const key = await admin.POST('/api/v1/admin/accounts/{id}/keys', {
      params: { path: { id: account.data.data.id } },
      body: { name: 'bot', scope: 'full' },
    });
    if (!key.data) throw new Error(`key: ${JSON.stringify(key.error)}`);
    return createJumbeClient({ baseUrl, apiKey: key.data.key });
  }

  it('links a session, shows its QR as JSON and PNG, sends, and returns errors as the envelope', async () => {
    const jumbe = await customer();
    const started = await jumbe.POST('/api/v1/session/start', { body: { sessionId: 'shop' } });
    expect(started.data?.data).toMatchObject({ sessionId: 'shop', state: 'qr_ready' });

    const qr = await jumbe.GET('/api/v1/session/qr', { params: { query: { sessionId: 'shop' } } });
    // The route also answers images (format=png|svg), so the JSON is told apart from them first.
    if (typeof qr.data !== 'object') throw new Error(`QR: ${qr.response.status}`);
    expect(qr.data.data.qr).toEqual(expect.any(String));
    const png = await jumbe.GET('/api/v1/session/qr', {
      params: { query: { sessionId: 'shop', format: 'png' } },
      parseAs: 'arrayBuffer',
    });
    expect(png.response.headers.get('content-type')).toBe('image/png');
    expect(
      Buffer.from(png.data ?? new ArrayBuffer(0))
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');

    const phone = randomPhone();
    const scanned = await jumbe.POST('/api/v1/sandbox/scan', {
      body: { sessionId: 'shop', phoneNumber: phone },
    });
    expect(scanned.data?.data).toMatchObject({ state: 'connected', phoneNumber: phone });
    const sessions = await jumbe.GET('/api/v1/sessions');
    expect(sessions.data?.data.map((session) => session.sessionId)).toEqual(['shop']);

    const sent = await jumbe.POST('/api/v1/messages/text', {
      body: { sessionId: 'shop', to: '254711111111', text: 'Sent with @jumbe/client' },
    });
    if (!sent.data) throw new Error(`send: ${JSON.stringify(sent.error)}`);
    const outbox = await jumbe.GET('/api/v1/sandbox/outbox', {
      params: { query: { sessionId: 'shop', limit: 1 } },
    });
    expect(outbox.data?.data[0]).toMatchObject({
      id: sent.data.data.key.id,
      content: { text: 'Sent with @jumbe/client' },
    });

    const refused = await jumbe.POST('/api/v1/messages/text', {
      body: { sessionId: 'shop', to: 'not-a-number', text: 'x' },
    });
    expect({ status: refused.response.status, code: refused.error?.error.code }).toEqual({
      status: 400,
      code: 'invalid_phone',
    });

    const usage = await jumbe.GET('/api/v1/usage');
    expect(usage.data?.data.messagesSent).toBe(1);
  });
});
