import type { GroupMetadata } from '@whiskeysockets/baileys';
import { GroupActionError } from '../group-action-error';
import { participantsEventOf, updatedEventOf } from './whatsapp-group-events';
import { groupInfoOf, groupRefusal, participantResults } from './whatsapp-groups';

const A = '254711000001@s.whatsapp.net';
const B = '254711000002@s.whatsapp.net';

/** What Baileys throws for an IQ error answer (assertNodeErrorFree): a Boom whose `data` is the code. */
const iqError = (text: string, code: number) =>
  Object.assign(new Error(text), { data: code, output: { statusCode: 500 } });

describe('participantResults (Baileys groupParticipantsUpdate → one result per participant)', () => {
  it('matches each answer to the participant asked, whatever order WhatsApp answered in', () => {
    const results = participantResults(
      [A, B],
      [
        { status: '403', jid: B },
        { status: '200', jid: A },
      ],
      'add',
    );
    expect(results).toEqual([
      { participant: A, ok: true, status: 200, reason: null },
      { participant: B, ok: false, status: 403, reason: 'not_allowed' },
    ]);
  });

  it('falls back to the answer in the same place when WhatsApp answered by another id (a LID)', () => {
    const results = participantResults([A], [{ status: '409', jid: '1234@lid' }], 'add');
    expect(results).toEqual([{ participant: A, ok: false, status: 409, reason: 'already_member' }]);
  });

  it('counts a participant WhatsApp did not answer for as refused', () => {
    expect(participantResults([A, B], [{ status: '200', jid: A }], 'remove')[1]).toMatchObject({
      participant: B,
      ok: false,
      reason: 'refused',
    });
  });
});

describe('groupRefusal', () => {
  it.each([
    [404, 'not_found'],
    [406, 'not_found'],
    [403, 'forbidden'],
    [401, 'forbidden'],
    [409, 'conflict'],
  ])('reads an IQ error %d as %s', (status, code) => {
    const refusal = groupRefusal(iqError('item-not-found', status));
    expect(refusal).toBeInstanceOf(GroupActionError);
    expect(refusal?.code).toBe(code);
  });

  it('leaves timeouts and closed connections to the network error path', () => {
    expect(groupRefusal(Object.assign(new Error('Timed Out'), { output: { statusCode: 408 } }))).toBeNull();
    expect(groupRefusal(new Error('Connection Closed'))).toBeNull();
  });
});

describe('groupInfoOf', () => {
  it('shows members with their admin flags and the settings', () => {
    const metadata = {
      id: '120363000000000001@g.us',
      subject: 'Wauzaji',
      desc: 'Bei za leo',
      owner: '1234@lid',
      ownerPn: A,
      creation: 1_767_000_000,
      announce: true,
      restrict: false,
      participants: [
        { id: A, admin: 'superadmin' },
        { id: '5678@lid', phoneNumber: B, admin: 'admin' },
        { id: '9999@lid', admin: null },
      ],
    } as GroupMetadata;
    expect(groupInfoOf(metadata)).toEqual({
      id: '120363000000000001@g.us',
      subject: 'Wauzaji',
      description: 'Bei za leo',
      owner: A,
      createdAt: new Date(1_767_000_000_000).toISOString(),
      participants: [
        { id: A, phoneNumber: '254711000001', isAdmin: true, isSuperAdmin: true },
        { id: '5678@lid', phoneNumber: '254711000002', isAdmin: true, isSuperAdmin: false },
        { id: '9999@lid', phoneNumber: null, isAdmin: false, isSuperAdmin: false },
      ],
      settings: { announcementOnly: true, locked: false },
    });
  });
});

describe('group events from Baileys', () => {
  it('reports participant changes with the members as ids (Baileys 7 lists objects)', () => {
    const event = participantsEventOf({
      id: '120363000000000001@g.us',
      author: '1234@lid',
      authorPn: A,
      participants: [{ id: B, admin: null }],
      action: 'add',
    });
    expect(event).toEqual({
      kind: 'participants',
      groupId: '120363000000000001@g.us',
      action: 'add',
      participants: [B],
      author: A,
    });
  });

  it('ignores number changes', () => {
    expect(participantsEventOf({ id: 'g@g.us', author: A, participants: [], action: 'modify' })).toBeNull();
  });

  it('reports only what changed; a removed description as null', () => {
    expect(updatedEventOf({ id: 'g@g.us', desc: undefined, author: A })).toEqual({
      kind: 'updated',
      groupId: 'g@g.us',
      changes: { description: null },
      author: A,
    });
    expect(updatedEventOf({ id: 'g@g.us', inviteCode: 'X', author: A })).toEqual({
      kind: 'updated',
      groupId: 'g@g.us',
      changes: { inviteRevoked: true },
      author: A,
    });
  });

  it('takes a whole group re-read (after a dirty notification) for no change', () => {
    expect(updatedEventOf({ id: 'g@g.us', subject: 'Wauzaji', participants: [] })).toBeNull();
  });
});
