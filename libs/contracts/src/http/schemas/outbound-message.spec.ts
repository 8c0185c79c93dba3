import { parseInput } from '../validation';
import { OUTBOUND_KINDS, outboundMessageSchema, REPLY_KINDS, SEND_BODIES } from './outbound-message';

const PHONE = '254712345678';

/** One valid body of each kind's route, as a client sends it. */
const BODIES = {
  text: { to: PHONE, text: 'Habari' },
  media: { to: PHONE, url: 'https://cdn.example.test/a.pdf', type: 'document', fileName: 'a.pdf' },
  interactive: { to: PHONE, text: 'Pick', actions: [{ type: 'reply', id: 'a', label: 'A' }] },
  location: { to: PHONE, latitude: -1.29, longitude: 36.82, name: 'Duka' },
  contact: { to: PHONE, contacts: [{ name: 'Amina', phoneNumber: PHONE }] },
  reaction: { to: PHONE, messageId: '3EB0ABC', emoji: '👍' },
  revoke: { to: PHONE, messageId: '3EB0ABC' },
  edit: { to: PHONE, messageId: '3EB0ABC', text: 'Habari za asubuhi' },
  poll: { to: PHONE, question: 'Lunch?', options: ['Ugali', 'Pilau'], multipleChoice: true },
  status: { type: 'text', text: 'Open till 8 today', backgroundColor: '#1E90FF', contacts: [PHONE] },
};

describe('the outbound message union', () => {
  it('has one send body per kind, and no other', () => {
    expect([...OUTBOUND_KINDS].sort()).toEqual(Object.keys(SEND_BODIES).sort());
    expect([...OUTBOUND_KINDS].sort()).toEqual(Object.keys(BODIES).sort());
  });

  it.each(OUTBOUND_KINDS)('a %s body parses into its session and the flat message of the union', (kind) => {
    const body = BODIES[kind];
    const { sessionId, message } = parseInput(SEND_BODIES[kind], { ...body, sessionId: 'main' });
    expect(sessionId).toBe('main');
    expect(message).toEqual({ ...body, kind });
    // What the gateway puts on the bus is what the worker's schema reads.
    expect(outboundMessageSchema.parse(message)).toEqual(message);
  });

  it.each(OUTBOUND_KINDS)('a %s body names no kind, and defaults the session', (kind) => {
    expect(parseInput(SEND_BODIES[kind], BODIES[kind]).sessionId).toBe('default');
    expect(() => parseInput(SEND_BODIES[kind], { ...BODIES[kind], kind })).toThrow(
      expect.objectContaining({
        code: 'validation_error',
        details: [expect.objectContaining({ path: '/kind' })],
      }),
    );
  });

  it('knows which kinds can reply and be quoted: those with content, not reactions, edits or deletions', () => {
    expect([...REPLY_KINDS]).toEqual(['text', 'media', 'interactive', 'location', 'contact']);
  });

  it('keeps each kind’s rules across fields, in the body and in the union', () => {
    const voiceImage = { to: PHONE, url: 'https://cdn.example.test/a.jpg', type: 'image', ptt: true };
    expect(() => parseInput(SEND_BODIES.media, voiceImage)).toThrow(
      expect.objectContaining({ details: [expect.objectContaining({ path: '/ptt' })] }),
    );
    expect(outboundMessageSchema.safeParse({ ...voiceImage, kind: 'media' }).error?.issues[0]?.path).toEqual([
      'ptt',
    ]);
  });
});
