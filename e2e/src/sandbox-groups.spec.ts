import type { ApiClient } from '@jumbe/testing';
import { createAccount } from './support/operator';
import { useSandboxTopology } from './support/sandbox-fixture';
import { linkSession, randomPhone } from './support/sandbox-helpers';
import { startAllInOne, startDistributed } from './support/topology';

/**
 * Issue 30 item 2 through the all-in-one on the sandbox: the group routes end to end (gateway →
 * bus → worker → sandbox network), one result per participant (a contact ending in 403 refuses
 * adds), the opt-in `group.participants` / `group.updated` events, and account isolation.
 */
describe('sandbox: groups', () => {
  const sandbox = useSandboxTopology(() => startAllInOne({ JUMBE_ALLOW_PRIVATE_NETWORKS: 'true' }));
  const gateway = () => sandbox.gateway();

  it('creates, reads, changes and leaves a group, with one result per participant and the events', async () => {
    const api = gateway();
    const { key } = await createAccount(api, sandbox.adminToken());
    const hooked = await api.patch('/api/v1/webhook', {
      key,
      body: { url: `${sandbox.receiver().url}/groups`, events: ['group.participants', 'group.updated'] },
    });
    expect(hooked.status).toBe(200);
    const own = await linkSession(api, key);
    const [akinyi, baraka] = [randomPhone(), randomPhone()];
    const refusing = `${randomPhone().slice(0, -3)}403`;

    const created = await api.post('/api/v1/groups', {
      key,
      body: { subject: 'Wauzaji', participants: [akinyi] },
    });
    expect(created.status).toBe(201);
    const group = created.body.data;
    expect(group).toMatchObject({
      subject: 'Wauzaji',
      description: null,
      settings: { announcementOnly: false, locked: false },
    });
    expect(group.participants).toEqual([
      { id: `${own}@s.whatsapp.net`, phoneNumber: own, isAdmin: true, isSuperAdmin: true },
      { id: `${akinyi}@s.whatsapp.net`, phoneNumber: akinyi, isAdmin: false, isSuperAdmin: false },
    ]);

    const listed = await api.get('/api/v1/groups', { key });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((item: { id: string }) => item.id)).toEqual([group.id]);

    const added = await api.post(`/api/v1/groups/${group.id}/participants`, {
      key,
      body: { action: 'add', participants: [baraka, refusing] },
    });
    expect(added.status).toBe(200);
    expect(added.body.data).toEqual({
      groupId: group.id,
      action: 'add',
      results: [
        { participant: `${baraka}@s.whatsapp.net`, ok: true, status: 200, reason: null },
        { participant: `${refusing}@s.whatsapp.net`, ok: false, status: 403, reason: 'not_allowed' },
      ],
    });
    const promoted = await api.post(`/api/v1/groups/${group.id}/participants`, {
      key,
      body: { action: 'promote', participants: [baraka] },
    });
    expect(promoted.body.data.results[0]).toMatchObject({ ok: true });

    // The group id also works as its digits alone.
    const digits = group.id.split('@')[0];
    const changed = await api.patch(`/api/v1/groups/${digits}`, {
      key,
      body: { subject: 'Wauzaji wa Soko', description: 'Bei za leo', locked: true },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({
      subject: 'Wauzaji wa Soko',
      description: 'Bei za leo',
      settings: { announcementOnly: false, locked: true },
    });
    const info = await api.get(`/api/v1/groups/${group.id}`, { key });
    expect(info.body.data.participants).toContainEqual({
      id: `${baraka}@s.whatsapp.net`,
      phoneNumber: baraka,
      isAdmin: true,
      isSuperAdmin: false,
    });

    const invite = await api.get(`/api/v1/groups/${group.id}/invite`, { key });
    expect(invite.status).toBe(200);
    expect(invite.body.data.link).toBe(`https://chat.whatsapp.com/${invite.body.data.code}`);
    const revoked = await api.post(`/api/v1/groups/${group.id}/invite/revoke`, { key, body: {} });
    expect(revoked.body.data.code).not.toBe(invite.body.data.code);

    const events = await sandbox.receiver().waitFor('/groups', 4);
    expect(events.map((delivery) => delivery.json)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          event: 'group.participants',
          sessionId: 'default',
          group: {
            id: group.id,
            action: 'add',
            participants: [`${baraka}@s.whatsapp.net`],
            author: `${own}@s.whatsapp.net`,
          },
        }),
        expect.objectContaining({
          event: 'group.updated',
          group: expect.objectContaining({ id: group.id, subject: 'Wauzaji wa Soko', locked: true }),
        }),
        expect.objectContaining({
          event: 'group.updated',
          group: { id: group.id, inviteRevoked: true, author: `${own}@s.whatsapp.net` },
        }),
      ]),
    );

    const left = await api.post(`/api/v1/groups/${group.id}/leave`, { key, body: {} });
    expect(left.body.data).toEqual({ groupId: group.id, left: true });
    const gone = await api.get(`/api/v1/groups/${group.id}`, { key });
    // As on WhatsApp: a group the number is no longer in is forbidden to it; an unknown one is 404.
    expect(gone.status).toBe(403);
    expect(gone.body.error.code).toBe('forbidden');
    const unknown = await api.get('/api/v1/groups/120363000000000009@g.us', { key });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
  });

  it("keeps one account's groups from another's session; a code joins, a bad input is a 400", () =>
    isolatesAndJoins(gateway(), sandbox.adminToken()));
});

/** Two workers: whichever runs each session, the groups live in Redis, so a code joins across them. */
describe('distributed sandbox: groups', () => {
  let running: Awaited<ReturnType<typeof startDistributed>> | undefined;
  beforeAll(async () => {
    running = await startDistributed(1, {}, 2);
  });
  afterAll(async () => {
    await running?.stop();
  });

  it("keeps one account's groups from another's session; a code joins, a bad input is a 400", () => {
    const api = running?.gateways[0];
    if (!api) throw new Error('no gateway');
    return isolatesAndJoins(api, running?.adminToken ?? '');
  });
});

async function isolatesAndJoins(api: ApiClient, adminToken: string): Promise<void> {
  const owner = await createAccount(api, adminToken);
  const other = await createAccount(api, adminToken);
  await linkSession(api, owner.key);
  const otherNumber = await linkSession(api, other.key);
  const created = await api.post('/api/v1/groups', {
    key: owner.key,
    body: { subject: 'Siri', participants: [randomPhone()] },
  });
  const groupId = created.body.data.id;

  const peek = await api.get(`/api/v1/groups/${groupId}`, { key: other.key });
  expect(peek.status).toBe(403);
  expect(peek.body.error.code).toBe('forbidden');
  expect(JSON.stringify(peek.body)).not.toContain('Siri');
  const meddle = await api.post(`/api/v1/groups/${groupId}/participants`, {
    key: other.key,
    body: { action: 'add', participants: [otherNumber] },
  });
  expect(meddle.status).toBe(403);
  expect((await api.get('/api/v1/groups', { key: other.key })).body.data).toEqual([]);

  // Only with the invite link does the other number get in.
  const invite = await api.get(`/api/v1/groups/${groupId}/invite`, { key: owner.key });
  const joined = await api.post('/api/v1/groups/join', {
    key: other.key,
    body: { code: invite.body.data.link },
  });
  expect(joined.status).toBe(200);
  expect(joined.body.data).toEqual({ groupId });
  const seen = await api.get(`/api/v1/groups/${groupId}`, { key: other.key });
  expect(seen.body.data.participants.map((member: { id: string }) => member.id)).toContain(
    `${otherNumber}@s.whatsapp.net`,
  );
  // A member who is no admin may not add anyone.
  const notAdmin = await api.post(`/api/v1/groups/${groupId}/participants`, {
    key: other.key,
    body: { action: 'add', participants: [randomPhone()] },
  });
  expect(notAdmin.status).toBe(403);
  expect(notAdmin.body.error.code).toBe('forbidden');

  const badGroup = await api.get('/api/v1/groups/not-a-group', { key: owner.key });
  expect(badGroup.status).toBe(400);
  const badAction = await api.post(`/api/v1/groups/${groupId}/participants`, {
    key: owner.key,
    body: { action: 'ban', participants: [randomPhone()] },
  });
  expect(badAction.status).toBe(400);
  const badMember = await api.post('/api/v1/groups', {
    key: owner.key,
    body: { subject: 'X', participants: ['+254 7'] },
  });
  expect(badMember.status).toBe(400);
  expect(badMember.body.error.code).toBe('invalid_phone');
  const nothing = await api.patch(`/api/v1/groups/${groupId}`, { key: owner.key, body: {} });
  expect(nothing.status).toBe(400);
}
