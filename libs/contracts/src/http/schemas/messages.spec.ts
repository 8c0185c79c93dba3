import type { z } from 'zod';
import { ApiError } from '../api-error';
import type { ValidationProblem } from '../error-codes';
import { parseInput } from '../validation';
import {
  MAX_CAPTION_LENGTH,
  MAX_TEXT_LENGTH,
  MEDIA_TYPES,
  sendInteractiveSchema,
  sendMediaSchema,
  sendTextSchema,
} from './messages';
import { sendContactSchema, sendLocationSchema, sendReactionSchema } from './conversation-messages';

const PHONE = '254712345678';

function rejection(schema: z.ZodType, input: unknown): ApiError {
  try {
    parseInput(schema, input);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected parseInput to reject the input');
}

const paths = (error: ApiError) => (error.details as ValidationProblem[]).map((detail) => detail.path);

describe('send text', () => {
  it('takes text up to 65,536 characters', () => {
    expect(MAX_TEXT_LENGTH).toBe(65_536);
    const text = 'x'.repeat(65_536);
    expect(parseInput(sendTextSchema, { to: PHONE, text })).toEqual({
      sessionId: 'default',
      to: PHONE,
      text,
    });
  });

  it('refuses text of 65,537 characters and empty text', () => {
    const tooLong = rejection(sendTextSchema, { to: PHONE, text: 'x'.repeat(65_537) });
    expect(tooLong.code).toBe('validation_error');
    expect(tooLong.details).toEqual([{ path: '/text', problem: 'text must be at most 65536 characters' }]);
    expect(rejection(sendTextSchema, { to: PHONE, text: '' }).details).toEqual([
      { path: '/text', problem: 'text must not be empty' },
    ]);
  });

  it('counts characters (UTF-16 code units), so multi-byte text is within the limit by length', () => {
    const text = 'é'.repeat(65_536);
    expect(parseInput(sendTextSchema, { to: PHONE, text }).text).toHaveLength(65_536);
  });
});

describe('send media', () => {
  const url = 'https://cdn.example.test/photo.jpg';

  it('defaults the type to image', () => {
    expect(parseInput(sendMediaSchema, { to: PHONE, url })).toEqual({
      sessionId: 'default',
      to: PHONE,
      url,
      type: 'image',
    });
  });

  it.each(MEDIA_TYPES)('accepts type %s', (type) => {
    expect(parseInput(sendMediaSchema, { to: PHONE, url, type }).type).toBe(type);
  });

  it('knows the spec’s image, video, audio and document, and the sticker extension', () => {
    expect([...MEDIA_TYPES]).toEqual(['image', 'video', 'audio', 'document', 'sticker']);
  });

  it.each(['gif', 'IMAGE', 'pdf', ''])('refuses type "%s"', (type) => {
    const error = rejection(sendMediaSchema, { to: PHONE, url, type });
    expect(error.code).toBe('validation_error');
    expect(paths(error)).toEqual(['/type']);
  });

  it('takes a caption up to 1,024 characters and refuses a longer one', () => {
    expect(MAX_CAPTION_LENGTH).toBe(1_024);
    const caption = 'c'.repeat(1_024);
    expect(parseInput(sendMediaSchema, { to: PHONE, url, caption }).caption).toBe(caption);
    const error = rejection(sendMediaSchema, { to: PHONE, url, caption: 'c'.repeat(1_025) });
    expect(error.details).toEqual([{ path: '/caption', problem: 'caption must be at most 1024 characters' }]);
  });

  it('refuses a non-http(s) url as invalid_media_url', () => {
    const error = rejection(sendMediaSchema, { to: PHONE, url: 'file:///etc/passwd' });
    expect(error.code).toBe('invalid_media_url');
    expect(paths(error)).toEqual(['/url']);
  });

  it('checks the mimetype form and the fileName length', () => {
    const ok = parseInput(sendMediaSchema, {
      to: PHONE,
      url,
      type: 'document',
      mimetype: 'application/pdf; charset=binary',
      fileName: 'f'.repeat(255),
    });
    expect(ok.mimetype).toBe('application/pdf; charset=binary');
    expect(paths(rejection(sendMediaSchema, { to: PHONE, url, mimetype: 'pdf' }))).toEqual(['/mimetype']);
    expect(paths(rejection(sendMediaSchema, { to: PHONE, url, fileName: 'f'.repeat(256) }))).toEqual([
      '/fileName',
    ]);
  });
});

describe('send interactive', () => {
  const reply = (id: string, label = `Label ${id}`) => ({ type: 'reply', id, label });
  const message = (actions: unknown[], extra: Record<string, unknown> = {}) => ({
    to: PHONE,
    text: 'Choose one',
    actions,
    ...extra,
  });

  const validActions = [
    { type: 'reply', id: 'yes', label: 'Yes' },
    { type: 'url', label: 'Open', url: 'https://shop.example.test/item/1' },
    {
      type: 'url',
      label: 'Buy',
      url: 'http://shop.example.test/buy',
      merchantUrl: 'https://merchant.example.test',
    },
    { type: 'copy', label: 'Copy code', value: 'PROMO-2026' },
    { type: 'call', label: 'Call us', phoneNumber: '254700000000' },
    {
      type: 'list',
      label: 'Menu',
      sections: [{ title: 'Drinks', rows: [{ id: 'tea', title: 'Tea', description: 'Hot' }] }],
    },
    { type: 'catalog', businessPhoneNumber: '254711111111' },
    { type: 'catalog', businessPhoneNumber: '254711111111', label: 'Shop' },
    { type: 'location_request', label: 'Share location' },
  ];

  it.each(validActions.map((action) => [action.type, action]))('accepts a valid %s action', (_, action) => {
    expect(parseInput(sendInteractiveSchema, message([action])).actions).toEqual([action]);
  });

  it('takes optional title and footer and defaults the session', () => {
    const parsed = parseInput(sendInteractiveSchema, message([reply('a')], { title: 'T', footer: 'F' }));
    expect(parsed).toMatchObject({ sessionId: 'default', title: 'T', footer: 'F' });
  });

  it('takes 1 to 10 actions', () => {
    const ten = Array.from({ length: 10 }, (_, i) => reply(`r${i}`));
    expect(parseInput(sendInteractiveSchema, message(ten)).actions).toHaveLength(10);

    const none = rejection(sendInteractiveSchema, message([]));
    expect(none.details).toEqual([{ path: '/actions', problem: 'actions needs 1 to 10 entries' }]);
    const eleven = rejection(
      sendInteractiveSchema,
      message(Array.from({ length: 11 }, (_, i) => reply(`r${i}`))),
    );
    expect(eleven.details).toEqual([{ path: '/actions', problem: 'actions needs 1 to 10 entries' }]);
  });

  it('refuses a missing actions list', () => {
    const error = rejection(sendInteractiveSchema, { to: PHONE, text: 'Choose' });
    expect(paths(error)).toEqual(['/actions']);
  });

  it.each([
    ['reply without id', { type: 'reply', label: 'Yes' }, '/actions/0/id'],
    ['reply without label', { type: 'reply', id: 'yes' }, '/actions/0/label'],
    ['reply with empty id', { type: 'reply', id: '', label: 'Yes' }, '/actions/0/id'],
    ['url without url', { type: 'url', label: 'Open' }, '/actions/0/url'],
    ['url without label', { type: 'url', url: 'https://a.test' }, '/actions/0/label'],
    ['copy without value', { type: 'copy', label: 'Copy' }, '/actions/0/value'],
    ['copy with empty value', { type: 'copy', label: 'Copy', value: '' }, '/actions/0/value'],
    ['call without phoneNumber', { type: 'call', label: 'Call' }, '/actions/0/phoneNumber'],
    ['list without sections', { type: 'list', label: 'Menu' }, '/actions/0/sections'],
    [
      'list without label',
      { type: 'list', sections: [{ title: 's', rows: [{ id: 'a', title: 'A' }] }] },
      '/actions/0/label',
    ],
    [
      'catalog without businessPhoneNumber',
      { type: 'catalog', label: 'Shop' },
      '/actions/0/businessPhoneNumber',
    ],
    ['location_request without label', { type: 'location_request' }, '/actions/0/label'],
  ])('refuses a %s, at that field', (_, action, path) => {
    const error = rejection(sendInteractiveSchema, message([action]));
    expect(paths(error)).toEqual([path]);
  });

  it('refuses an unknown action type and a field that belongs to another type', () => {
    expect(paths(rejection(sendInteractiveSchema, message([{ type: 'poll', label: 'x' }])))).toEqual([
      '/actions/0/type',
    ]);
    expect(
      paths(
        rejection(
          sendInteractiveSchema,
          message([{ type: 'reply', id: 'a', label: 'A', url: 'https://a.test' }]),
        ),
      ),
    ).toEqual(['/actions/0/url']);
  });

  it('refuses a call or catalog number that is not 7 to 15 digits as invalid_phone', () => {
    const call = rejection(
      sendInteractiveSchema,
      message([{ type: 'call', label: 'Call', phoneNumber: '+2547' }]),
    );
    expect(call.code).toBe('invalid_phone');
    expect(paths(call)).toEqual(['/actions/0/phoneNumber']);
    const catalog = rejection(
      sendInteractiveSchema,
      message([{ type: 'catalog', businessPhoneNumber: '254711111111@s.whatsapp.net' }]),
    );
    expect(catalog.code).toBe('invalid_phone');
  });

  it.each([
    'ftp://files.example.test',
    'javascript:alert(1)',
    'mailto:a@example.test',
    'tel:+254700000000',
    '/relative',
  ])('refuses a url action to %s (http and https only)', (url) => {
    const error = rejection(sendInteractiveSchema, message([{ type: 'url', label: 'Open', url }]));
    expect(error.code).toBe('validation_error');
    expect(error.details).toEqual([
      { path: '/actions/0/url', problem: 'url must be an absolute http:// or https:// URL' },
    ]);
  });

  it('refuses a non-http(s) merchantUrl', () => {
    const error = rejection(
      sendInteractiveSchema,
      message([{ type: 'url', label: 'Open', url: 'https://a.test', merchantUrl: 'ftp://b.test' }]),
    );
    expect(paths(error)).toEqual(['/actions/0/merchantUrl']);
  });

  it('refuses a list without sections and a section without rows', () => {
    const noSections = rejection(
      sendInteractiveSchema,
      message([{ type: 'list', label: 'Menu', sections: [] }]),
    );
    expect(noSections.details).toEqual([
      { path: '/actions/0/sections', problem: 'a list needs at least one section' },
    ]);
    const noRows = rejection(
      sendInteractiveSchema,
      message([
        {
          type: 'list',
          label: 'Menu',
          sections: [
            { title: 'Full', rows: [{ id: 'a', title: 'A' }] },
            { title: 'Empty', rows: [] },
          ],
        },
      ]),
    );
    expect(noRows.details).toEqual([
      { path: '/actions/0/sections/1/rows', problem: 'each section needs at least one row' },
    ]);
  });

  it('refuses a list row without a title', () => {
    const error = rejection(
      sendInteractiveSchema,
      message([{ type: 'list', label: 'Menu', sections: [{ title: 'S', rows: [{ id: 'a' }] }] }]),
    );
    expect(paths(error)).toEqual(['/actions/0/sections/0/rows/0/title']);
  });

  it('reports a duplicate reply id at the duplicate, naming the first use', () => {
    const error = rejection(sendInteractiveSchema, message([reply('yes'), reply('no'), reply('yes')]));
    expect(error.code).toBe('validation_error');
    expect(error.details).toEqual([
      { path: '/actions/2/id', problem: 'id "yes" is already used at /actions/0/id; ids must be unique' },
    ]);
  });

  it('reports a duplicate list row id at the duplicate row, across sections', () => {
    const error = rejection(
      sendInteractiveSchema,
      message([
        {
          type: 'list',
          label: 'Menu',
          sections: [
            {
              title: 'Hot',
              rows: [
                { id: 'tea', title: 'Tea' },
                { id: 'coffee', title: 'Coffee' },
              ],
            },
            {
              title: 'Cold',
              rows: [
                { id: 'juice', title: 'Juice' },
                { id: 'tea', title: 'Iced tea' },
              ],
            },
          ],
        },
      ]),
    );
    expect(error.details).toEqual([
      {
        path: '/actions/0/sections/1/rows/1/id',
        problem: 'id "tea" is already used at /actions/0/sections/0/rows/0/id; ids must be unique',
      },
    ]);
  });

  it('treats reply ids and list row ids as one namespace', () => {
    const error = rejection(
      sendInteractiveSchema,
      message([
        reply('tea'),
        { type: 'list', label: 'Menu', sections: [{ title: 'S', rows: [{ id: 'tea', title: 'Tea' }] }] },
      ]),
    );
    expect(paths(error)).toEqual(['/actions/1/sections/0/rows/0/id']);
  });

  it('reports every duplicate, not only the first', () => {
    const error = rejection(sendInteractiveSchema, message([reply('a'), reply('b'), reply('a'), reply('b')]));
    expect(paths(error)).toEqual(['/actions/2/id', '/actions/3/id']);
  });

  it('accepts the same label on different ids, and ids that differ only in case', () => {
    const parsed = parseInput(sendInteractiveSchema, message([reply('a', 'Same'), reply('A', 'Same')]));
    expect(parsed.actions).toHaveLength(2);
  });

  it('applies the text limit to the interactive body too', () => {
    const error = rejection(sendInteractiveSchema, message([reply('a')], { text: 'x'.repeat(65_537) }));
    expect(paths(error)).toEqual(['/text']);
  });
});

describe('replies: quotedMessageId on every message kind that can quote', () => {
  const bodies: [string, z.ZodType, Record<string, unknown>][] = [
    ['text', sendTextSchema, { to: PHONE, text: 'Yes' }],
    ['media', sendMediaSchema, { to: PHONE, url: 'https://cdn.example.test/a.jpg' }],
    [
      'interactive',
      sendInteractiveSchema,
      { to: PHONE, text: 'Pick', actions: [{ type: 'reply', id: 'a', label: 'A' }] },
    ],
    ['location', sendLocationSchema, { to: PHONE, latitude: 1, longitude: 2 }],
    ['contact', sendContactSchema, { to: PHONE, contacts: [{ name: 'A', phoneNumber: PHONE }] }],
  ];

  it.each(bodies)('%s takes an id as sends return and events carry it', (_kind, schema, body) => {
    const parsed = parseInput(schema, { ...body, quotedMessageId: '3EB0C431C26A1916E07E' }) as object;
    expect(parsed).toMatchObject({ quotedMessageId: '3EB0C431C26A1916E07E' });
    expect(parseInput(schema, body)).not.toHaveProperty('quotedMessageId');
  });

  it.each(bodies)('%s refuses an empty, long or malformed id at /quotedMessageId', (_kind, schema, body) => {
    for (const quotedMessageId of ['', 'x'.repeat(129), 'a b', 42, null]) {
      const error = rejection(schema, { ...body, quotedMessageId });
      expect(error.code).toBe('validation_error');
      expect([...new Set(paths(error))]).toEqual(['/quotedMessageId']);
    }
  });

  it('is not on reactions, edits and deletes, which already name their message', () => {
    const body = { to: PHONE, messageId: 'ABC', emoji: '👍', quotedMessageId: 'ABC' };
    expect(paths(rejection(sendReactionSchema, body))).toEqual(['/quotedMessageId']);
  });
});
