import {
  envelope,
  type ErrorCode,
  groupCreateSchema,
  groupIdField,
  groupInfoSchema,
  groupInviteSchema,
  groupJoinResultSchema,
  groupJoinSchema,
  groupLeaveResultSchema,
  groupParticipantsSchema,
  groupSessionBodySchema,
  groupUpdateSchema,
  participantResultsSchema,
  sessionQuerySchema,
} from '@jumbe/contracts';
import { z } from 'zod';
import { type RouteDescription, SESSION_ACTION_ERRORS } from '../http/route-description';

const ACTION_ERRORS = [...SESSION_ACTION_ERRORS];
/** Actions on one group: unknown to the number (404) or not allowed to it, e.g. not an admin (403). */
const GROUP_ERRORS: ErrorCode[] = [...ACTION_ERRORS, 'not_found', 'forbidden'];
const groupParams = z.object({ groupId: groupIdField });

/** Groups of the session's number (CONTRACT §11, README "Groups"). */
export const GROUP_ROUTES: RouteDescription[] = [
  {
    method: 'GET',
    path: '/api/v1/groups',
    tag: 'Groups',
    summary: 'The groups the number is in, each with its members and settings (extension)',
    auth: 'key',
    query: sessionQuerySchema,
    response: envelope(z.array(groupInfoSchema)),
    errors: ACTION_ERRORS,
  },
  {
    method: 'POST',
    path: '/api/v1/groups',
    tag: 'Groups',
    summary:
      'Create a group with a subject and first members; those whose privacy refuses adds are left out (add them later to see why, or send them the invite link) (extension)',
    auth: 'key',
    body: groupCreateSchema,
    response: envelope(groupInfoSchema),
    successStatus: 201,
    errors: [...ACTION_ERRORS, 'invalid_phone'],
  },
  {
    method: 'POST',
    path: '/api/v1/groups/join',
    tag: 'Groups',
    summary: 'Join a group by its invite code or `https://chat.whatsapp.com/…` link (extension)',
    auth: 'key',
    body: groupJoinSchema,
    response: envelope(groupJoinResultSchema),
    errors: [...ACTION_ERRORS, 'not_found', 'conflict'],
  },
  {
    method: 'GET',
    path: '/api/v1/groups/{groupId}',
    tag: 'Groups',
    summary: "A group's subject, description, members with their admin flags, and settings (extension)",
    auth: 'key',
    params: groupParams,
    query: sessionQuerySchema,
    response: envelope(groupInfoSchema),
    errors: GROUP_ERRORS,
  },
  {
    method: 'PATCH',
    path: '/api/v1/groups/{groupId}',
    tag: 'Groups',
    summary:
      'Change the subject, description (`""` removes it), announcement-only or locked; answers the group as it is after (extension)',
    auth: 'key',
    params: groupParams,
    body: groupUpdateSchema,
    response: envelope(groupInfoSchema),
    errors: GROUP_ERRORS,
  },
  {
    method: 'POST',
    path: '/api/v1/groups/{groupId}/participants',
    tag: 'Groups',
    summary:
      'Add, remove, promote or demote members: one result each, as WhatsApp refuses some (`not_allowed`: their privacy refuses adds; `already_member`, `not_found`, `recently_left`, …) (extension)',
    auth: 'key',
    params: groupParams,
    body: groupParticipantsSchema,
    response: envelope(participantResultsSchema),
    errors: [...GROUP_ERRORS, 'invalid_phone'],
  },
  {
    method: 'GET',
    path: '/api/v1/groups/{groupId}/invite',
    tag: 'Groups',
    summary: "The group's invite code and link (admins only) (extension)",
    auth: 'key',
    params: groupParams,
    query: sessionQuerySchema,
    response: envelope(groupInviteSchema),
    errors: GROUP_ERRORS,
  },
  {
    method: 'POST',
    path: '/api/v1/groups/{groupId}/invite/revoke',
    tag: 'Groups',
    summary: 'Revoke the invite link: the old one stops working, the new one is answered (extension)',
    auth: 'key',
    params: groupParams,
    body: groupSessionBodySchema,
    response: envelope(groupInviteSchema),
    errors: GROUP_ERRORS,
  },
  {
    method: 'POST',
    path: '/api/v1/groups/{groupId}/leave',
    tag: 'Groups',
    summary: 'Leave the group (extension)',
    auth: 'key',
    params: groupParams,
    body: groupSessionBodySchema,
    response: envelope(groupLeaveResultSchema),
    errors: GROUP_ERRORS,
  },
];
