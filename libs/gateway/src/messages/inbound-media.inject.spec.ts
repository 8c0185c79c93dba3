import 'reflect-metadata';
import { type CommandReply, replyError, replyOk } from '@jumbe/contracts';
import { shardOf, shardSubject } from '@jumbe/domain';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp } from '../bootstrap/create-http-app';
import { GatewayModule } from '../gateway.module';
import { MemoryGatewayWorld } from '../test-support/memory-gateway-ports';

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
