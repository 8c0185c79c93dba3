import type { GroupInfo, GroupOperation, ParticipantAction, ParticipantResult } from '@jumbe/contracts';

export type { GroupInfo, ParticipantAction, ParticipantResult };

/** The changes `PATCH /groups/{id}` asks for; each one present is one request to the network. */
export type GroupChanges = Omit<Extract<GroupOperation, { op: 'update' }>, 'op' | 'groupId'>;

/**
 * The groups of one session's number, on its network. Group ids are `…@g.us`, members
 * `…@s.whatsapp.net` (or `…@lid`). Failures are GroupActionError (the group's fault or ours) or
 * NetworkSendError (the network's).
 */
export interface NetworkGroups {
  /** Every group the number is a member of. */
  list(): Promise<GroupInfo[]>;
  create(subject: string, participants: string[]): Promise<GroupInfo>;
  info(groupId: string): Promise<GroupInfo>;
  update(groupId: string, changes: GroupChanges): Promise<GroupInfo>;
  /** One result per participant asked for: the network refuses some and carries out the rest. */
  changeParticipants(
    groupId: string,
    action: ParticipantAction,
    participants: string[],
  ): Promise<ParticipantResult[]>;
  /** The group's current invite code. */
  inviteCode(groupId: string): Promise<string>;
  /** Makes a new invite code; the old link stops working. */
  revokeInvite(groupId: string): Promise<string>;
  /** Joins by invite code; resolves with the group's id. */
  join(code: string): Promise<string>;
  leave(groupId: string): Promise<void>;
}

/** A change to a group the number is in, whoever made it (`group.participants`, `group.updated`). */
export type GroupEvent =
  | {
      kind: 'participants';
      groupId: string;
      action: ParticipantAction;
      participants: string[];
      author: string | null;
    }
  | {
      kind: 'updated';
      groupId: string;
      changes: {
        subject?: string;
        description?: string | null;
        announcementOnly?: boolean;
        locked?: boolean;
        inviteRevoked?: boolean;
      };
      author: string | null;
    };
