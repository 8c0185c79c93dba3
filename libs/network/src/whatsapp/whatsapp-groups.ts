import type { GroupMetadata, ParticipantAction as BaileysParticipantAction } from '@whiskeysockets/baileys';
import { GroupActionError } from '../group-action-error';
import type {
  GroupChanges,
  GroupInfo,
  NetworkGroups,
  ParticipantAction,
  ParticipantResult,
} from '../network-groups';
import { participantResult } from '../participant-result';
import type { BoundedCache } from './bounded-cache';
import type { WhatsAppSocket } from './whatsapp-socket';

/** The group calls of a Baileys socket (`lib/Socket/groups.js`) this module makes. */
export interface GroupSocket {
  groupMetadata(jid: string): Promise<GroupMetadata>;
  groupFetchAllParticipating(): Promise<Record<string, GroupMetadata>>;
  groupCreate(subject: string, participants: string[]): Promise<GroupMetadata>;
  groupUpdateSubject(jid: string, subject: string): Promise<void>;
  groupUpdateDescription(jid: string, description?: string): Promise<void>;
  groupSettingUpdate(
    jid: string,
    setting: 'announcement' | 'not_announcement' | 'locked' | 'unlocked',
  ): Promise<void>;
  groupParticipantsUpdate(
    jid: string,
    participants: string[],
    action: BaileysParticipantAction,
  ): Promise<{ status: string; jid: string | undefined }[]>;
  groupInviteCode(jid: string): Promise<string | undefined>;
  groupRevokeInvite(jid: string): Promise<string | undefined>;
  groupAcceptInvite(code: string): Promise<string | undefined>;
  groupLeave(jid: string): Promise<void>;
}

export interface WhatsAppGroupsDeps {
  /** The connected socket (throws NotReadyError when there is none). */
  socket: () => WhatsAppSocket;
  /** The session's group-metadata cache, which group sends read too: every change drops its entry. */
  cache: BoundedCache;
  /** Bounds a network call like a send; failures become NetworkSendError. */
  bounded: <T>(action: () => Promise<T>) => Promise<T>;
}

/** The number's groups through Baileys' group IQs (`xmlns="w:g2"`). */
export class WhatsAppGroups implements NetworkGroups {
  constructor(private readonly deps: WhatsAppGroupsDeps) {}

  async list(): Promise<GroupInfo[]> {
    const all = await this.call((socket) => socket.groupFetchAllParticipating());
    const groups = Object.values(all);
    for (const group of groups) this.deps.cache.set(group.id, group);
    return groups.map(groupInfoOf);
  }

  async create(subject: string, participants: string[]): Promise<GroupInfo> {
    const created = await this.call((socket) => socket.groupCreate(subject, participants));
    this.deps.cache.set(created.id, created);
    return groupInfoOf(created);
  }

  async info(groupId: string): Promise<GroupInfo> {
    return groupInfoOf(await this.metadata(groupId));
  }

  async update(groupId: string, changes: GroupChanges): Promise<GroupInfo> {
    try {
      if (changes.subject !== undefined) {
        const subject = changes.subject;
        await this.call((socket) => socket.groupUpdateSubject(groupId, subject));
      }
      if (changes.description !== undefined) {
        // Baileys deletes the description when given none.
        const description = changes.description === '' ? undefined : changes.description;
        await this.call((socket) => socket.groupUpdateDescription(groupId, description));
      }
      if (changes.announcementOnly !== undefined) {
        const setting = changes.announcementOnly ? 'announcement' : 'not_announcement';
        await this.call((socket) => socket.groupSettingUpdate(groupId, setting));
      }
      if (changes.locked !== undefined) {
        const setting = changes.locked ? 'locked' : 'unlocked';
        await this.call((socket) => socket.groupSettingUpdate(groupId, setting));
      }
    } finally {
      this.deps.cache.del(groupId);
    }
    return this.info(groupId);
  }

  async changeParticipants(
    groupId: string,
    action: ParticipantAction,
    participants: string[],
  ): Promise<ParticipantResult[]> {
    try {
      const answered = await this.call((socket) =>
        socket.groupParticipantsUpdate(groupId, participants, action),
      );
      return participantResults(participants, answered, action);
    } finally {
      this.deps.cache.del(groupId);
    }
  }

  async inviteCode(groupId: string): Promise<string> {
    return this.code(await this.call((socket) => socket.groupInviteCode(groupId)));
  }

  async revokeInvite(groupId: string): Promise<string> {
    return this.code(await this.call((socket) => socket.groupRevokeInvite(groupId)));
  }

  async join(code: string): Promise<string> {
    const groupId = await this.call((socket) => socket.groupAcceptInvite(code));
    if (!groupId) throw new GroupActionError('not_found', 'WhatsApp did not name the group joined.');
    this.deps.cache.del(groupId);
    return groupId;
  }

  async leave(groupId: string): Promise<void> {
    try {
      await this.call((socket) => socket.groupLeave(groupId));
    } finally {
      this.deps.cache.del(groupId);
    }
  }

  /** The cached metadata (the same entry group sends read), or the server's, then cached. */
  private async metadata(groupId: string): Promise<GroupMetadata> {
    const cached = this.deps.cache.get<GroupMetadata>(groupId);
    if (cached) return cached;
    const fetched = await this.call((socket) => socket.groupMetadata(groupId));
    this.deps.cache.set(groupId, fetched);
    return fetched;
  }

  private code(code: string | undefined): string {
    if (!code) throw new GroupActionError('not_found', 'WhatsApp gave no invite code for this group.');
    return code;
  }

  /**
   * One group IQ: WhatsApp's refusals (404, 403, 409, …) become GroupActionError, carried out of
   * `bounded` as a value (it turns any error into a network error).
   */
  private async call<T>(action: (socket: GroupSocket) => Promise<T>): Promise<T> {
    const outcome = await this.deps.bounded(
      async (): Promise<{ value: T } | { refusal: GroupActionError }> => {
        const socket = this.deps.socket() as Partial<GroupSocket> & WhatsAppSocket;
        if (typeof socket.groupCreate !== 'function') {
          return { refusal: new GroupActionError('forbidden', 'This connection cannot manage groups.') };
        }
        try {
          return { value: await action(socket as GroupSocket) };
        } catch (error) {
          const refusal = groupRefusal(error);
          if (refusal) return { refusal };
          throw error;
        }
      },
    );
    if ('refusal' in outcome) throw outcome.refusal;
    return outcome.value;
  }
}

/**
 * An IQ error answer, as the caller's error; null for anything else (a timeout, a closed
 * connection: network errors). Baileys throws the answer as a Boom whose `data` is its code.
 */
export function groupRefusal(error: unknown): GroupActionError | null {
  const data = (error as { data?: unknown } | null)?.data;
  const status = typeof data === 'number' ? data : undefined;
  const text = (error as Error | null)?.message ?? 'refused';
  switch (status) {
    case 404:
    case 406:
    case 410:
      return new GroupActionError(
        'not_found',
        `WhatsApp knows no such group, invite code or membership (${status} ${text}).`,
      );
    case 401:
    case 403:
      return new GroupActionError(
        'forbidden',
        `WhatsApp refused: the number is not in the group, or not an admin of it (${status} ${text}).`,
      );
    case 409:
      return new GroupActionError('conflict', `WhatsApp refused: already done (${status} ${text}).`);
    case 400:
      return new GroupActionError('validation_error', `WhatsApp refused the request (${status} ${text}).`);
    default:
      return null;
  }
}

/**
 * One result per participant asked for, in the order asked: WhatsApp answers each by its JID
 * (possibly as a LID, or not at all); an unanswered one counts as refused.
 */
export function participantResults(
  asked: string[],
  answered: { status: string; jid: string | undefined }[],
  action: ParticipantAction,
): ParticipantResult[] {
  const byJid = new Map(answered.map((entry) => [entry.jid ?? '', Number(entry.status)]));
  return asked.map((participant, index) => {
    const status = byJid.get(participant) ?? Number(answered[index]?.status ?? 500);
    return participantResult(participant, Number.isFinite(status) ? status : 500, action);
  });
}

/** Baileys' metadata as the API shows a group. */
export function groupInfoOf(metadata: GroupMetadata): GroupInfo {
  return {
    id: metadata.id,
    subject: metadata.subject,
    description: metadata.desc ?? null,
    owner: metadata.ownerPn ?? metadata.owner ?? null,
    createdAt: metadata.creation ? new Date(metadata.creation * 1000).toISOString() : null,
    participants: metadata.participants.map((member) => ({
      id: member.id,
      phoneNumber: phoneDigits(member.phoneNumber) ?? phoneDigits(member.id),
      isAdmin: member.admin === 'admin' || member.admin === 'superadmin',
      isSuperAdmin: member.admin === 'superadmin',
    })),
    settings: { announcementOnly: metadata.announce === true, locked: metadata.restrict === true },
  };
}

function phoneDigits(jid: string | undefined): string | null {
  if (!jid?.endsWith('@s.whatsapp.net')) return null;
  return jid.split('@')[0]?.split(':')[0] ?? null;
}
