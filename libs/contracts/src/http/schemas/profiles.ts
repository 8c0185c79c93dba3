import { z } from 'zod';
import { httpUrlField, recipientField, sessionIdField } from './common';

/** WhatsApp's own limits: a display name of 25 characters, an about of 139. */
export const PROFILE_NAME_MAX = 25;
export const PROFILE_ABOUT_MAX = 139;
/**
 * A profile picture is at most this many bytes (JPEG or PNG). WhatsApp shows it at 640×640, so a
 * larger file buys nothing; the limit also keeps an uploaded picture within one bus message.
 */
export const PROFILE_PICTURE_MAX_BYTES = 512 * 1024;
const PICTURE_BASE64_MAX = Math.ceil(PROFILE_PICTURE_MAX_BYTES / 3) * 4;

/** The kind of picture `bytes` hold, by their first bytes, or null when neither JPEG nor PNG. */
export function pictureKind(bytes: Uint8Array): 'jpeg' | 'png' | null {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length >= png.length && png.every((byte, index) => bytes[index] === byte)) return 'png';
  return null;
}

/** The first bytes of base64 `value` (enough to tell JPEG from PNG); atob runs in browsers too. */
function leadingBytes(value: string): Uint8Array {
  try {
    return Uint8Array.from(atob(value.slice(0, 16)), (char) => char.charCodeAt(0));
  } catch {
    return new Uint8Array();
  }
}

const pictureDataField = z
  .string()
  .max(PICTURE_BASE64_MAX, `pictureData must be at most ${PROFILE_PICTURE_MAX_BYTES} bytes (base64-encoded)`)
  .refine((value) => /^[A-Za-z0-9+/]+={0,2}$/.test(value), 'pictureData must be base64')
  .refine((value) => pictureKind(leadingBytes(value)) !== null, 'pictureData must be a JPEG or PNG image')
  .describe(`The picture itself, base64: JPEG or PNG, at most ${PROFILE_PICTURE_MAX_BYTES} bytes.`);

/**
 * `PUT /profile` (extension): changes the number's display name, about and/or picture. The
 * picture comes from a public URL (fetched like media sends: http(s), public addresses only,
 * JPEG or PNG within the size limit) or from the request itself (`pictureData`).
 */
export const profileUpdateSchema = z
  .strictObject({
    sessionId: sessionIdField,
    name: z
      .string()
      .trim()
      .min(1, 'name must not be empty')
      .max(PROFILE_NAME_MAX, `name must be at most ${PROFILE_NAME_MAX} characters`)
      .optional()
      .describe('The display name contacts see (push name).'),
    about: z
      .string()
      .max(PROFILE_ABOUT_MAX, `about must be at most ${PROFILE_ABOUT_MAX} characters`)
      .optional()
      .describe('The about text ("Hey there! I am using WhatsApp.").'),
    pictureUrl: httpUrlField('invalid_media_url', 'pictureUrl').optional(),
    pictureData: pictureDataField.optional(),
  })
  .refine(
    (body) =>
      body.name !== undefined ||
      body.about !== undefined ||
      body.pictureUrl !== undefined ||
      body.pictureData !== undefined,
    { message: 'give at least one of name, about, pictureUrl, pictureData' },
  )
  .refine((body) => body.pictureUrl === undefined || body.pictureData === undefined, {
    message: 'give pictureUrl or pictureData, not both',
    path: ['pictureData'],
  });

/** `GET /contacts/profile` (extension): a contact's picture and about. */
export const contactProfileQuerySchema = z.strictObject({
  sessionId: sessionIdField,
  contact: recipientField,
});

/** `POST /contacts/block` and `/contacts/unblock` (extension). */
export const contactBlockSchema = z.strictObject({
  sessionId: sessionIdField,
  contact: recipientField,
});

export const PROFILE_FIELDS = ['name', 'about', 'picture'] as const;

/** The number's own profile as WhatsApp has it. */
export const profileSchema = z.object({
  /** The display name (push name), or null before one is known. */
  name: z.string().nullable(),
  about: z.string().nullable(),
  /** A short-lived URL of the picture on WhatsApp's servers, or null when there is none. */
  pictureUrl: z.string().nullable(),
});

export const profileUpdateResultSchema = z.object({ updated: z.array(z.enum(PROFILE_FIELDS)) });

export const contactProfileSchema = z.object({
  contact: z.string(),
  /** Null when the contact has none, or hides it from this number. */
  pictureUrl: z.string().nullable(),
  about: z.string().nullable(),
  /** When the about was set (ISO 8601), when WhatsApp says. */
  aboutSetAt: z.string().nullable(),
});

export const contactBlockResultSchema = z.object({ contact: z.string(), blocked: z.boolean() });

/** The change a `profile.update` command carries (the picture's bytes base64, or its URL). */
export const profileChangeSchema = z.object({
  name: z.string().optional(),
  about: z.string().optional(),
  pictureUrl: z.string().optional(),
  pictureData: z.string().optional(),
});
export type ProfileChange = z.output<typeof profileChangeSchema>;
