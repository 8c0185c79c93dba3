import { ApiError } from '@jumbe/contracts';
import Fastify from 'fastify';
import { decodeJsonBody } from './json-body';
import { installRawBodyCollector, RawBody } from './raw-body';

const LIMIT = 1024;

const raw = (text: string, contentType: string, tooLarge = false): RawBody =>
  new RawBody(Buffer.from(text, 'utf8'), contentType, tooLarge);

/** The ApiError `work` throws (failing the test if it throws nothing or something else). */
function apiErrorOf(work: () => unknown): ApiError {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('expected an ApiError, but nothing was thrown');
}

describe('decodeJsonBody', () => {
  it('parses a JSON body sent as application/json', () => {
    expect(decodeJsonBody(raw('{"to":"+255700000001","text":"hi"}', 'application/json'), LIMIT)).toEqual({
      to: '+255700000001',
      text: 'hi',
    });
  });

  it.each(['application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/JSON'])(
    'accepts the JSON content type %p',
    (contentType) => {
      expect(decodeJsonBody(raw('{"a":1}', contentType), LIMIT)).toEqual({ a: 1 });
    },
  );

  it.each(['application/vnd.x+json', 'application/problem+json; charset=utf-8'])(
    'accepts the structured-syntax JSON type %p',
    (contentType) => {
      expect(decodeJsonBody(raw('[1,2]', contentType), LIMIT)).toEqual([1, 2]);
    },
  );

  it('decodes UTF-8 text in the body', () => {
    expect(decodeJsonBody(raw('{"text":"Habari, dunia 👋"}', 'application/json'), LIMIT)).toEqual({
      text: 'Habari, dunia 👋',
    });
  });

  it.each(['application/json', 'text/plain', '', 'multipart/form-data; boundary=x'])(
    'treats an empty body as no body whatever its content type (%p)',
    (contentType) => {
      expect(decodeJsonBody(raw('', contentType), LIMIT)).toBeUndefined();
    },
  );

  it('treats a whitespace-only JSON body as no body', () => {
    expect(decodeJsonBody(raw(' \n\t\r\n ', 'application/json'), LIMIT)).toBeUndefined();
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/jsonp', 'text/json', 'json'])(
    'refuses a non-empty body sent as %p with 415 unsupported_media_type',
    (contentType) => {
      const error = apiErrorOf(() => decodeJsonBody(raw('{"a":1}', contentType), LIMIT));
      expect(error.code).toBe('unsupported_media_type');
      expect(error.status).toBe(415);
      expect(error.message).toContain(`"${contentType}"`);
    },
  );

  it('refuses a non-empty body without any Content-Type with 415, saying so', () => {
    const error = apiErrorOf(() => decodeJsonBody(raw('{"a":1}', ''), LIMIT));
    expect(error.code).toBe('unsupported_media_type');
    expect(error.status).toBe(415);
    expect(error.message).toContain('no Content-Type');
  });

  it.each(['{"a":', "{'a':1}", 'undefined', '{"a":1}}'])(
    'refuses the malformed JSON %p with 400 invalid_json',
    (text) => {
      const error = apiErrorOf(() => decodeJsonBody(raw(text, 'application/json'), LIMIT));
      expect(error.code).toBe('invalid_json');
      expect(error.status).toBe(400);
      expect(error.message).toMatch(/^Request body is not valid JSON: /);
    },
  );

  it('refuses a body over the limit with 413 payload_too_large, naming the limit', () => {
    // What the collector hands over past the limit: no bytes, only the flag.
    const error = apiErrorOf(() =>
      decodeJsonBody(new RawBody(Buffer.alloc(0), 'application/json', true), LIMIT),
    );
    expect(error.code).toBe('payload_too_large');
    expect(error.status).toBe(413);
    expect(error.message).toContain(String(LIMIT));
  });

  it('answers 413 rather than 415 when a too-large body also has the wrong content type', () => {
    const error = apiErrorOf(() => decodeJsonBody(new RawBody(Buffer.alloc(0), 'text/plain', true), LIMIT));
    expect(error.code).toBe('payload_too_large');
  });

  it('passes through a value that was not collected as a raw body (no body at all)', () => {
    expect(decodeJsonBody(undefined, LIMIT)).toBeUndefined();
  });
});

describe('decodeJsonBody on what installRawBodyCollector collects', () => {
  const app = Fastify();
  installRawBodyCollector(app, LIMIT, LIMIT * 4);
  app.post('/echo', async (request) => ({ decoded: decodeJsonBody(request.body, LIMIT) ?? null }));
  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof ApiError) return reply.status(error.status).send(error.toBody());
    return reply.status(500).send({ unexpected: String(error) });
  });

  afterAll(() => app.close());

  it('decodes a JSON body sent with a charset', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      payload: '{"text":"hi"}',
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ decoded: { text: 'hi' } });
  });

  it('turns a body one byte over the limit into 413, and one at the limit into JSON', async () => {
    const atLimit = JSON.stringify({ text: 'x'.repeat(LIMIT - '{"text":""}'.length) });
    const overLimit = JSON.stringify({ text: 'x'.repeat(LIMIT + 1 - '{"text":""}'.length) });
    expect(Buffer.byteLength(atLimit)).toBe(LIMIT);
    expect(Buffer.byteLength(overLimit)).toBe(LIMIT + 1);
    const ok = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: atLimit,
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().decoded.text).toHaveLength(LIMIT - '{"text":""}'.length);

    const over = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: overLimit,
    });
    expect(over.statusCode).toBe(413);
    expect(over.json()).toEqual({
      message: expect.stringContaining(String(LIMIT)),
      error: { code: 'payload_too_large' },
    });
  });

  it('leaves a body sent as text/plain to the 415 judgement instead of rejecting it in the transport', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expect(response.statusCode).toBe(415);
    expect(response.json().error).toEqual({ code: 'unsupported_media_type' });
  });
});
