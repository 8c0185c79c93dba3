import type { BinaryNode } from '@whiskeysockets/baileys';
import type { EmulatedUser } from './emulated-user';

/** A group the emulated network knows: its members decrypt what a linked device sends to it. */
export interface EmulatedGroup {
  /** `120363…@g.us`. */
  readonly jid: string;
  readonly subject: string;
  readonly creator: EmulatedUser;
  /** Every member, the creator included (admins and settings: GroupAdmin). */
  readonly members: EmulatedUser[];
  /** Unix seconds. */
  readonly creation: number;
  /** How the group names its members: by phone number, or by LID (`addressing_mode="lid"`). */
  readonly addressing: 'pn' | 'lid';
}

/**
 * The `<group>` node Baileys' extractGroupMetadata reads: members by phone number (with `lid`), or
 * in a LID-addressed group by LID (with `phone_number`; the creator with `creator_pn`, `s_o_pn`).
 */
export function groupNode(group: EmulatedGroup): BinaryNode {
  const id = group.jid.split('@')[0] ?? group.jid;
  const lid = group.addressing === 'lid';
  const creator: Record<string, string> = lid
    ? {
        s_o: group.creator.lid,
        s_o_pn: group.creator.jid,
        creator: group.creator.lid,
        creator_pn: group.creator.jid,
      }
    : { s_o: group.creator.jid, creator: group.creator.jid };
  return {
    tag: 'group',
    attrs: {
      id,
      subject: group.subject,
      s_t: String(group.creation),
      creation: String(group.creation),
      ...creator,
      size: String(group.members.length),
      addressing_mode: group.addressing,
    },
    content: group.members.map((member) => ({
      tag: 'participant',
      attrs: {
        ...(lid ? { jid: member.lid, phone_number: member.jid } : { jid: member.jid, lid: member.lid }),
        ...(member === group.creator ? { type: 'superadmin' } : {}),
      },
    })),
  };
}
