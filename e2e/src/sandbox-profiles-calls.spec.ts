import type { ApiClient, RecordingReceiver } from '@jumbe/testing';
import { createAccount } from './support/operator';
import { useSandboxTopology } from './support/sandbox-fixture';
import { eventually, linkSession, randomPhone } from './support/sandbox-helpers';
import { startAllInOne, startDistributed } from './support/topology';

/** Two accounts, the owner's session linked: what each case works with. */
interface Accounts {
  api: ApiClient;
  owner: string;
  other: string;
}

/** The smallest PNG there is (1×1), base64: a picture a client uploads in the request itself. */
const PNG_1X1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/**
 * Issue 30 items 5 and 6 through the all-in-one on the sandbox: the number's profile (name, about,
 * picture), a contact's profile and blocking, and calls: the opt-in `call.received` event, the
 * per-session setting that rejects calls and replies with a text (sent like any send), each
 * account's setting its own.
 */
describe('sandbox: profiles and calls', () => {
  const sandbox = useSandboxTopology(() => startAllInOne({ JUMBE_ALLOW_PRIVATE_NETWORKS: 'true' }));
  const gateway = () => sandbox.gateway();

  it("sets and reads the number's profile, reads a contact's and blocks them", async () =>
    setsProfileAndBlocks(await freshAccounts(gateway(), sandbox.adminToken())));

  it('counts contact profiles with number checks: 20 look-ups a session and minute', async () => {
    const api = gateway();
    const { key } = await createAccount(api, sandbox.adminToken());
    await linkSession(api, key);
    const statuses: number[] = [];
    for (let index = 0; index < 21; index++) {
      const contact = `2547${String(10_000_000 + index)}`;
      const path =
        index % 2 === 0
          ? `/api/v1/contacts/profile?contact=${contact}`
          : `/api/v1/contacts/check?phoneNumber=${contact}`;
      statuses.push((await api.get(path, { key })).status);
    }
    expect(statuses.slice(0, 20).every((status) => status === 200)).toBe(true);
    expect(statuses[20]).toBe(429);
  });

  it('rejects calls when the session says so, replies, and reports call.received; per account', async () =>
    rejectsAndReportsCalls(await freshAccounts(gateway(), sandbox.adminToken()), sandbox.receiver()));
});

/**
 * The same user-level cases on the distributed topology (gateway, one session worker, one webhook
 * dispatcher over NATS/Redis/PostgreSQL): the profile and block reach the worker over the bus, the
 * injected call is answered by the worker and its event delivered by the dispatcher.
 */
describe('distributed sandbox: profiles and calls', () => {
  const sandbox = useSandboxTopology(() =>
    startDistributed(1, { JUMBE_ALLOW_PRIVATE_NETWORKS: 'true' }, 1, { dispatchers: 1 }),
  );
  let accounts: Promise<Accounts> | undefined;
  // Both cases work with the same two accounts: made once, by the first case that needs them.
  const shared = () => (accounts ??= freshAccounts(sandbox.gateway(), sandbox.adminToken()));

  it("sets and reads the number's profile, reads a contact's and blocks them", async () =>
    setsProfileAndBlocks(await shared()));

  it('rejects calls when the session says so, replies, and reports call.received; per account', async () =>
    rejectsAndReportsCalls(await shared(), sandbox.receiver()));
});

/** Two new accounts; only the owner's session is linked. */
async function freshAccounts(api: ApiClient, adminToken: string): Promise<Accounts> {
  const owner = await createAccount(api, adminToken);
  const other = await createAccount(api, adminToken);
  await linkSession(api, owner.key);
  return { api, owner: owner.key, other: other.key };
}

async function setsProfileAndBlocks({ api, owner: key }: Accounts): Promise<void> {
  const blank = await api.get('/api/v1/profile', { key });
  expect(blank.status).toBe(200);
  expect(blank.body.data).toEqual({ name: null, about: null, pictureUrl: null });

  const updated = await api.put('/api/v1/profile', {
    key,
    body: { name: 'Duka la Mama', about: 'Open 8 to 6', pictureData: PNG_1X1 },
  });
  expect(updated.status).toBe(200);
  expect(updated.body.data).toEqual({ updated: ['name', 'about', 'picture'] });
  const read = await api.get('/api/v1/profile', { key });
  expect(read.body.data).toMatchObject({ name: 'Duka la Mama', about: 'Open 8 to 6' });
  expect(read.body.data.pictureUrl).toEqual(expect.any(String));

  const notAPicture = await api.put('/api/v1/profile', {
    key,
    body: { pictureData: Buffer.from('GIF89a not a png').toString('base64') },
  });
  expect(notAPicture.status).toBe(400);
  expect(notAPicture.body.error.code).toBe('validation_error');
  const nothing = await api.put('/api/v1/profile', { key, body: {} });
  expect(nothing.status).toBe(400);
  const tooLong = await api.put('/api/v1/profile', { key, body: { name: 'x'.repeat(26) } });
  expect(tooLong.status).toBe(400);

  const contact = randomPhone();
  const profile = await api.get(`/api/v1/contacts/profile?contact=${contact}`, { key });
  expect(profile.status).toBe(200);
  expect(profile.body.data).toEqual({
    contact,
    pictureUrl: null,
    about: 'Hey there! I am using WhatsApp.',
    aboutSetAt: null,
  });
  const badContact = await api.get('/api/v1/contacts/profile?contact=12', { key });
  expect(badContact.status).toBe(400);
  expect(badContact.body.error.code).toBe('invalid_phone');

  const blocked = await api.post('/api/v1/contacts/block', { key, body: { contact } });
  expect(blocked.status).toBe(200);
  expect(blocked.body.data).toEqual({ contact, blocked: true });
  const unblocked = await api.post('/api/v1/contacts/unblock', { key, body: { contact } });
  expect(unblocked.body.data).toEqual({ contact, blocked: false });
}

async function rejectsAndReportsCalls(
  { api, owner, other }: Accounts,
  receiver: RecordingReceiver,
): Promise<void> {
  const hooked = await api.patch('/api/v1/webhook', {
    key: owner,
    body: { url: `${receiver.url}/calls`, events: ['call.received'] },
  });
  expect(hooked.status).toBe(200);

  const unset = await api.get('/api/v1/session/calls', { key: owner });
  expect(unset.body.data).toEqual({ sessionId: 'default', rejectCalls: false, reply: null });

  // Off: the call rings, and is reported not rejected.
  const caller = randomPhone();
  const rang = await api.post('/api/v1/sandbox/call', { key: owner, body: { from: caller } });
  expect(rang.status).toBe(200);
  const [ringing] = await receiver.waitFor('/calls', 1);
  expect(ringing?.json).toMatchObject({
    event: 'call.received',
    sessionId: 'default',
    call: {
      id: rang.body.data.callId,
      from: caller,
      replyTo: caller,
      video: false,
      group: false,
      rejected: false,
    },
  });

  const reply = 'We do not take calls here: please send a message.';
  const saved = await api.put('/api/v1/session/calls', {
    key: owner,
    body: { rejectCalls: true, reply },
  });
  expect(saved.status).toBe(200);
  expect(saved.body.data).toEqual({ sessionId: 'default', rejectCalls: true, reply });
  const invalid = await api.put('/api/v1/session/calls', { key: owner, body: { reply } });
  expect(invalid.status).toBe(400);
  // Another account's session of the same name keeps its own (unset) setting.
  const elsewhere = await api.get('/api/v1/session/calls', { key: other });
  expect(elsewhere.body.data).toEqual({ sessionId: 'default', rejectCalls: false, reply: null });

  const video = await api.post('/api/v1/sandbox/call', {
    key: owner,
    body: { from: caller, video: true },
  });
  const requests = await receiver.waitFor('/calls', 2);
  expect(requests[1]?.json.call).toMatchObject({ id: video.body.data.callId, video: true, rejected: true });
  // The reply went out like any send: in the network's outbox, to the caller.
  const outbox = await eventually(
    () => api.get('/api/v1/sandbox/outbox?limit=10', { key: owner }),
    (response) => response.body.data.some((entry: { type: string }) => entry.type === 'text'),
  );
  const texts = outbox.body.data.filter((entry: { type: string }) => entry.type === 'text');
  expect(texts).toEqual([
    expect.objectContaining({ to: `${caller}@s.whatsapp.net`, content: { text: reply } }),
  ]);
  // No other account hears of the calls.
  const foreign = await api.post('/api/v1/sandbox/call', { key: other, body: { from: caller } });
  expect(foreign.status).toBe(409);
}
