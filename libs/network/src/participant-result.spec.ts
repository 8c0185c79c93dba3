import { participantResult } from './participant-result';

describe('participantResult', () => {
  const jid = '254711000001@s.whatsapp.net';

  it('reads 200 as done', () => {
    expect(participantResult(jid, 200, 'add')).toEqual({
      participant: jid,
      ok: true,
      status: 200,
      reason: null,
    });
  });

  it.each([
    [403, 'add', 'not_allowed'],
    [403, 'promote', 'not_authorized'],
    [404, 'add', 'not_found'],
    [404, 'remove', 'not_found'],
    [409, 'add', 'already_member'],
    [409, 'demote', 'refused'],
    [408, 'add', 'recently_left'],
    [401, 'remove', 'not_authorized'],
    [500, 'add', 'refused'],
  ] as const)('reads %d on %s as %s', (status, action, reason) => {
    expect(participantResult(jid, status, action)).toEqual({ participant: jid, ok: false, status, reason });
  });
});
