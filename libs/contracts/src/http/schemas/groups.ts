import { isValidPhoneNumber } from '@jumbe/domain';
import { z } from 'zod';
import type { IssueParams } from '../validation';
import { nonEmptyText, sessionIdField } from './common';

/**
 * Groups (extension, CONTRACT §11): routes under `/groups` act on the groups of the session's own
 * number. Nothing here changes what the interface spec defines.
 */

const params = (code: IssueParams['code']): { params: IssueParams } => ({ params: { code } });

const GROUP_ID = /^\d{5,40}(-\d{5,20})?(@g\.us)?$/;
const USER_JID = /^\d{5,20}(:\d+)?@(s\.whatsapp\.net|lid)$/;

/** A group's id: `120363…@g.us`, or its digits alone; always read as the JID. */
export const groupIdField = z
  .string()
  .regex(GROUP_ID, 'groupId must be a group id such as 120363012345678901@g.us')
  .transform((id) => (id.endsWith('@g.us') ? id : `${id}@g.us`))
  .describe('The group: `120363…@g.us` (as `GET /groups` lists it), or its digits alone.');

/** A member to add, remove, promote or demote: digits (read as a phone number) or a user JID. */
export const participantField = z
  .string()
  .refine((value) => isValidPhoneNumber(value) || USER_JID.test(value), {
    message:
      'each participant must be an international number of 7 to 15 digits (e.g. 254712345678) or a user id such as 254712345678@s.whatsapp.net',
    ...params('invalid_phone'),
  })
  .transform((value) => (value.includes('@') ? value : `${value}@s.whatsapp.net`))
  .describe('International number, digits only, or a participant `id` as group info lists it.');

const participantsField = z
  .array(participantField)
  .min(1, 'participants needs 1 to 256 numbers')
  .max(256, 'participants needs 1 to 256 numbers');

/** WhatsApp's limit on a group subject. */
export const GROUP_SUBJECT_MAX = 100;
/** WhatsApp's limit on a group description. */
export const GROUP_DESCRIPTION_MAX = 2048;

const subjectField = nonEmptyText('subject', GROUP_SUBJECT_MAX);

/** `POST /groups`: a new group with this subject and these first members. */
export const groupCreateSchema = z.strictObject({
  sessionId: sessionIdField,
  subject: subjectField,
  participants: participantsField,
});

/**
 * `PATCH /groups/{groupId}`: what to change; each field given is one change (WhatsApp has no
 * atomic multi-field edit). `description: ""` removes the description.
 */
export const groupUpdateSchema = z
  .strictObject({
    sessionId: sessionIdField,
    subject: subjectField.optional(),
    description: z
      .string()
      .max(GROUP_DESCRIPTION_MAX, `description must be at most ${GROUP_DESCRIPTION_MAX} characters`)
      .optional(),
    /** Only admins send messages. */
    announcementOnly: z.boolean().optional(),
    /** Only admins edit the group's subject, description and picture. */
    locked: z.boolean().optional(),
  })
  .refine(
    (body) =>
      body.subject !== undefined ||
      body.description !== undefined ||
      body.announcementOnly !== undefined ||
      body.locked !== undefined,
    { message: 'Give at least one of subject, description, announcementOnly, locked' },
  );

export const PARTICIPANT_ACTIONS = ['add', 'remove', 'promote', 'demote'] as const;
export type ParticipantAction = (typeof PARTICIPANT_ACTIONS)[number];

/** `POST /groups/{groupId}/participants`: one action for several members. */
export const groupParticipantsSchema = z.strictObject({
  sessionId: sessionIdField,
  action: z.enum(PARTICIPANT_ACTIONS),
  participants: participantsField,
});

const INVITE_LINK = /^https:\/\/chat\.whatsapp\.com\/(?:invite\/)?([A-Za-z0-9]{10,40})$/;

/** `POST /groups/join`: an invite code, or the whole `https://chat.whatsapp.com/…` link. */
export const groupJoinSchema = z.strictObject({
  sessionId: sessionIdField,
  code: z
    .string()
    .transform((value) => INVITE_LINK.exec(value.trim())?.[1] ?? value.trim())
    .pipe(
      z
        .string()
        .regex(/^[A-Za-z0-9]{10,40}$/, 'code must be an invite code or a https://chat.whatsapp.com/… link'),
    ),
});

/** The body of group actions that need nothing but the session (`leave`, `invite/revoke`). */
export const groupSessionBodySchema = z.strictObject({ sessionId: sessionIdField });

/** One member as group info lists them. */
export const groupParticipantSchema = z.object({
  /** Their id in this group: `…@s.whatsapp.net`, or `…@lid` in a group that hides numbers. */
  id: z.string(),
  /** Digits, when WhatsApp tells them; null in a group that hides numbers and did not. */
  phoneNumber: z.string().nullable(),
  isAdmin: z.boolean(),
  /** The group's creator (WhatsApp's `superadmin`), an admin too. */
  isSuperAdmin: z.boolean(),
});

export const groupInfoSchema = z.object({
  id: z.string(),
  subject: z.string(),
  description: z.string().nullable(),
  /** The creator's id, when WhatsApp tells it. */
  owner: z.string().nullable(),
  /** When the group was created (ISO 8601), when known. */
  createdAt: z.string().nullable(),
  participants: z.array(groupParticipantSchema),
  settings: z.object({ announcementOnly: z.boolean(), locked: z.boolean() }),
});
export type GroupInfo = z.output<typeof groupInfoSchema>;

/** Why WhatsApp refused one participant of an action (its per-participant status code). */
export const PARTICIPANT_REFUSALS = [
  'not_allowed',
  'not_found',
  'already_member',
  'recently_left',
  'not_authorized',
  'refused',
] as const;

export const participantResultSchema = z.object({
  participant: z.string(),
  ok: z.boolean(),
  /** WhatsApp's status for this participant: 200 done, 403 their privacy refuses adds, 409 … */
  status: z.number().int(),
  /** Null when done; otherwise one of PARTICIPANT_REFUSALS. */
  reason: z.enum(PARTICIPANT_REFUSALS).nullable(),
});
export type ParticipantResult = z.output<typeof participantResultSchema>;

export const participantResultsSchema = z.object({
  groupId: z.string(),
  action: z.enum(PARTICIPANT_ACTIONS),
  results: z.array(participantResultSchema),
});

export const groupInviteSchema = z.object({
  groupId: z.string(),
  code: z.string(),
  link: z.string(),
});

export const groupJoinResultSchema = z.object({ groupId: z.string() });
export const groupLeaveResultSchema = z.object({ groupId: z.string(), left: z.literal(true) });

/** A group change as the bus carries it to the session's worker (`type: "group"`). */
export const groupOperationSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('list') }),
  z.object({ op: z.literal('create'), subject: z.string(), participants: z.array(z.string()) }),
  z.object({ op: z.literal('info'), groupId: z.string() }),
  z.object({
    op: z.literal('update'),
    groupId: z.string(),
    subject: z.string().optional(),
    description: z.string().optional(),
    announcementOnly: z.boolean().optional(),
    locked: z.boolean().optional(),
  }),
  z.object({
    op: z.literal('participants'),
    groupId: z.string(),
    action: z.enum(PARTICIPANT_ACTIONS),
    participants: z.array(z.string()),
  }),
  z.object({ op: z.literal('invite'), groupId: z.string() }),
  z.object({ op: z.literal('revoke_invite'), groupId: z.string() }),
  z.object({ op: z.literal('join'), code: z.string() }),
  z.object({ op: z.literal('leave'), groupId: z.string() }),
]);
export type GroupOperation = z.output<typeof groupOperationSchema>;

/** What a `group` command answers, whichever operation it carried. */
export const groupCommandResultSchema = z.union([
  z.array(groupInfoSchema),
  groupInfoSchema,
  participantResultsSchema,
  groupInviteSchema,
  groupLeaveResultSchema,
  groupJoinResultSchema,
]);

/** The link WhatsApp shows for an invite code. */
export function inviteLink(code: string): string {
  return `https://chat.whatsapp.com/${code}`;
}
