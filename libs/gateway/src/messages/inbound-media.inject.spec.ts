import 'reflect-metadata';
import { type CommandReply, replyError, replyOk } from '@jumbe/contracts';
import { shardOf, shardSubject } from '@jumbe/domain';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp } from '../bootstrap/create-http-app';
import { GatewayModule } from '../gateway.module';
import { MemoryGatewayWorld } from '../test-support/memory-gateway-ports';
import pino from 'pino';

/** `GET /messages/media` in process: the headers it streams with and the worker's errors it passes on. */
describe('GET /messages/media (memory ports, inject)', () => {
  let world: MemoryGatewayWorld;
  let app: NestFastifyApplication;

  beforeEach(async () => {
    world = new MemoryGatewayWorld();
    const ports = world.ports();
    app = await createHttpApp(GatewayModule.register(ports), ports);
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });
  afterEach(() => app.close());

  const OBJECT = 'ab'.repeat(32);
  const get = (key: string, query = 'messageId=3A0F') =>
    app.inject({ method: 'GET', url: `/api/v1/messages/media?${query}`, headers: { 'x-api-key': key } });
  const workerAnswers = (accountId: string, reply: CommandReply) =>
    world.bus.serve(shardSubject(shardOf(accountId, 'default')), async () => reply);

  it('streams the stored file with its type, length and a sanitised file name, to a read-only key too', async () => {
    const { accountId, key } = world.addCustomer({ scope: 'read' });
    world.mediaFiles.set(OBJECT, {
      mimetype: 'application/pdf',
      fileName: 'a"b\r\nSet-Cookie: x.pdf',
      data: Buffer.from('%PDF'),
    });
    await workerAnswers(
      accountId,
      replyOk({ object: OBJECT, mimetype: 'application/pdf', fileName: null, size: 4 }),
    );
    const response = await get(key);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/pdf');
    expect(response.headers['content-length']).toBe('4');
    expect(response.headers['content-disposition']).toBe(
      `attachment; filename="a_b__Set-Cookie: x.pdf"; filename*=UTF-8''a%22b__Set-Cookie%3A%20x.pdf`,
    );
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.rawPayload.toString()).toBe('%PDF');
  });

  it('never serves a malformed MIME type as such', async () => {
    const { accountId, key } = world.addCustomer();
    world.mediaFiles.set(OBJECT, { mimetype: 'text/html<script>', fileName: null, data: Buffer.from('x') });
    await workerAnswers(
      accountId,
      replyOk({ object: OBJECT, mimetype: 'text/html<script>', fileName: null, size: 1 }),
    );
    const response = await get(key);
    expect(response.headers['content-type']).toBe('application/octet-stream');
    expect(response.headers['content-disposition']).toBe(
      `attachment; filename="3A0F.bin"; filename*=UTF-8''3A0F.bin`,
    );
  });

  /** The header a stored file named `fileName` of type `mimetype` is served with. */
  const servedAs = async (fileName: string | null, mimetype = 'application/pdf') => {
    const { accountId, key } = world.addCustomer();
    world.mediaFiles.set(OBJECT, { mimetype, fileName, data: Buffer.from('%PDF') });
    await workerAnswers(accountId, replyOk({ object: OBJECT, mimetype, fileName, size: 4 }));
    const response = await get(key);
    return {
      status: response.statusCode,
      type: response.headers['content-type'],
      disposition: response.headers['content-disposition'],
      body: response.rawPayload.toString(),
    };
  };

  it("serves a file whose name has a lone surrogate (any contact's phone can send one), never 500", async () => {
    expect(await servedAs('invoice\ud800.pdf')).toEqual({
      status: 200,
      type: 'application/pdf',
      disposition: `attachment; filename="invoice_.pdf"; filename*=UTF-8''invoice%EF%BF%BD.pdf`,
      body: '%PDF',
    });
    // A name cut at 255 characters is cut between code points, never inside a surrogate pair.
    const long = await servedAs(`${'a'.repeat(254)}\u{1F600}tail.pdf`);
    expect(long.status).toBe(200);
    expect(long.disposition).toContain(`filename*=UTF-8''${'a'.repeat(254)}%F0%9F%98%80`);
    expect(long.disposition).not.toContain('tail');
  });

  it('drops bidirectional controls from the file name: a right-to-left override cannot disguise it', async () => {
    const served = await servedAs('report\u202Efdp.exe\u2066\u200F');
    expect(served.disposition).toBe(`attachment; filename="reportfdp.exe"; filename*=UTF-8''reportfdp.exe`);
  });

  it.each([
    'text/html',
    'image/svg+xml',
    'application/xhtml+xml',
    'text/xml',
    'text/javascript',
    'TEXT/HTML; charset=utf-8',
  ])('serves a sender-chosen active type (%s) as opaque bytes', async (mimetype) => {
    expect((await servedAs('page.html', mimetype)).type).toBe('application/octet-stream');
  });

  it('keeps passive types as the sender gave them', async () => {
    expect((await servedAs(null, 'audio/ogg; codecs=opus')).type).toBe('audio/ogg; codecs=opus');
    expect((await servedAs(null, 'image/png')).type).toBe('image/png');
  });

  it('answers a failing media store 503 without its cause (no server path) and logs it', async () => {
    const ports = world.ports();
    const logged: string[] = [];
    ports.mediaFiles = {
      open: async () => {
        throw new Error("EMFILE: too many open files, scandir '/var/lib/jumbe/media'");
      },
    };
    ports.logger = pino({ level: 'warn' }, { write: (line: string) => void logged.push(line) });
    const failing = await createHttpApp(GatewayModule.register(ports), ports);
    await failing.init();
    await failing.getHttpAdapter().getInstance().ready();
    try {
      const { accountId, key } = world.addCustomer();
      await workerAnswers(
        accountId,
        replyOk({ object: OBJECT, mimetype: 'application/pdf', fileName: null, size: 4 }),
      );
      const response = await failing.inject({
        method: 'GET',
        url: '/api/v1/messages/media?messageId=3A0F',
        headers: { 'x-api-key': key },
      });
      expect(response.statusCode).toBe(503);
      expect(response.json().error.code).toBe('unavailable');
      expect(response.body).not.toContain('/var/lib/jumbe');
      expect(response.body).not.toContain('EMFILE');
      expect(logged.join('\n')).toContain('EMFILE');
    } finally {
      await failing.close();
    }
  });

  it.each([
    ['media_not_found', 404],
    ['media_expired', 410],
    ['media_too_large', 422],
    ['media_download_failed', 502],
  ] as const)("passes the worker's %s on as %i in the error envelope", async (code, status) => {
    const { accountId, key } = world.addCustomer();
    await workerAnswers(accountId, replyError(code, 'as the worker says'));
    const response = await get(key);
    expect(response.statusCode).toBe(status);
    expect(response.json()).toEqual({ message: 'as the worker says', error: { code } });
  });

  it('answers media_busy with 503 and Retry-After', async () => {
    const { accountId, key } = world.addCustomer();
    await workerAnswers(accountId, replyError('media_busy', 'busy'));
    const response = await get(key);
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.json().error.code).toBe('media_busy');
  });

  it('refuses a missing or overlong messageId and unknown parameters with 400', async () => {
    const { key } = world.addCustomer();
    for (const query of ['', `messageId=${'x'.repeat(129)}`, 'messageId=A&type=image']) {
      const response = await get(key, query);
      expect(response.statusCode).toBe(400);
      expect(response.json().error.code).toBe('validation_error');
    }
  });
});
