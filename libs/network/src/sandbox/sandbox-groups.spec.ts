import { GroupActionError } from '../group-action-error';
import type { GroupEvent } from '../network-groups';
import { randomUUID } from 'node:crypto';
import { closeRedisClient, createRedisClient, waitForRedisReady } from '@jumbe/coordination';
import type Redis from 'ioredis';
import { RedisSandboxGroupBook } from './redis-sandbox-group-book';
import { MemorySandboxGroupBook, type SandboxGroupBook } from './sandbox-group-book';
import { SandboxGroups } from './sandbox-groups';
import { TEST_REDIS_URL } from './test-support/sandbox-store-fixtures';

const jid = (digits: string) => `${digits}@s.whatsapp.net`;

let redis: Redis | undefined;
/** Key prefixes the Redis books wrote under, removed after the run. */
const prefixes: string[] = [];
beforeAll(async () => {
  redis = createRedisClient(TEST_REDIS_URL, 'jumbe-test-sandbox-groups');
  await waitForRedisReady(redis, 5_000);
});
afterAll(async () => {
  if (!redis) return;
  for (const prefix of prefixes) await redis.del(`${prefix}groups`, `${prefix}group-invites`);
  await closeRedisClient(redis);
});

/** The same rules whichever store keeps the groups: one process's memory, or Redis for every worker. */
describe.each([
  ['in memory', (): SandboxGroupBook => new MemorySandboxGroupBook()],
  [
    'in Redis',
    (): SandboxGroupBook => {
      if (!redis) throw new Error('no Redis client');
      const prefix = `jumbe-test:{sandbox-groups-${randomUUID()}}:`;
      prefixes.push(prefix);
      return new RedisSandboxGroupBook(redis, prefix);
    },
  ],
])('SandboxGroups, groups kept %s', (_where, bookOf) => {
  const shopEvents: GroupEvent[] = [];
  let shop: SandboxGroups;
  let other: SandboxGroups;
  beforeAll(() => {
    const book = bookOf();
    shop = new SandboxGroups({
      book,
      ownJid: () => jid('254700000001'),
      emit: (e) => void shopEvents.push(e),
    });
    other = new SandboxGroups({ book, ownJid: () => jid('254700000002'), emit: () => undefined });
  });

  it('answers as WhatsApp: one result per participant, a contact ending in 403 refusing adds', async () => {
    const group = await shop.create('Wauzaji', [jid('254711000001')]);
    expect(group.participants).toEqual([
      { id: jid('254700000001'), phoneNumber: '254700000001', isAdmin: true, isSuperAdmin: true },
      { id: jid('254711000001'), phoneNumber: '254711000001', isAdmin: false, isSuperAdmin: false },
    ]);
    const results = await shop.changeParticipants(group.id, 'add', [
      jid('254711000002'),
      jid('254711000403'),
      jid('254711000001'),
      jid('254711110000'),
    ]);
    expect(results.map((result) => [result.status, result.reason])).toEqual([
      [200, null],
      [403, 'not_allowed'],
      [409, 'already_member'],
      [404, 'not_found'],
    ]);
    expect(shopEvents.at(-1)).toEqual({
      kind: 'participants',
      groupId: group.id,
      action: 'add',
      participants: [jid('254711000002')],
      author: jid('254700000001'),
    });
  });

  it('keeps a group from numbers not in it, and admin actions from members who are not admins', async () => {
    const group = await shop.create('Siri', [jid('254700000002')]);
    await expect(other.info('120363000000000009@g.us')).rejects.toBeInstanceOf(GroupActionError);
    await expect(other.changeParticipants(group.id, 'add', [jid('254711000009')])).rejects.toMatchObject({
      code: 'forbidden',
    });
    await expect(other.update(group.id, { locked: true })).rejects.toMatchObject({ code: 'forbidden' });
    await shop.leave(group.id);
    await expect(shop.info(group.id)).rejects.toMatchObject({ code: 'forbidden' });
    expect((await shop.list()).map((listed) => listed.id)).not.toContain(group.id);
  });

  it('joins by invite code; a revoked code no longer joins', async () => {
    const group = await shop.create('Mwaliko', [jid('254711000001')]);
    const old = await shop.inviteCode(group.id);
    const fresh = await shop.revokeInvite(group.id);
    expect(fresh).not.toBe(old);
    await expect(other.join(old)).rejects.toMatchObject({ code: 'not_found' });
    expect(await other.join(fresh)).toBe(group.id);
    expect((await other.info(group.id)).participants.map((member) => member.id)).toContain(
      jid('254700000002'),
    );
  });
});
