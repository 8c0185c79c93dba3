import { z } from 'zod';
import { ApiError } from '../api-error';
import { parseInput } from '../validation';
import {
  httpUrlField,
  phoneNumberField,
  recipientField,
  sessionBodySchema,
  sessionFilterField,
  sessionQuerySchema,
} from './common';

function codeOf(schema: z.ZodType, input: unknown): string {
  try {
    parseInput(schema, input);
  } catch (error) {
    if (error instanceof ApiError) return error.code;
    throw error;
  }
  return 'accepted';
}

describe('sessionId', () => {
  it('defaults to "default" when absent', () => {
    expect(parseInput(sessionBodySchema, {})).toEqual({ sessionId: 'default' });
    expect(parseInput(sessionQuerySchema, {})).toEqual({ sessionId: 'default' });
  });

  it.each(['a', 'sales', 'Sales_Team-2', '0', 'x'.repeat(64)])('accepts %s', (sessionId) => {
    expect(parseInput(sessionBodySchema, { sessionId })).toEqual({ sessionId });
  });

  it.each(['', 'x'.repeat(65), 'has space', 'dot.ted', 'slash/ed', 'ümlaut', 'emoji😀'])(
    'refuses "%s" as invalid_session_id',
    (sessionId) => {
      expect(codeOf(sessionBodySchema, { sessionId })).toBe('invalid_session_id');
    },
  );

  it('refuses a non-string sessionId as a plain validation_error', () => {
    expect(codeOf(sessionBodySchema, { sessionId: 7 })).toBe('validation_error');
  });

  it('as a filter, is absent (every session) unless given, and then must be valid', () => {
    const filter = z.strictObject({ sessionId: sessionFilterField });
    expect(parseInput(filter, {})).toEqual({});
    expect(parseInput(filter, { sessionId: 'main' })).toEqual({ sessionId: 'main' });
    expect(codeOf(filter, { sessionId: 'no good' })).toBe('invalid_session_id');
  });

  it('session routes take no other field', () => {
    expect(codeOf(sessionQuerySchema, { sessionId: 'main', verbose: '1' })).toBe('validation_error');
  });
});

describe('recipient (to)', () => {
  const schema = z.strictObject({ to: recipientField });

  it.each([
    '1234567',
    '123456789012345',
    '254712345678',
    '254712345678@s.whatsapp.net',
    '120363025246125486@g.us',
    '123456789012345-1612345678@g.us',
    '98765432109876@lid',
    '120363123456789012@newsletter',
    '254712345678:12@s.whatsapp.net',
  ])('accepts %s', (to) => {
    expect(parseInput(schema, { to })).toEqual({ to });
  });

  it.each([
    '123456',
    '1234567890123456',
    '+254712345678',
    '254 712 345 678',
    '254-712-345-678',
    '',
    '254712345678@example.com',
    '254712345678@s.whatsapp.net.evil',
    '@g.us',
    `${'1'.repeat(129)}@g.us`,
    'abc',
  ])('refuses "%s" as invalid_phone', (to) => {
    expect(codeOf(schema, { to })).toBe('invalid_phone');
  });
});

describe('phone number', () => {
  const schema = z.strictObject({ phoneNumber: phoneNumberField });

  it('takes 7 to 15 digits only, not JIDs', () => {
    expect(codeOf(schema, { phoneNumber: '254712345678' })).toBe('accepted');
    expect(codeOf(schema, { phoneNumber: '254712345678@s.whatsapp.net' })).toBe('invalid_phone');
    expect(codeOf(schema, { phoneNumber: '123456' })).toBe('invalid_phone');
    expect(codeOf(schema, { phoneNumber: '1'.repeat(16) })).toBe('invalid_phone');
  });
});

describe('http(s) URL field', () => {
  const schema = z.strictObject({ url: httpUrlField('invalid_media_url', 'url') });

  it.each(['http://example.test/a.png', 'https://cdn.example.test/path?q=1#f', 'HTTPS://EXAMPLE.TEST'])(
    'accepts %s',
    (url) => {
      expect(codeOf(schema, { url })).toBe('accepted');
    },
  );

  it.each([
    'ftp://example.test/a.png',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'data:text/plain,hi',
    '/relative/path.png',
    'example.test/a.png',
    'not a url',
    '',
  ])('refuses %s with the code it was given', (url) => {
    expect(codeOf(schema, { url })).toBe('invalid_media_url');
  });

  it('refuses URLs longer than 2048 characters', () => {
    const url = `https://example.test/${'a'.repeat(2048)}`;
    expect(codeOf(schema, { url })).not.toBe('accepted');
    expect(codeOf(schema, { url: `https://example.test/${'a'.repeat(2048 - 21)}` })).toBe('accepted');
  });
});
