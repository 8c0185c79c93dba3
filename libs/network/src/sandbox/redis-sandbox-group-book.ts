import { withRedisFailuresTranslated } from '@jumbe/coordination';
import type Redis from 'ioredis';
import type { SandboxGroupBook, SandboxGroupRecord } from './sandbox-group-book';

/**
 * The simulated network's groups in Redis, shared by every worker: one hash of groups (id → JSON)
 * and one of invite codes (code → id). A change is the whole group written again; two sessions
 * changing one group at the same instant may lose one change (a sandbox, not a ledger).
 */
export class RedisSandboxGroupBook implements SandboxGroupBook {
  private readonly groupsKey: string;
  private readonly codesKey: string;

  /** `base`: the sandbox store's key prefix (with its hash tag). */
  constructor(
    private readonly redis: Redis,
    base: string,
  ) {
    this.groupsKey = `${base}groups`;
    this.codesKey = `${base}group-invites`;
  }

  async get(groupId: string): Promise<SandboxGroupRecord | null> {
    const json = await this.run('group', () => this.redis.hget(this.groupsKey, groupId));
    return json === null ? null : (JSON.parse(json) as SandboxGroupRecord);
  }

  async withMember(jid: string): Promise<SandboxGroupRecord[]> {
    const all = await this.run('groups', () => this.redis.hvals(this.groupsKey));
    return all.map((json) => JSON.parse(json) as SandboxGroupRecord).filter((group) => jid in group.members);
  }

  async byInviteCode(code: string): Promise<SandboxGroupRecord | null> {
    const groupId = await this.run('group invite', () => this.redis.hget(this.codesKey, code));
    return groupId === null ? null : this.get(groupId);
  }

  async save(group: SandboxGroupRecord): Promise<void> {
    const previous = await this.get(group.id);
    await this.run('save group', async () => {
      const write = this.redis.multi().hset(this.groupsKey, group.id, JSON.stringify(group));
      if (previous && previous.inviteCode !== group.inviteCode)
        write.hdel(this.codesKey, previous.inviteCode);
      await write.hset(this.codesKey, group.inviteCode, group.id).exec();
    });
  }

  private run<T>(operation: string, command: () => Promise<T>): Promise<T> {
    return withRedisFailuresTranslated(`sandbox ${operation}`, command);
  }
}
