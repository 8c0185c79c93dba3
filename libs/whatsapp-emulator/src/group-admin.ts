import type { BinaryNode } from '@whiskeysockets/baileys';
import { randomBytes } from 'node:crypto';
import type { EmulatedUser } from './emulated-user';
import { type EmulatedGroup, groupNode } from './groups';
import { bytesOf, child, children, iqError, iqResult } from './iq-nodes';

/** What GroupAdmin needs of the emulated network. */
export interface GroupAdminDeps {
  /** The network's groups by JID; a change replaces the group's entry. */
  readonly groups: Map<string, EmulatedGroup>;
  findUser(jid: string): EmulatedUser | undefined;
  newGroupJid(): string;
  /** Hands a stanza to every linked device of `user` (now, or at its next login). */
  notifyDevices(user: EmulatedUser, stanza: BinaryNode): void;
}

/** What a group has beyond its members: admins, description, settings, invite code. */
interface GroupState {
  admins: Set<EmulatedUser>;
  description: { id: string; body: string } | null;
  announce: boolean;
  locked: boolean;
  inviteCode: string;
}

type MemberAction = 'add' | 'remove' | 'promote' | 'demote';
const MEMBER_ACTIONS: readonly string[] = ['add', 'remove', 'promote', 'demote'];
const SETTINGS: readonly string[] = ['announcement', 'not_announcement', 'locked', 'unlocked'];

/**
 * WhatsApp's group administration as a linked device meets it (`xmlns="w:g2"` IQs, Baileys'
 * `lib/Socket/groups.js`): list, create, metadata, participants (with per-participant refusals:
 * 403 for a user who does not allow being added, 409 already a member, 404 unknown), subject,
 * description, settings, invite codes (get, revoke, accept) and leave. Every change is announced
 * to every member's devices as WhatsApp does, with a `<notification type="w:gp2">`.
 */
export class GroupAdmin {
  private readonly states = new Map<string, GroupState>();
  /** Users whose privacy settings refuse being added to groups (WhatsApp answers 403). */
  private readonly refusingAdds = new Set<EmulatedUser>();
  private nextNotification = 1;

  constructor(private readonly deps: GroupAdminDeps) {}

  /** From now on `user` cannot be added to a group by others (403 `not_allowed`). */
  refuseAdds(user: EmulatedUser): void {
    this.refusingAdds.add(user);
  }

  /** The admins of a group (its creator, and whoever was promoted). */
  adminsOf(groupJid: string): EmulatedUser[] {
    const group = this.deps.groups.get(groupJid);
    return group ? [...this.stateOf(group).admins] : [];
  }

  /** The group's current invite code. */
  inviteCodeOf(groupJid: string): string | undefined {
    const group = this.deps.groups.get(groupJid);
    return group ? this.stateOf(group).inviteCode : undefined;
  }

  /** The answer to one `w:g2` IQ from a device of `asker`. */
  answer(iq: BinaryNode, asker: EmulatedUser): BinaryNode {
    const [request] = children(iq);
    if (!request) return iqError(iq, 400, 'bad-request');
    if (iq.attrs.to === '@g.us') return this.answerNetworkWide(iq, request, asker);
    const group = this.deps.groups.get(iq.attrs.to ?? '');
    if (!group) return iqError(iq, 404, 'item-not-found');
    if (!group.members.includes(asker)) return iqError(iq, 403, 'forbidden');
    if (iq.attrs.type === 'get') {
      if (request.tag === 'query') return iqResult(iq, [this.metadataNode(group)]);
      if (request.tag === 'invite') return this.inviteAnswer(iq, group, asker, false);
      return iqError(iq, 501, 'feature-not-implemented');
    }
    if (MEMBER_ACTIONS.includes(request.tag)) {
      return this.changeMembers(iq, group, asker, request.tag as MemberAction, request);
    }
    if (request.tag === 'subject') return this.changeSubject(iq, group, asker, request);
    if (request.tag === 'description') return this.changeDescription(iq, group, asker, request);
    if (SETTINGS.includes(request.tag)) return this.changeSetting(iq, group, asker, request.tag);
    if (request.tag === 'invite') return this.inviteAnswer(iq, group, asker, true);
    return iqError(iq, 501, 'feature-not-implemented');
  }

  /** IQs to `@g.us`: the groups one is in, create, join by invite code, leave. */
  private answerNetworkWide(iq: BinaryNode, request: BinaryNode, asker: EmulatedUser): BinaryNode {
    if (iq.attrs.type === 'get' && request.tag === 'participating') {
      const mine = [...this.deps.groups.values()].filter((group) => group.members.includes(asker));
      return iqResult(iq, [
        { tag: 'groups', attrs: {}, content: mine.map((group) => this.metadataNode(group)) },
      ]);
    }
    if (iq.attrs.type !== 'set') return iqError(iq, 501, 'feature-not-implemented');
    if (request.tag === 'create') return this.create(iq, request, asker);
    if (request.tag === 'invite' && request.attrs.code) return this.join(iq, request.attrs.code, asker);
    if (request.tag === 'leave') {
      const groupJid = child(request, 'group')?.attrs.id ?? '';
      const group = this.deps.groups.get(groupJid.includes('@') ? groupJid : `${groupJid}@g.us`);
      if (!group || !group.members.includes(asker)) return iqError(iq, 404, 'item-not-found');
      this.announce(group, asker, {
        tag: 'remove',
        attrs: {},
        content: [this.participantNode(group, asker)],
      });
      this.replace(group, { members: group.members.filter((member) => member !== asker) });
      this.stateOf(group).admins.delete(asker);
      return iqResult(iq, [
        { tag: 'leave', attrs: {}, content: [{ tag: 'group', attrs: { id: group.jid } }] },
      ]);
    }
    return iqError(iq, 501, 'feature-not-implemented');
  }

  private create(iq: BinaryNode, request: BinaryNode, creator: EmulatedUser): BinaryNode {
    const invited = children(request)
      .filter((node) => node.tag === 'participant')
      .map((node) => this.deps.findUser(node.attrs.jid ?? ''))
      .filter((user): user is EmulatedUser => user !== undefined && user !== creator);
    // Those who refuse being added are left out, as WhatsApp does (they get an invite instead).
    const members = [creator, ...invited.filter((user) => !this.refusingAdds.has(user))];
    const group: EmulatedGroup = {
      jid: this.deps.newGroupJid(),
      subject: request.attrs.subject ?? '',
      creator,
      members,
      creation: Math.floor(Date.now() / 1000),
      addressing: 'pn',
    };
    this.deps.groups.set(group.jid, group);
    const metadata = this.metadataNode(group);
    this.announce(group, creator, { tag: 'create', attrs: {}, content: [metadata] });
    return iqResult(iq, [metadata]);
  }

  private changeMembers(
    iq: BinaryNode,
    group: EmulatedGroup,
    asker: EmulatedUser,
    action: MemberAction,
    request: BinaryNode,
  ): BinaryNode {
    const state = this.stateOf(group);
    if (!state.admins.has(asker)) return iqError(iq, 403, 'forbidden');
    const answered: BinaryNode[] = [];
    const changed: EmulatedUser[] = [];
    let members = [...group.members];
    for (const node of children(request).filter((item) => item.tag === 'participant')) {
      const jid = node.attrs.jid ?? '';
      const user = this.deps.findUser(jid);
      const status = user ? memberStatus(action, user, group.creator, members, this.refusingAdds) : 404;
      answered.push({
        tag: 'participant',
        attrs: { jid, ...(status === 200 ? {} : { error: String(status) }) },
      });
      if (status !== 200 || !user) continue;
      changed.push(user);
      if (action === 'add') members.push(user);
      if (action === 'remove') members = members.filter((member) => member !== user);
      if (action === 'promote') state.admins.add(user);
      if (action === 'demote' || action === 'remove') state.admins.delete(user);
    }
    const before = group;
    const after = this.replace(group, { members });
    if (changed.length > 0) {
      // The removed hear of it too (from the group as it was).
      this.announce(action === 'remove' ? before : after, asker, {
        tag: action,
        attrs: {},
        content: changed.map((user) => this.participantNode(after, user)),
      });
    }
    return iqResult(iq, [{ tag: action, attrs: {}, content: answered }]);
  }

  private changeSubject(
    iq: BinaryNode,
    group: EmulatedGroup,
    asker: EmulatedUser,
    request: BinaryNode,
  ): BinaryNode {
    if (!this.mayEdit(group, asker)) return iqError(iq, 403, 'forbidden');
    const subject = bytesOf(request)?.toString('utf-8') ?? '';
    if (subject === '') return iqError(iq, 400, 'bad-request');
    const after = this.replace(group, { subject });
    this.announce(after, asker, {
      tag: 'subject',
      attrs: { subject, s_t: String(Math.floor(Date.now() / 1000)) },
    });
    return iqResult(iq);
  }

  private changeDescription(
    iq: BinaryNode,
    group: EmulatedGroup,
    asker: EmulatedUser,
    request: BinaryNode,
  ): BinaryNode {
    if (!this.mayEdit(group, asker)) return iqError(iq, 403, 'forbidden');
    const state = this.stateOf(group);
    if (request.attrs.delete === 'true') {
      state.description = null;
      this.announce(group, asker, { tag: 'description', attrs: { delete: 'true' } });
      return iqResult(iq);
    }
    const body = bytesOf(child(request, 'body'))?.toString('utf-8') ?? '';
    state.description = { id: request.attrs.id ?? newId(), body };
    this.announce(group, asker, {
      tag: 'description',
      attrs: { id: state.description.id },
      content: [{ tag: 'body', attrs: {}, content: Buffer.from(body, 'utf-8') }],
    });
    return iqResult(iq);
  }

  private changeSetting(
    iq: BinaryNode,
    group: EmulatedGroup,
    asker: EmulatedUser,
    setting: string,
  ): BinaryNode {
    const state = this.stateOf(group);
    if (!state.admins.has(asker)) return iqError(iq, 403, 'forbidden');
    if (setting === 'announcement' || setting === 'not_announcement')
      state.announce = setting === 'announcement';
    else state.locked = setting === 'locked';
    this.announce(group, asker, { tag: setting, attrs: {} });
    return iqResult(iq);
  }

  /** `get`: the current code (admins only); `set`: a new one, the old one no longer joins. */
  private inviteAnswer(
    iq: BinaryNode,
    group: EmulatedGroup,
    asker: EmulatedUser,
    revoke: boolean,
  ): BinaryNode {
    const state = this.stateOf(group);
    if (!state.admins.has(asker)) return iqError(iq, 401, 'not-authorized');
    if (revoke) {
      state.inviteCode = newInviteCode();
      this.announce(group, asker, { tag: 'invite', attrs: { code: state.inviteCode } });
    }
    return iqResult(iq, [{ tag: 'invite', attrs: { code: state.inviteCode } }]);
  }

  private join(iq: BinaryNode, code: string, joiner: EmulatedUser): BinaryNode {
    const group = [...this.deps.groups.values()].find(
      (candidate) => this.stateOf(candidate).inviteCode === code,
    );
    if (!group) return iqError(iq, 406, 'not-acceptable');
    if (group.members.includes(joiner)) return iqError(iq, 409, 'conflict');
    const after = this.replace(group, { members: [...group.members, joiner] });
    this.announce(after, joiner, {
      tag: 'add',
      attrs: { reason: 'invite' },
      content: [this.participantNode(after, joiner)],
    });
    return iqResult(iq, [{ tag: 'group', attrs: { jid: group.jid } }]);
  }

  /** Whether `user` may change the subject or description: anyone, unless the group is locked. */
  private mayEdit(group: EmulatedGroup, user: EmulatedUser): boolean {
    const state = this.stateOf(group);
    return !state.locked || state.admins.has(user);
  }

  /** Every member's devices get the change, the actor's own devices included. */
  private announce(group: EmulatedGroup, actor: EmulatedUser, change: BinaryNode): void {
    const lid = group.addressing === 'lid';
    const stanza: BinaryNode = {
      tag: 'notification',
      attrs: {
        from: group.jid,
        type: 'w:gp2',
        id: `gp2-${this.nextNotification++}`,
        t: String(Math.floor(Date.now() / 1000)),
        participant: lid ? actor.lid : actor.jid,
        ...(lid ? { participant_pn: actor.jid } : {}),
        addressing_mode: group.addressing,
      },
      content: [change],
    };
    for (const member of group.members) this.deps.notifyDevices(member, stanza);
  }

  private participantNode(group: EmulatedGroup, user: EmulatedUser): BinaryNode {
    const attrs: Record<string, string> =
      group.addressing === 'lid'
        ? { jid: user.lid, phone_number: user.jid }
        : { jid: user.jid, lid: user.lid };
    return { tag: 'participant', attrs };
  }

  /** `groupNode` with what this module keeps: admins, description, settings. */
  private metadataNode(group: EmulatedGroup): BinaryNode {
    const state = this.stateOf(group);
    const node = groupNode(group);
    const participants = children(node).map((participant, index) => {
      const member = group.members[index];
      const admin = member && member !== group.creator && state.admins.has(member);
      return admin ? { ...participant, attrs: { ...participant.attrs, type: 'admin' } } : participant;
    });
    const extras: BinaryNode[] = [];
    if (state.description) {
      extras.push({
        tag: 'description',
        attrs: { id: state.description.id },
        content: [{ tag: 'body', attrs: {}, content: Buffer.from(state.description.body, 'utf-8') }],
      });
    }
    if (state.announce) extras.push({ tag: 'announcement', attrs: {} });
    if (state.locked) extras.push({ tag: 'locked', attrs: {} });
    return { ...node, content: [...participants, ...extras] };
  }

  private stateOf(group: EmulatedGroup): GroupState {
    let state = this.states.get(group.jid);
    if (!state) {
      state = {
        admins: new Set([group.creator]),
        description: null,
        announce: false,
        locked: false,
        inviteCode: newInviteCode(),
      };
      this.states.set(group.jid, state);
    }
    return state;
  }

  private replace(
    group: EmulatedGroup,
    change: Partial<Pick<EmulatedGroup, 'members' | 'subject'>>,
  ): EmulatedGroup {
    const next = { ...group, ...change };
    this.deps.groups.set(group.jid, next);
    return next;
  }
}

/** WhatsApp's per-participant status for one member of an action. */
function memberStatus(
  action: MemberAction,
  user: EmulatedUser,
  creator: EmulatedUser,
  members: EmulatedUser[],
  refusingAdds: ReadonlySet<EmulatedUser>,
): number {
  const member = members.includes(user);
  if (action === 'add') {
    if (member) return 409;
    return refusingAdds.has(user) ? 403 : 200;
  }
  if (!member) return 404;
  // Nobody demotes or removes the group's creator.
  if (action !== 'promote' && user === creator) return 406;
  return 200;
}

function newInviteCode(): string {
  return randomBytes(16)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, 22);
}

function newId(): string {
  return randomBytes(8).toString('hex').toUpperCase();
}
