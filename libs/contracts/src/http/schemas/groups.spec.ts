import {
  groupCreateSchema,
  groupIdField,
  groupJoinSchema,
  groupParticipantsSchema,
  groupUpdateSchema,
} from './groups';

describe('group request schemas', () => {
  it('reads a group id with or without @g.us as the JID, and refuses anything else', () => {
    expect(groupIdField.parse('120363012345678901')).toBe('120363012345678901@g.us');
    expect(groupIdField.parse('120363012345678901@g.us')).toBe('120363012345678901@g.us');
    expect(groupIdField.parse('254711000001-1600000000@g.us')).toBe('254711000001-1600000000@g.us');
    for (const bad of ['254711000001@s.whatsapp.net', 'abc', '', '1203@g.us.evil']) {
      expect(groupIdField.safeParse(bad).success).toBe(false);
    }
  });

  it('creates with a subject and members given as numbers or user ids, read as JIDs', () => {
    const body = groupCreateSchema.parse({
      subject: 'Wauzaji',
      participants: ['254711000001', '254711000002@s.whatsapp.net', '12345678@lid'],
    });
    expect(body).toEqual({
      sessionId: 'default',
      subject: 'Wauzaji',
      participants: ['254711000001@s.whatsapp.net', '254711000002@s.whatsapp.net', '12345678@lid'],
    });
  });

  it('refuses an empty or too long subject, no members, or a member that is no number', () => {
    const ok = { subject: 'Wauzaji', participants: ['254711000001'] };
    expect(groupCreateSchema.safeParse({ ...ok, subject: '' }).success).toBe(false);
    expect(groupCreateSchema.safeParse({ ...ok, subject: 'x'.repeat(101) }).success).toBe(false);
    expect(groupCreateSchema.safeParse({ ...ok, participants: [] }).success).toBe(false);
    expect(groupCreateSchema.safeParse({ ...ok, participants: ['+254 711'] }).success).toBe(false);
    expect(groupCreateSchema.safeParse({ ...ok, participants: ['120363012345678901@g.us'] }).success).toBe(
      false,
    );
  });

  it('updates at least one thing; "" as description removes it', () => {
    expect(groupUpdateSchema.safeParse({ sessionId: 'shop' }).success).toBe(false);
    expect(groupUpdateSchema.parse({ description: '' })).toEqual({ sessionId: 'default', description: '' });
    expect(groupUpdateSchema.parse({ announcementOnly: true, locked: false })).toMatchObject({
      announcementOnly: true,
      locked: false,
    });
    expect(groupUpdateSchema.safeParse({ locked: 'yes' }).success).toBe(false);
    expect(groupUpdateSchema.safeParse({ subject: 'x', extra: 1 }).success).toBe(false);
  });

  it('takes one of the four participant actions', () => {
    const body = { action: 'promote', participants: ['254711000001'] };
    expect(groupParticipantsSchema.parse(body).action).toBe('promote');
    expect(groupParticipantsSchema.safeParse({ ...body, action: 'ban' }).success).toBe(false);
  });

  it('joins by a code or by the whole invite link', () => {
    expect(groupJoinSchema.parse({ code: 'AbCdEfGhIjKlMnOpQrStUv' }).code).toBe('AbCdEfGhIjKlMnOpQrStUv');
    expect(groupJoinSchema.parse({ code: 'https://chat.whatsapp.com/AbCdEfGhIjKlMnOpQrStUv' }).code).toBe(
      'AbCdEfGhIjKlMnOpQrStUv',
    );
    expect(groupJoinSchema.safeParse({ code: 'https://evil.example/AbCdEfGhIjKl' }).success).toBe(false);
    expect(groupJoinSchema.safeParse({ code: 'short' }).success).toBe(false);
  });
});
