import type { z } from 'zod';
import { ApiError } from '../api-error';
import type { ValidationProblem } from '../error-codes';
import { parseInput } from '../validation';
import { sendContactSchema, sendLocationSchema, sendReactionSchema } from './conversation-messages';
import { sendMediaSchema } from './messages';

const PHONE = '254712345678';

function problems(schema: z.ZodType, input: unknown): { code: string; paths: string[] } {
  try {
    parseInput(schema, input);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { code: error.code, paths: (error.details as ValidationProblem[]).map((detail) => detail.path) };
  }
  throw new Error('expected the input to be refused');
}

describe('send location', () => {
  it('takes a point with an optional name and address', () => {
    expect(
      parseInput(sendLocationSchema, { to: PHONE, latitude: -1.29, longitude: 36.82, name: 'Duka' }),
    ).toEqual({
      sessionId: 'default',
      to: PHONE,
      latitude: -1.29,
      longitude: 36.82,
      name: 'Duka',
    });
  });

  it('refuses coordinates off the globe, strings for numbers and unknown fields', () => {
    expect(problems(sendLocationSchema, { to: PHONE, latitude: 91, longitude: 0 }).paths).toEqual([
      '/latitude',
    ]);
    expect(problems(sendLocationSchema, { to: PHONE, latitude: 0, longitude: -180.5 }).paths).toEqual([
      '/longitude',
    ]);
    expect(problems(sendLocationSchema, { to: PHONE, latitude: '1', longitude: 0 }).paths).toEqual([
      '/latitude',
    ]);
    expect(problems(sendLocationSchema, { to: PHONE, latitude: 0, longitude: 0, zoom: 3 }).code).toBe(
      'validation_error',
    );
  });
});

describe('send contact', () => {
  it('takes 1 to 10 cards of a name and a number', () => {
    const contacts = [{ name: 'Amina', phoneNumber: PHONE }];
    expect(parseInput(sendContactSchema, { to: PHONE, contacts })).toMatchObject({ contacts });
    expect(problems(sendContactSchema, { to: PHONE, contacts: [] }).paths).toEqual(['/contacts']);
    const eleven = Array.from({ length: 11 }, () => contacts[0]);
    expect(problems(sendContactSchema, { to: PHONE, contacts: eleven }).paths).toEqual(['/contacts']);
  });

  it('refuses a card with a bad number (invalid_phone) or no name', () => {
    expect(
      problems(sendContactSchema, { to: PHONE, contacts: [{ name: 'A', phoneNumber: '+254 7' }] }),
    ).toEqual({
      code: 'invalid_phone',
      paths: ['/contacts/0/phoneNumber'],
    });
    expect(
      problems(sendContactSchema, { to: PHONE, contacts: [{ name: '', phoneNumber: PHONE }] }).paths,
    ).toEqual(['/contacts/0/name']);
  });
});

describe('send reaction', () => {
  it('takes one emoji, compound ones included, or "" to remove', () => {
    for (const emoji of ['👍', '❤️', '👨‍👩‍👧', '🇰🇪', '']) {
      expect(parseInput(sendReactionSchema, { to: PHONE, messageId: '3EB0ABC', emoji })).toMatchObject({
        emoji,
      });
    }
  });

  it('refuses a huge emoji field at once (it once exhausted the heap)', () => {
    const refused = problems(sendReactionSchema, {
      to: PHONE,
      messageId: '3EB0ABC',
      emoji: 'x'.repeat(1_000_000),
    });
    expect(new Set(refused.paths)).toEqual(new Set(['/emoji']));
  });

  it('refuses two emoji, letters, and a message id that no send or event gave', () => {
    expect(problems(sendReactionSchema, { to: PHONE, messageId: '3EB0ABC', emoji: '👍👍' }).paths).toEqual([
      '/emoji',
    ]);
    expect(problems(sendReactionSchema, { to: PHONE, messageId: '3EB0ABC', emoji: 'a' }).paths).toEqual([
      '/emoji',
    ]);
    expect(problems(sendReactionSchema, { to: PHONE, messageId: 'a b', emoji: '👍' }).paths).toEqual([
      '/messageId',
    ]);
  });
});

describe('send media: voice notes and stickers', () => {
  const url = 'https://cdn.example.com/file';

  it('takes ptt on audio, and WebP stickers', () => {
    expect(parseInput(sendMediaSchema, { to: PHONE, url, type: 'audio', ptt: true })).toMatchObject({
      ptt: true,
    });
    expect(parseInput(sendMediaSchema, { to: PHONE, url, type: 'sticker' })).toMatchObject({
      type: 'sticker',
    });
  });

  it('refuses ptt on other types, a sticker caption, and a sticker that is not WebP', () => {
    expect(problems(sendMediaSchema, { to: PHONE, url, type: 'image', ptt: true }).paths).toEqual(['/ptt']);
    expect(problems(sendMediaSchema, { to: PHONE, url, type: 'sticker', caption: 'x' }).paths).toEqual([
      '/caption',
    ]);
    expect(
      problems(sendMediaSchema, { to: PHONE, url, type: 'sticker', mimetype: 'image/png' }).paths,
    ).toEqual(['/mimetype']);
  });
});
