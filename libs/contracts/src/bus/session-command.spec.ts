import type { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from '../http/error-codes';
import { COMMAND_RESULT_SCHEMAS } from './command-results';
import {
  commandReplySchema,
  commandVersion,
  MESSAGE_SEND_VERSION,
  nestedMessage,
  replyError,
  replyOk,
  SESSION_COMMAND_VERSION,
  sessionCommandSchema,
  type SessionCommandType,
} from './session-command';

const PHONE = '254712345678';
const ref = { v: 1, accountId: 'acct-1', sessionId: 'main' };

/** One valid command of every type, as the gateway sends them. */
const COMMANDS: Record<SessionCommandType, Record<string, unknown>> = {
  'session.start': { ...ref, type: 'session.start', maxSessions: 3 },
  'session.status': { ...ref, type: 'session.status' },
  'session.qr': { ...ref, type: 'session.qr' },
  'session.pairing_code': { ...ref, type: 'session.pairing_code', phoneNumber: PHONE, maxSessions: 0 },
  'session.logout': { ...ref, type: 'session.logout' },
  'session.delete': { ...ref, type: 'session.delete' },
  'session.reconnect': { ...ref, type: 'session.reconnect' },
  'message.send': {
    ...ref,
    v: 2,
    type: 'message.send',
    message: { kind: 'text', to: PHONE, text: 'Habari' },
  },
  'chat.read': { ...ref, type: 'chat.read', chat: `${PHONE}@s.whatsapp.net`, messageIds: ['IN1'] },
  'chat.presence': { ...ref, type: 'chat.presence', chat: `${PHONE}@s.whatsapp.net`, state: 'typing' },
  'contact.check': { ...ref, type: 'contact.check', phoneNumber: PHONE },
  group: {
    ...ref,
    type: 'group',
    operation: {
      op: 'participants',
      groupId: '120363000000000001@g.us',
      action: 'add',
      participants: [PHONE],
    },
  },
  'profile.read': { ...ref, type: 'profile.read' },
  'profile.update': {
    ...ref,
    type: 'profile.update',
    change: { name: 'Duka', pictureUrl: 'https://example.com/a.jpg' },
  },
  'contact.profile': { ...ref, type: 'contact.profile', contact: PHONE },
  'contact.block': { ...ref, type: 'contact.block', contact: PHONE, blocked: true },
  'calls.settings.read': { ...ref, type: 'calls.settings.read' },
  'calls.settings.update': { ...ref, type: 'calls.settings.update', rejectCalls: true, reply: null },
  'sandbox.call': { ...ref, type: 'sandbox.call', from: PHONE, video: false },
  'media.fetch': { ...ref, type: 'media.fetch', messageId: '3A0123' },
  'sandbox.scan': { ...ref, type: 'sandbox.scan', phoneNumber: PHONE },
  'sandbox.inbound': { ...ref, type: 'sandbox.inbound', contact: { from: PHONE, text: 'hi' } },
  'sandbox.outbox': { ...ref, type: 'sandbox.outbox', limit: 50 },
  'sandbox.disconnect': { ...ref, type: 'sandbox.disconnect', reason: 'network' },
  'sandbox.status': { ...ref, type: 'sandbox.status', messageId: '3EB0ABC', status: 'read' },
};
const ALL = Object.entries(COMMANDS) as [SessionCommandType, Record<string, unknown>][];

/**
 * Where a schema refused a value: each problem's path (with the unknown keys a strict object
 * names), or [] when it was accepted. Asserting the place, not only the refusal, means a refusal
 * for some other reason (a broken fixture, another field's rule) cannot pass for the rule tested.
 */
function refusedAt(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value);
  if (result.success) return [];
  return result.error.issues.map((issue) =>
    [...issue.path, ...(issue.code === 'unrecognized_keys' ? issue.keys : [])].join('.'),
  );
}

describe('session commands', () => {
  it('are at version 1, but message.send at 2 (its message flat)', () => {
    expect(SESSION_COMMAND_VERSION).toBe(1);
    expect(MESSAGE_SEND_VERSION).toBe(2);
    for (const [type] of ALL) {
      expect(commandVersion(type)).toBe(type === 'message.send' ? 2 : 1);
    }
  });

  it.each(ALL)('%s parses with its version', (type, command) => {
    const parsed = sessionCommandSchema.parse(command);
    expect(parsed.type).toBe(type);
    expect(parsed).toMatchObject({ v: commandVersion(type), accountId: 'acct-1', sessionId: 'main' });
  });

  it.each(ALL)('%s is refused with another version or none', (type, command) => {
    const version = commandVersion(type);
    for (const v of [0, version + 1, String(version), null, undefined]) {
      expect(refusedAt(sessionCommandSchema, { ...command, v })).toEqual(['v']);
    }
  });

  it.each(ALL)('%s is refused without an account or session', (_, command) => {
    expect(refusedAt(sessionCommandSchema, { ...command, accountId: '' })).toEqual(['accountId']);
    expect(refusedAt(sessionCommandSchema, { ...command, sessionId: undefined })).toEqual(['sessionId']);
  });

  it('refuses an unknown or missing type', () => {
    expect(refusedAt(sessionCommandSchema, { ...ref, type: 'session.reboot' })).toEqual(['type']);
    expect(refusedAt(sessionCommandSchema, { ...ref })).toEqual(['type']);
  });

  it('refuses a message.send whose message kind is unknown or whose fields are invalid', () => {
    const send = COMMANDS['message.send'];
    expect(refusedAt(sessionCommandSchema, { ...send, message: { kind: 'carousel', to: PHONE } })).toEqual([
      'message.kind',
    ]);
    expect(
      refusedAt(sessionCommandSchema, { ...send, message: { kind: 'text', to: '+1', text: 'x' } }),
    ).toEqual(['message.to']);
    // The sessionId travels on the command, not in the message.
    expect(
      refusedAt(sessionCommandSchema, {
        ...send,
        message: { kind: 'text', to: PHONE, text: 'x', sessionId: 'main' },
      }),
    ).toEqual(['message.sessionId']);
    // v2 is flat: a nested v1 message under v2 is refused, not guessed at.
    expect(
      refusedAt(sessionCommandSchema, { ...send, message: { kind: 'text', body: { to: PHONE, text: 'x' } } }),
    ).toEqual(['message.to', 'message.text', 'message.body']);
  });

  it("carries a v2 message.send's send id, refuses an empty or oversized one, and reads v1 without it", () => {
    const send = COMMANDS['message.send'];
    expect(sessionCommandSchema.parse({ ...send, sendId: 'abc' })).toMatchObject({ sendId: 'abc' });
    expect(refusedAt(sessionCommandSchema, { ...send, sendId: '' })).toEqual(['sendId']);
    expect(refusedAt(sessionCommandSchema, { ...send, sendId: 'x'.repeat(129) })).toEqual(['sendId']);
    const v1 = { ...ref, type: 'message.send', message: { kind: 'text', body: { to: PHONE, text: 'x' } } };
    expect(sessionCommandSchema.parse({ ...v1, sendId: 'abc' })).not.toHaveProperty('sendId');
  });

  describe('a v1 message.send, as gateways of the previous release send it during a rollout', () => {
    const v1 = { ...ref, type: 'message.send' };

    it('is read as the flat message, whatever the kind', () => {
      expect(
        sessionCommandSchema.parse({ ...v1, message: { kind: 'text', body: { to: PHONE, text: 'Habari' } } }),
      ).toMatchObject({ type: 'message.send', message: { kind: 'text', to: PHONE, text: 'Habari' } });
      expect(
        sessionCommandSchema.parse({
          ...v1,
          message: { kind: 'location', body: { to: PHONE, latitude: -1.29, longitude: 36.82 } },
        }),
      ).toMatchObject({ message: { kind: 'location', to: PHONE, latitude: -1.29, longitude: 36.82 } });
      expect(
        sessionCommandSchema.parse({
          ...v1,
          message: { kind: 'media', body: { to: PHONE, url: 'https://cdn.example.test/a.jpg' } },
        }),
      ).toMatchObject({ message: { kind: 'media', type: 'image' } });
    });

    it('is what nestedMessage writes for such a worker, and reads back as the same message', () => {
      const message = {
        kind: 'contact' as const,
        to: PHONE,
        contacts: [{ name: 'Amina', phoneNumber: PHONE }],
      };
      expect(nestedMessage(message)).toEqual({
        kind: 'contact',
        body: { to: PHONE, contacts: message.contacts },
      });
      expect(sessionCommandSchema.parse({ ...v1, message: nestedMessage(message) })).toMatchObject({
        message,
      });
    });

    it('is held to the same rules as v2', () => {
      expect(
        refusedAt(sessionCommandSchema, { ...v1, message: { kind: 'carousel', body: { to: PHONE } } }),
      ).toEqual(['message.kind']);
      expect(
        refusedAt(sessionCommandSchema, { ...v1, message: { kind: 'text', body: { to: '+1', text: 'x' } } }),
      ).toEqual(['message.to']);
      expect(
        refusedAt(sessionCommandSchema, {
          ...v1,
          message: { kind: 'text', body: { to: PHONE, text: 'x', sessionId: 'main' } },
        }),
      ).toEqual(['message.sessionId']);
      expect(
        refusedAt(sessionCommandSchema, { ...v1, message: { kind: 'text', to: PHONE, text: 'x' } }),
      ).toEqual(['message.body']);
    });
  });

  it('carries media (type defaulted) and interactive messages', () => {
    const media = sessionCommandSchema.parse({
      ...ref,
      type: 'message.send',
      v: 2,
      message: { kind: 'media', to: PHONE, url: 'https://cdn.example.test/a.jpg' },
    });
    expect(media).toMatchObject({ message: { kind: 'media', type: 'image' } });
    const interactive = sessionCommandSchema.parse({
      ...ref,
      type: 'message.send',
      v: 2,
      message: {
        kind: 'interactive',
        to: PHONE,
        text: 'Pick',
        actions: [{ type: 'reply', id: 'a', label: 'A' }],
      },
    });
    expect(interactive).toMatchObject({ message: { kind: 'interactive' } });
  });

  it('refuses an interactive message with duplicate ids, at the duplicate', () => {
    const result = sessionCommandSchema.safeParse({
      ...ref,
      type: 'message.send',
      v: 2,
      message: {
        kind: 'interactive',
        to: PHONE,
        text: 'Pick',
        actions: [
          { type: 'reply', id: 'a', label: 'A' },
          { type: 'reply', id: 'a', label: 'B' },
        ],
      },
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path)).toEqual([['message', 'actions', 1, 'id']]);
  });

  it('checks the limits of start, outbox and disconnect', () => {
    const start = COMMANDS['session.start'];
    const outbox = COMMANDS['sandbox.outbox'];
    const disconnect = COMMANDS['sandbox.disconnect'];
    expect(refusedAt(sessionCommandSchema, { ...start, maxSessions: -1 })).toEqual(['maxSessions']);
    expect(refusedAt(sessionCommandSchema, { ...start, maxSessions: 1.5 })).toEqual(['maxSessions']);
    expect(refusedAt(sessionCommandSchema, { ...start, maxSessions: 0 })).toEqual([]);
    expect(refusedAt(sessionCommandSchema, { ...outbox, limit: 0 })).toEqual(['limit']);
    expect(refusedAt(sessionCommandSchema, { ...outbox, limit: 1 })).toEqual([]);
    expect(refusedAt(sessionCommandSchema, { ...outbox, limit: 1001 })).toEqual(['limit']);
    expect(refusedAt(sessionCommandSchema, { ...outbox, limit: 1000 })).toEqual([]);
    expect(refusedAt(sessionCommandSchema, { ...disconnect, reason: 'crash' })).toEqual(['reason']);
    expect(refusedAt(sessionCommandSchema, { ...disconnect, reason: 'logged_out' })).toEqual([]);
  });
});

describe('command replies', () => {
  it('replyOk round-trips through commandReplySchema, result kept as is', () => {
    const result = { sessionId: 'main', state: 'connected', nested: [1, { a: null }] };
    const reply = replyOk(result);
    expect(reply).toEqual({ ok: true, result });
    expect(commandReplySchema.parse(JSON.parse(JSON.stringify(reply)))).toEqual(reply);
  });

  it('replyOk without a result round-trips too', () => {
    expect(commandReplySchema.parse(JSON.parse(JSON.stringify(replyOk(null))))).toEqual({
      ok: true,
      result: null,
    });
  });

  it.each(Object.keys(ERROR_STATUS) as ErrorCode[])('replyError(%s) round-trips', (code) => {
    const reply = replyError(code, 'Something went wrong.');
    expect(reply).toEqual({ ok: false, error: { code, message: 'Something went wrong.' } });
    expect(commandReplySchema.parse(JSON.parse(JSON.stringify(reply)))).toEqual(reply);
  });

  it('refuses an error code outside the contract and a reply without ok', () => {
    expect(refusedAt(commandReplySchema, { ok: false, error: { code: 'kaboom', message: 'x' } })).toEqual([
      'error.code',
    ]);
    expect(refusedAt(commandReplySchema, { ok: false, error: { code: 'not_found' } })).toEqual([
      'error.message',
    ]);
    expect(refusedAt(commandReplySchema, { result: 1 })).toEqual(['ok']);
  });
});

describe('command result schemas', () => {
  const session = {
    sessionId: 'main',
    phoneNumber: PHONE,
    connected: true,
    state: 'connected',
    updatedAt: '2026-01-02T03:04:05.678Z',
    reason: null,
  };
  const RESULTS: Record<SessionCommandType, unknown> = {
    'session.start': session,
    'session.status': session,
    'session.qr': { sessionId: 'main', state: 'qr_ready', qr: '2@abc' },
    'session.pairing_code': { sessionId: 'main', state: 'pairing_code_ready', pairingCode: 'ABCD-EFGH' },
    'session.logout': { ...session, connected: false, state: 'disconnected', reason: 'logged_out' },
    'session.delete': { ...session, connected: false, state: 'disconnected' },
    'session.reconnect': session,
    'message.send': { key: { remoteJid: `${PHONE}@s.whatsapp.net`, fromMe: true, id: 'MSG1' } },
    'chat.read': { chat: `${PHONE}@s.whatsapp.net`, messageIds: ['IN1'] },
    'chat.presence': { chat: `${PHONE}@s.whatsapp.net`, state: 'typing' },
    'contact.check': { phoneNumber: PHONE, onWhatsApp: true, recipientId: `${PHONE}@s.whatsapp.net` },
    group: {
      groupId: '120363000000000001@g.us',
      action: 'add',
      results: [{ participant: `${PHONE}@s.whatsapp.net`, ok: false, status: 403, reason: 'not_allowed' }],
    },
    'profile.read': { name: 'Duka', about: null, pictureUrl: null },
    'profile.update': { updated: ['name', 'picture'] },
    'contact.profile': { contact: PHONE, pictureUrl: null, about: 'Hey', aboutSetAt: null },
    'contact.block': { contact: PHONE, blocked: false },
    'calls.settings.read': { sessionId: 'main', rejectCalls: false, reply: null },
    'calls.settings.update': { sessionId: 'main', rejectCalls: true, reply: 'Please text us' },
    'sandbox.call': { callId: 'CALL1' },
    'media.fetch': { object: 'a'.repeat(64), mimetype: 'image/jpeg', fileName: null, size: 1024 },
    'sandbox.scan': session,
    'sandbox.inbound': { id: 'IN1' },
    'sandbox.outbox': [
      { id: 'O1', to: PHONE, type: 'text', content: { text: 'hi' }, createdAt: '2026-01-02T03:04:05.678Z' },
    ],
    'sandbox.disconnect': { ...session, connected: false, state: 'disconnected', reason: 'network' },
    'sandbox.status': { messageId: '3EB0ABC', to: `${PHONE}@s.whatsapp.net`, status: 'read' },
  };

  it('has a result schema for every command type', () => {
    expect(Object.keys(COMMAND_RESULT_SCHEMAS).sort()).toEqual(Object.keys(COMMANDS).sort());
  });

  it.each(Object.keys(RESULTS) as SessionCommandType[])(
    'accepts a %s result carried in a replyOk',
    (type) => {
      const reply = commandReplySchema.parse(JSON.parse(JSON.stringify(replyOk(RESULTS[type]))));
      if (!reply.ok) throw new Error('expected an ok reply');
      expect(COMMAND_RESULT_SCHEMAS[type].parse(reply.result)).toEqual(RESULTS[type]);
    },
  );

  it('refuses results of the wrong shape', () => {
    expect(COMMAND_RESULT_SCHEMAS['session.status'].safeParse({ sessionId: 'main' }).success).toBe(false);
    expect(COMMAND_RESULT_SCHEMAS['session.status'].safeParse({ ...session, state: 'asleep' }).success).toBe(
      false,
    );
    expect(
      COMMAND_RESULT_SCHEMAS['session.pairing_code'].safeParse({
        sessionId: 'main',
        state: 'qr_ready',
        pairingCode: 'X',
      }).success,
    ).toBe(false);
    expect(
      COMMAND_RESULT_SCHEMAS['message.send'].safeParse({ key: { remoteJid: 'x', fromMe: false, id: 'M' } })
        .success,
    ).toBe(false);
    expect(COMMAND_RESULT_SCHEMAS['sandbox.outbox'].safeParse({}).success).toBe(false);
  });
});
