import { randomBytes, randomInt } from 'node:crypto';
import { GroupActionError } from '../group-action-error';
import type {
  GroupChanges,
  GroupEvent,
  GroupInfo,
  NetworkGroups,
  ParticipantAction,
  ParticipantResult,
} from '../network-groups';
import { participantResult } from '../participant-result';
import type { SandboxGroupBook, SandboxGroupRecord as SandboxGroup } from './sandbox-group-book';

/**
 * Sandbox contacts whose number ends in these digits behave as on WhatsApp: `…0000` is not on
 * WhatsApp (as `/contacts/check` says, 404), `…403` does not allow being added to groups (403).
 */
const NOT_ON_WHATSAPP = '0000';
const REFUSES_ADDS = '403';

export interface SandboxGroupsDeps {
  /** Where the simulated network keeps its groups (shared by every worker). */
  book: SandboxGroupBook;
  /** The session's own JID, once connected. Throws NetworkSendError when not connected. */
  ownJid: () => string;
  /** Reports a change, as WhatsApp notifies every member's devices (the actor's too). */
  emit: (event: GroupEvent) => void;
}

/** The number's groups on the simulated network: the same rules and answers as WhatsApp's. */
export class SandboxGroups implements NetworkGroups {
  constructor(private readonly deps: SandboxGroupsDeps) {}

  async list(): Promise<GroupInfo[]> {
    return (await this.deps.book.withMember(this.deps.ownJid())).map(infoOf);
  }

  async create(subject: string, participants: string[]): Promise<GroupInfo> {
    const me = this.deps.ownJid();
    const members: SandboxGroup['members'] = { [me]: 'superadmin' };
    // As on WhatsApp, those who refuse adds (or are not on it) are left out of a new group.
    for (const participant of participants) {
      if (addRefusal(participant) === null && participant !== me) members[participant] = 'member';
    }
    const group: SandboxGroup = {
      id: `1203630${String(randomInt(1e11)).padStart(11, '0')}@g.us`,
      subject,
      description: null,
      owner: me,
      createdAt: new Date().toISOString(),
      members,
      announcementOnly: false,
      locked: false,
      inviteCode: newInviteCode(),
    };
    await this.deps.book.save(group);
    return infoOf(group);
  }

  async info(groupId: string): Promise<GroupInfo> {
    return infoOf(await this.memberOf(groupId));
  }

  async update(groupId: string, changes: GroupChanges): Promise<GroupInfo> {
    const group = await this.memberOf(groupId);
    const me = this.deps.ownJid();
    if (group.locked && !isAdmin(group, me)) {
      throw new GroupActionError('forbidden', 'Only admins may edit this group (it is locked).');
    }
    const settingChange = changes.announcementOnly !== undefined || changes.locked !== undefined;
    if (settingChange && !isAdmin(group, me)) {
      throw new GroupActionError('forbidden', "Only admins may change the group's settings.");
    }
    const reported: Extract<GroupEvent, { kind: 'updated' }>['changes'] = {};
    if (changes.subject !== undefined) group.subject = reported.subject = changes.subject;
    if (changes.description !== undefined) {
      group.description = reported.description = changes.description === '' ? null : changes.description;
    }
    if (changes.announcementOnly !== undefined) {
      group.announcementOnly = reported.announcementOnly = changes.announcementOnly;
    }
    if (changes.locked !== undefined) group.locked = reported.locked = changes.locked;
    await this.deps.book.save(group);
    this.deps.emit({ kind: 'updated', groupId, changes: reported, author: me });
    return infoOf(group);
  }

  async changeParticipants(
    groupId: string,
    action: ParticipantAction,
    participants: string[],
  ): Promise<ParticipantResult[]> {
    const group = await this.adminOf(groupId);
    const results = participants.map((participant) =>
      participantResult(participant, apply(group, action, participant), action),
    );
    await this.deps.book.save(group);
    const changed = results.filter((result) => result.ok).map((result) => result.participant);
    if (changed.length > 0) {
      this.deps.emit({
        kind: 'participants',
        groupId,
        action,
        participants: changed,
        author: this.deps.ownJid(),
      });
    }
    return results;
  }

  async inviteCode(groupId: string): Promise<string> {
    return (await this.adminOf(groupId)).inviteCode;
  }

  async revokeInvite(groupId: string): Promise<string> {
    const group = await this.adminOf(groupId);
    group.inviteCode = newInviteCode();
    await this.deps.book.save(group);
    this.deps.emit({
      kind: 'updated',
      groupId,
      changes: { inviteRevoked: true },
      author: this.deps.ownJid(),
    });
    return group.inviteCode;
  }

  async join(code: string): Promise<string> {
    const me = this.deps.ownJid();
    const group = await this.deps.book.byInviteCode(code);
    if (!group)
      throw new GroupActionError('not_found', 'No group has this invite code (it may have been revoked).');
    if (group.members[me] !== undefined)
      throw new GroupActionError('conflict', 'The number is already in this group.');
    group.members[me] = 'member';
    await this.deps.book.save(group);
    this.deps.emit({
      kind: 'participants',
      groupId: group.id,
      action: 'add',
      participants: [me],
      author: me,
    });
    return group.id;
  }

  async leave(groupId: string): Promise<void> {
    const group = await this.memberOf(groupId);
    const me = this.deps.ownJid();
    delete group.members[me];
    await this.deps.book.save(group);
    this.deps.emit({ kind: 'participants', groupId, action: 'remove', participants: [me], author: me });
  }

  private async memberOf(groupId: string): Promise<SandboxGroup> {
    const group = await this.deps.book.get(groupId);
    if (!group) throw new GroupActionError('not_found', `No group "${groupId}" on the network.`);
    // As WhatsApp: a group the number is not (or no longer) in is forbidden to it.
    if (group.members[this.deps.ownJid()] === undefined) {
      throw new GroupActionError('forbidden', `The number is not in the group "${groupId}".`);
    }
    return group;
  }

  private async adminOf(groupId: string): Promise<SandboxGroup> {
    const group = await this.memberOf(groupId);
    if (!isAdmin(group, this.deps.ownJid())) {
      throw new GroupActionError(
        'forbidden',
        'Only admins may do this; the number is not an admin of this group.',
      );
    }
    return group;
  }
}

/** WhatsApp's status for one participant of an action, after applying it when allowed. */
function apply(group: SandboxGroup, action: ParticipantAction, participant: string): number {
  const rank = group.members[participant];
  switch (action) {
    case 'add': {
      if (rank !== undefined) return 409;
      const refusal = addRefusal(participant);
      if (refusal !== null) return refusal;
      group.members[participant] = 'member';
      return 200;
    }
    case 'remove':
      if (rank === undefined) return 404;
      if (rank === 'superadmin') return 406;
      delete group.members[participant];
      return 200;
    case 'promote':
      if (rank === undefined) return 404;
      if (rank === 'member') group.members[participant] = 'admin';
      return 200;
    case 'demote':
      if (rank === undefined) return 404;
      if (rank === 'superadmin') return 406;
      group.members[participant] = 'member';
      return 200;
  }
}

function addRefusal(participant: string): number | null {
  const digits = participant.split('@')[0] ?? '';
  if (digits.endsWith(NOT_ON_WHATSAPP)) return 404;
  if (digits.endsWith(REFUSES_ADDS)) return 403;
  return null;
}

function isAdmin(group: SandboxGroup, jid: string): boolean {
  const rank = group.members[jid];
  return rank === 'admin' || rank === 'superadmin';
}

function infoOf(group: SandboxGroup): GroupInfo {
  return {
    id: group.id,
    subject: group.subject,
    description: group.description,
    owner: group.owner,
    createdAt: group.createdAt,
    participants: Object.entries(group.members).map(([id, rank]) => ({
      id,
      phoneNumber: id.endsWith('@s.whatsapp.net') ? (id.split('@')[0] ?? null) : null,
      isAdmin: rank !== 'member',
      isSuperAdmin: rank === 'superadmin',
    })),
    settings: { announcementOnly: group.announcementOnly, locked: group.locked },
  };
}

function newInviteCode(): string {
  return randomBytes(16)
    .toString('base64url')
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, 22)
    .padEnd(22, 'A');
}
