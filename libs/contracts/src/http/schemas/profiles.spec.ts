import type { z } from 'zod';
import { ApiError } from '../api-error';
import { parseInput } from '../validation';
import { callSettingsBodySchema } from './calls';
import {
  contactProfileQuerySchema,
  pictureKind,
  PROFILE_PICTURE_MAX_BYTES,
  profileUpdateSchema,
} from './profiles';

function codeOf(schema: z.ZodType, input: unknown): string {
  try {
    parseInput(schema, input);
  } catch (error) {
    if (error instanceof ApiError) return error.code;
    throw error;
  }
  return 'accepted';
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46]);

describe('PUT /profile', () => {
  it('takes any of name, about and a picture, for the default session', () => {
    expect(parseInput(profileUpdateSchema, { name: '  Duka  ' })).toEqual({
      sessionId: 'default',
      name: 'Duka',
    });
    expect(parseInput(profileUpdateSchema, { about: '' })).toEqual({ sessionId: 'default', about: '' });
    expect(codeOf(profileUpdateSchema, { pictureUrl: 'https://example.com/logo.jpg' })).toBe('accepted');
    expect(codeOf(profileUpdateSchema, { pictureData: PNG.toString('base64') })).toBe('accepted');
    expect(codeOf(profileUpdateSchema, { pictureData: JPEG.toString('base64') })).toBe('accepted');
  });

  it("refuses a change of nothing, and names beyond WhatsApp's limits", () => {
    expect(codeOf(profileUpdateSchema, {})).toBe('validation_error');
    expect(codeOf(profileUpdateSchema, { name: '   ' })).toBe('validation_error');
    expect(codeOf(profileUpdateSchema, { name: 'x'.repeat(26) })).toBe('validation_error');
    expect(codeOf(profileUpdateSchema, { name: 'x'.repeat(25) })).toBe('accepted');
    expect(codeOf(profileUpdateSchema, { about: 'x'.repeat(140) })).toBe('validation_error');
    expect(codeOf(profileUpdateSchema, { nickname: 'Duka' })).toBe('validation_error');
  });

  it('refuses a picture that is not a public http(s) URL, or bytes that are no JPEG or PNG', () => {
    expect(codeOf(profileUpdateSchema, { pictureUrl: 'file:///etc/passwd' })).toBe('invalid_media_url');
    expect(codeOf(profileUpdateSchema, { pictureData: Buffer.from('GIF89a...').toString('base64') })).toBe(
      'validation_error',
    );
    expect(codeOf(profileUpdateSchema, { pictureData: 'not base64!' })).toBe('validation_error');
    expect(
      codeOf(profileUpdateSchema, {
        pictureUrl: 'https://example.com/logo.jpg',
        pictureData: PNG.toString('base64'),
      }),
    ).toBe('validation_error');
  });

  it('refuses a picture larger than the limit', () => {
    const large = Buffer.concat([PNG, Buffer.alloc(PROFILE_PICTURE_MAX_BYTES)]);
    expect(codeOf(profileUpdateSchema, { pictureData: large.toString('base64') })).toBe('validation_error');
  });
});

describe('pictureKind', () => {
  it('tells JPEG and PNG by their first bytes, and nothing else', () => {
    expect(pictureKind(JPEG)).toBe('jpeg');
    expect(pictureKind(PNG)).toBe('png');
    expect(pictureKind(Buffer.from('GIF89a'))).toBeNull();
    expect(pictureKind(new Uint8Array())).toBeNull();
  });
});

describe('GET /contacts/profile', () => {
  it('takes a number or a reply address, and refuses anything else as invalid_phone', () => {
    expect(codeOf(contactProfileQuerySchema, { contact: '254712345678' })).toBe('accepted');
    expect(codeOf(contactProfileQuerySchema, { contact: '254712345678@s.whatsapp.net' })).toBe('accepted');
    expect(codeOf(contactProfileQuerySchema, { contact: '+254 712' })).toBe('invalid_phone');
  });
});

describe('PUT /session/calls', () => {
  it('needs rejectCalls; the reply is optional, trimmed and bounded', () => {
    expect(parseInput(callSettingsBodySchema, { rejectCalls: true })).toEqual({
      sessionId: 'default',
      rejectCalls: true,
    });
    expect(parseInput(callSettingsBodySchema, { rejectCalls: false, reply: ' Text us ' })).toEqual({
      sessionId: 'default',
      rejectCalls: false,
      reply: 'Text us',
    });
    expect(codeOf(callSettingsBodySchema, { reply: 'Text us' })).toBe('validation_error');
    expect(codeOf(callSettingsBodySchema, { rejectCalls: 'yes' })).toBe('validation_error');
    expect(codeOf(callSettingsBodySchema, { rejectCalls: true, reply: '  ' })).toBe('validation_error');
    expect(codeOf(callSettingsBodySchema, { rejectCalls: true, reply: 'x'.repeat(1001) })).toBe(
      'validation_error',
    );
  });
});
