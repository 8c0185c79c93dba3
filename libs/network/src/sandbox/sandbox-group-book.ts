/** A member's rank in a group of the simulated network. */
export type SandboxGroupRank = 'member' | 'admin' | 'superadmin';

/** A group of the simulated network, as kept in the sandbox's store (plain JSON). */
export interface SandboxGroupRecord {
  id: string;
  subject: string;
  description: string | null;
  owner: string;
  createdAt: string;
  /** Member JID → rank, in the order they joined. */
  members: Record<string, SandboxGroupRank>;
  announcementOnly: boolean;
  locked: boolean;
  inviteCode: string;
}

/**
 * Where the simulated network keeps its groups: in the sandbox's store, so every worker of a
 * deployment sees the same groups (a session joins by invite code whatever worker runs it).
 */
export interface SandboxGroupBook {
  get(groupId: string): Promise<SandboxGroupRecord | null>;
  /** The groups `jid` is a member of. */
  withMember(jid: string): Promise<SandboxGroupRecord[]>;
  byInviteCode(code: string): Promise<SandboxGroupRecord | null>;
  /** Stores the group as it is now (a revoked invite code stops finding it). */
  save(group: SandboxGroupRecord): Promise<void>;
}

/** The groups of one process's simulated network (the all-in-one's memory store, unit tests). */
export class MemorySandboxGroupBook implements SandboxGroupBook {
  /** JSON, as through Redis: a caller cannot change the network through an object it holds. */
  private readonly groups = new Map<string, string>();

  async get(groupId: string): Promise<SandboxGroupRecord | null> {
    const json = this.groups.get(groupId);
    return json === undefined ? null : (JSON.parse(json) as SandboxGroupRecord);
  }

  async withMember(jid: string): Promise<SandboxGroupRecord[]> {
    return this.all().filter((group) => jid in group.members);
  }

  async byInviteCode(code: string): Promise<SandboxGroupRecord | null> {
    return this.all().find((group) => group.inviteCode === code) ?? null;
  }

  async save(group: SandboxGroupRecord): Promise<void> {
    this.groups.set(group.id, JSON.stringify(group));
  }

  private all(): SandboxGroupRecord[] {
    return [...this.groups.values()].map((json) => JSON.parse(json) as SandboxGroupRecord);
  }
}
