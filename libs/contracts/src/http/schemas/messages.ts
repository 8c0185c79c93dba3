import { z } from 'zod';
import {
  httpUrlField,
  nonEmptyText,
  phoneNumberField,
  quotedMessageIdField,
  recipientField,
  sessionFilterField,
  sessionIdField,
} from './common';

/** CONTRACT §5 limits. */
export const MAX_TEXT_LENGTH = 65_536;
export const MAX_CAPTION_LENGTH = 1_024;
const label = nonEmptyText('label', 256);
const id = nonEmptyText('id', 256);

/** The text message without its sessionId: what crosses the bus to the worker. */
export const textMessageFields = z.strictObject({
  to: recipientField,
  text: nonEmptyText('text', MAX_TEXT_LENGTH),
  quotedMessageId: quotedMessageIdField,
});

// sessionId first, as the API reference has always listed it.
export const sendTextSchema = z.strictObject({ sessionId: sessionIdField, ...textMessageFields.shape });

export const MEDIA_TYPES = ['image', 'video', 'audio', 'document', 'sticker'] as const;

/**
 * A file a customer uploaded (multipart send): the gateway streamed it into the uploads store
 * under `name` (a random 64-hex name) and the worker reads it from there, then removes it. Only
 * the gateway sets this; a JSON body cannot carry it.
 */
export const mediaUploadField = z.strictObject({
  name: z.string().regex(/^[0-9a-f]{64}$/),
  size: z.number().int().min(1),
  /** The part's file name, when it had one: a document's name on the contact's phone. */
  fileName: z.string().min(1).max(255).optional(),
});

/** The media message without its sessionId: what crosses the bus to the worker. */
export const mediaMessageFields = z.strictObject({
  to: recipientField,
  /** Either `url` (fetched by the worker) or `upload` (a file the gateway received): exactly one. */
  url: httpUrlField('invalid_media_url', 'url').optional(),
  upload: mediaUploadField.optional(),
  type: z.enum(MEDIA_TYPES).default('image'),
  caption: z
    .string()
    .max(MAX_CAPTION_LENGTH, `caption must be at most ${MAX_CAPTION_LENGTH} characters`)
    .optional(),
  mimetype: z
    .string()
    .regex(/^[\w.+-]+\/[\w.+-]+(;.*)?$/, 'mimetype must look like type/subtype, e.g. application/pdf')
    .optional(),
  fileName: z.string().min(1).max(255, 'fileName must be at most 255 characters').optional(),
  /** Send audio as a voice note (push-to-talk): shown with a waveform and played inline. */
  ptt: z.boolean().optional(),
  quotedMessageId: quotedMessageIdField,
});

/** What depends on the media type: voice notes are audio; stickers are WebP images without captions. */
export function mediaTypeRules(
  message: Omit<z.output<typeof mediaMessageFields>, 'url' | 'upload'>,
  context: z.RefinementCtx,
): void {
  if (message.ptt && message.type !== 'audio') {
    context.addIssue({
      code: 'custom',
      path: ['ptt'],
      message: 'ptt (a voice note) is only for type "audio"',
    });
  }
  if (message.type === 'sticker' && message.caption) {
    context.addIssue({ code: 'custom', path: ['caption'], message: 'a sticker has no caption' });
  }
  if (message.type === 'sticker' && message.mimetype && message.mimetype !== 'image/webp') {
    context.addIssue({ code: 'custom', path: ['mimetype'], message: 'a sticker must be image/webp' });
  }
}

/** One file on the bus: a URL or an upload, never both, never neither. */
export function oneMediaSource(
  message: Pick<z.output<typeof mediaMessageFields>, 'url' | 'upload'>,
  context: z.RefinementCtx,
): void {
  if ((message.url === undefined) === (message.upload === undefined)) {
    context.addIssue({
      code: 'custom',
      path: ['url'],
      message: 'a media message needs exactly one of url or upload',
    });
  }
}

/** The JSON body: `url` required, no `upload` (only the gateway's multipart parsing sets one). */
export const sendMediaSchema = mediaMessageFields
  .omit({ upload: true })
  .extend({ url: httpUrlField('invalid_media_url', 'url'), sessionId: sessionIdField })
  .superRefine(mediaTypeRules);

/**
 * The fields of a multipart send (`POST /messages/media` with a `file` part): the JSON body's
 * fields but `url`, each a text part (`ptt` is `true` or `false`). The file's type is the part's
 * Content-Type unless `mimetype` says otherwise; its name is the part's file name unless `fileName`.
 */
export const sendMediaUploadFieldsSchema = mediaMessageFields
  .omit({ upload: true, url: true })
  .extend({
    sessionId: sessionIdField,
    ptt: z
      .enum(['true', 'false'], { message: 'ptt must be true or false' })
      .transform((value) => value === 'true')
      .optional(),
  })
  .superRefine(mediaTypeRules);

const listRowSchema = z.strictObject({
  id,
  title: nonEmptyText('title', 256),
  description: z.string().max(512).optional(),
});
const listSectionSchema = z.strictObject({
  title: z.string().max(256),
  rows: z.array(listRowSchema).min(1, 'each section needs at least one row'),
});

export const interactiveActionSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('reply'), id, label }),
  z.strictObject({
    type: z.literal('url'),
    label,
    url: httpUrlField('validation_error', 'url'),
    merchantUrl: httpUrlField('validation_error', 'merchantUrl').optional(),
  }),
  z.strictObject({ type: z.literal('copy'), label, value: nonEmptyText('value', 512) }),
  z.strictObject({ type: z.literal('call'), label, phoneNumber: phoneNumberField }),
  z.strictObject({
    type: z.literal('list'),
    label,
    sections: z.array(listSectionSchema).min(1, 'a list needs at least one section'),
  }),
  z.strictObject({
    type: z.literal('catalog'),
    businessPhoneNumber: phoneNumberField,
    label: label.optional(),
  }),
  z.strictObject({ type: z.literal('location_request'), label }),
]);

/** The interactive message without its sessionId: what crosses the bus to the worker. */
export const interactiveMessageFields = z.strictObject({
  to: recipientField,
  text: nonEmptyText('text', MAX_TEXT_LENGTH),
  title: z.string().max(1024).optional(),
  footer: z.string().max(1024).optional(),
  actions: z
    .array(interactiveActionSchema)
    .min(1, 'actions needs 1 to 10 entries')
    .max(10, 'actions needs 1 to 10 entries'),
  quotedMessageId: quotedMessageIdField,
});

/** Applications route on ids, so a duplicate id would make two choices indistinguishable. */
export function uniqueActionIds(
  message: { actions: z.output<typeof interactiveActionSchema>[] },
  context: z.RefinementCtx,
): void {
  const seen = new Map<string, string>();
  const claim = (value: string, path: (string | number)[]) => {
    const first = seen.get(value);
    if (first !== undefined) {
      context.addIssue({
        code: 'custom',
        path,
        message: `id "${value}" is already used at ${first}; ids must be unique`,
      });
    } else {
      seen.set(value, `/${path.join('/')}`);
    }
  };
  message.actions.forEach((action, a) => {
    if (action.type === 'reply') claim(action.id, ['actions', a, 'id']);
    if (action.type === 'list') {
      action.sections.forEach((section, s) =>
        section.rows.forEach((row, r) => claim(row.id, ['actions', a, 'sections', s, 'rows', r, 'id'])),
      );
    }
  });
}

export const sendInteractiveSchema = interactiveMessageFields
  .extend({ sessionId: sessionIdField })
  .superRefine(uniqueActionIds);

export const failuresQuerySchema = z.strictObject({
  sessionId: sessionFilterField,
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

export type SendTextInput = z.output<typeof sendTextSchema>;
export type SendMediaInput = z.output<typeof sendMediaSchema>;
export type SendInteractiveInput = z.output<typeof sendInteractiveSchema>;
export type InteractiveAction = z.output<typeof interactiveActionSchema>;
