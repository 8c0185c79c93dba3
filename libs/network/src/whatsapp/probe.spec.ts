import { DisconnectReason, proto } from '@whiskeysockets/baileys';
it('loads', () => {
  expect(DisconnectReason.loggedOut).toBe(401);
  expect(proto.WebMessageInfo.fromObject({ key: { id: 'x' } }).key?.id).toBe('x');
});
