import { z } from 'zod';
import { ApiError } from './api-error';
import { sendMediaSchema, sendTextSchema } from './schemas/messages';
import { sessionBodySchema } from './schemas/common';
import { updateWebhookSchema } from './schemas/webhook';
import { parseInput, pointer, validationFailure } from './validation';

const PHONE = '254712345678';

/** The ApiError parseInput throws for `input` (fails the test if it does not throw one). */
function rejection(schema: z.ZodType, input: unknown, what?: string): ApiError {
  try {
    parseInput(schema, input, what);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected parseInput to reject the input');
}

describe('parseInput', () => {
  it('returns the parsed value, defaults applied, when the input is valid', () => {
    expect(parseInput(sendTextSchema, { to: PHONE, text: 'Habari' })).toEqual({
      sessionId: 'default',
      to: PHONE,
      text: 'Habari',
    });
  });

  it('throws a 400 whose message names what was invalid and summarises every problem', () => {
    const error = rejection(sendTextSchema, { to: PHONE }, 'query');
    expect(error.status).toBe(400);
    expect(error.message).toBe('Invalid query: /text: required string is missing');
    expect(error.toBody()).toEqual({
      message: 'Invalid query: /text: required string is missing',
      error: {
        code: 'validation_error',
        details: [{ path: '/text', problem: 'required string is missing' }],
      },
    });
  });

  it('calls the input "request body" unless told otherwise', () => {
    expect(rejection(sendTextSchema, {}).message).toMatch(/^Invalid request body: /);
  });

  it('names the root as "/" in the summary when the input itself is wrong', () => {
    const error = rejection(z.string().min(3, 'too short'), 'ab');
    expect(error.details).toEqual([{ path: '', problem: 'too short' }]);
    expect(error.message).toBe('Invalid request body: /: too short');
  });
});

describe('error code of a rejected input', () => {
  it.each([
    ['invalid_phone', sendTextSchema, { to: '+254 712 345 678', text: 'hi' }],
    ['invalid_session_id', sendTextSchema, { sessionId: 'no spaces', to: PHONE, text: 'hi' }],
    ['invalid_media_url', sendMediaSchema, { to: PHONE, url: 'ftp://files.example.test/a.png' }],
    ['invalid_webhook_url', updateWebhookSchema, { url: 'not a url' }],
  ])('is %s when that is the only kind of problem', (code, schema, input) => {
    const error = rejection(schema, input);
    expect(error.code).toBe(code);
    expect(error.status).toBe(400);
    expect(error.details).toHaveLength(1);
  });

  it('stays specific when several problems all have the same specific code', () => {
    const schema = z.strictObject({ a: sendTextSchema.shape.to, b: sendTextSchema.shape.to });
    const error = rejection(schema, { a: '123', b: 'abc' });
    expect(error.code).toBe('invalid_phone');
    expect((error.details as { path: string }[]).map((detail) => detail.path)).toEqual(['/a', '/b']);
  });

  it('is validation_error when specific problems of different kinds are mixed', () => {
    const error = rejection(sendTextSchema, { sessionId: 'bad id', to: '123', text: 'hi' });
    expect(error.code).toBe('validation_error');
    expect(error.details).toEqual([
      { path: '/sessionId', problem: expect.stringContaining('sessionId must be 1 to 64 characters') },
      { path: '/to', problem: expect.stringContaining('7 to 15 digits') },
    ]);
  });

  it('is validation_error when a specific problem comes with a generic one (a missing field)', () => {
    const error = rejection(sendTextSchema, { to: '123' });
    expect(error.code).toBe('validation_error');
    expect(error.details).toEqual([
      { path: '/to', problem: expect.stringContaining('7 to 15 digits') },
      { path: '/text', problem: 'required string is missing' },
    ]);
  });

  it('is validation_error for a specific problem next to an unknown field', () => {
    const error = rejection(sendTextSchema, { to: '123', text: 'hi', priority: 'high' });
    expect(error.code).toBe('validation_error');
  });

  it('is validation_error for generic problems only', () => {
    expect(rejection(sendTextSchema, { to: PHONE, text: '' }).code).toBe('validation_error');
  });
});

describe('problem details', () => {
  it('reports each unknown key as its own problem, at the key', () => {
    const error = rejection(sendTextSchema, { to: PHONE, text: 'hi', colour: 'red', size: 3 });
    expect(error.code).toBe('validation_error');
    expect(error.details).toEqual([
      { path: '/colour', problem: 'unknown field; remove it (check the spelling against the API reference)' },
      { path: '/size', problem: 'unknown field; remove it (check the spelling against the API reference)' },
    ]);
  });

  it('escapes "~" as ~0 and "/" as ~1 in the paths (RFC 6901), "~" first', () => {
    const error = rejection(sessionBodySchema, { 'a/b': 1, 'c~d': 2, '~/': 3, '~1': 4 });
    expect((error.details as { path: string }[]).map((detail) => detail.path)).toEqual([
      '/a~1b',
      '/c~0d',
      '/~0~1',
      '/~01',
    ]);
  });

  it('locates nested problems by array index and key', () => {
    const schema = z.strictObject({ items: z.array(z.strictObject({ name: z.string() })) });
    const error = rejection(schema, { items: [{ name: 'ok' }, { name: 'ok', 'x/y': true }, {}] });
    expect(error.details).toEqual([
      { path: '/items/1/x~1y', problem: expect.stringContaining('unknown field') },
      { path: '/items/2/name', problem: 'required string is missing' },
    ]);
  });

  it('says a missing field is missing', () => {
    const schema = z.strictObject({ name: z.string(), count: z.number() });
    expect(rejection(schema, {}).details).toEqual([
      { path: '/name', problem: 'required string is missing' },
      { path: '/count', problem: 'required number is missing' },
    ]);
  });

  // Regression: issues carry their input, so a present value of the wrong type is not reported as missing.
  it('says a present value of the wrong type has the wrong type, not that it is missing', () => {
    const schema = z.strictObject({ name: z.string(), count: z.number() });
    expect(rejection(schema, { name: 5, count: 'three' }).details).toEqual([
      { path: '/name', problem: 'expected string' },
      { path: '/count', problem: 'expected number' },
    ]);
    expect(rejection(sendTextSchema, { to: PHONE, text: null }).details).toEqual([
      { path: '/text', problem: 'expected string' },
    ]);
    expect(rejection(sendTextSchema, 'not an object').message).toBe(
      'Invalid request body: /: expected object',
    );
  });

  it('uses the schema message for other problems', () => {
    const error = rejection(sendTextSchema, { to: PHONE, text: 'x'.repeat(65_537) });
    expect(error.details).toEqual([{ path: '/text', problem: 'text must be at most 65536 characters' }]);
  });
});

describe('validationFailure', () => {
  it('builds the same 400 from issues gathered elsewhere', () => {
    const result = sendTextSchema.safeParse({ to: 'abc', text: 'hi' });
    if (result.success) throw new Error('expected a failure');
    const error = validationFailure(result.error.issues, 'arguments');
    expect(error).toBeInstanceOf(ApiError);
    expect(error.code).toBe('invalid_phone');
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/^Invalid arguments: \/to: /);
  });
});

describe('pointer', () => {
  it('is empty for the root and one /-prefixed token per step', () => {
    expect(pointer([])).toBe('');
    expect(pointer(['actions', 2, 'url'])).toBe('/actions/2/url');
    expect(pointer(['a~/b'])).toBe('/a~0~1b');
  });
});
