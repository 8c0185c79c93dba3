import 'reflect-metadata';
import { type CommandReply, replyError, replyOk } from '@jumbe/contracts';
import { shardOf, shardSubject } from '@jumbe/domain';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { readdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createHttpApp } from '../bootstrap/create-http-app';
import { GatewayModule } from '../gateway.module';
import { MemoryGatewayWorld } from '../test-support/memory-gateway-ports';

/**
 * Multipart media sends (issue 30 item 4), in process: the real multipart parsing and the real
 * folder upload store of the all-in-one; the worker is a bus handler that reads the stored file
 * the way a worker does, by the name the command carries.
 */
jest.setTimeout(30_000);

const BOUNDARY = 'jumbe-test-boundary';
const LIMIT = 64 * 1024;

type Part =
  { name: string; value: string } | { name: string; file: Buffer; fileName?: string; type?: string };

function form(parts: Part[]): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    if ('value' in part) {
      chunks.push(
        Buffer.from(
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`,
        ),
      );
    } else {
      chunks.push(
        Buffer.from(
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.fileName ?? 'photo.jpg'}"\r\nContent-Type: ${part.type ?? 'image/jpeg'}\r\n\r\n`,
        ),
        part.file,
        Buffer.from('\r\n'),
      );
    }
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

describe('multipart media sends (memory ports, inject)', () => {
  let world: MemoryGatewayWorld;
  let app: NestFastifyApplication;
  /** What the worker read of each send: the command's message and the stored file's bytes. */
  let received: { message: Record<string, unknown>; bytes: Buffer | null }[];

  beforeEach(async () => {
    world = new MemoryGatewayWorld();
    received = [];
    const ports = world.ports();
    const config = { ...ports.config, mediaMaxBytes: LIMIT };
    app = await createHttpApp(GatewayModule.register({ ...ports, config }), { ...ports, config });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });

  afterEach(async () => {
    await app.close();
  });

  const workerAnswers = async (accountId: string, reply: CommandReply = sentOk) => {
    await world.bus.serve(shardSubject(shardOf(accountId, 'default')), async (command) => {
      const message = (command as { message: Record<string, unknown> }).message;
      const upload = message['upload'] as { name: string } | undefined;
      const opened = upload ? await world.uploads.open(upload.name) : null;
      const chunks: Buffer[] = [];
      if (opened) for await (const chunk of opened.data) chunks.push(chunk as Buffer);
      received.push({ message, bytes: opened ? Buffer.concat(chunks) : null });
      return reply;
    });
  };
  const sentOk = replyOk({ key: { remoteJid: '254711111111@s.whatsapp.net', fromMe: true, id: 'M1' } });

  const upload = (
    key: string,
    payload: Buffer | Readable,
    headers: Record<string, string> = {},
    kind = 'media',
  ) =>
    app.inject({
      method: 'POST',
      url: `/api/v1/messages/${kind}`,
      headers: { 'x-api-key': key, 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, ...headers },
      payload,
    });
  const storedFiles = () => readdirSync(world.uploadDir);

  it('sends the uploaded file to the worker byte for byte, typed and named by its part, then removes it', async () => {
    const { accountId, key } = world.addCustomer();
    await workerAnswers(accountId);
    const file = Buffer.from(Array.from({ length: 5_000 }, (_, i) => i % 251));
    const response = await upload(
      key,
      form([
        { name: 'to', value: '254711111111' },
        { name: 'caption', value: 'Receipt' },
        { name: 'file', file, fileName: 'receipt.png', type: 'image/png' },
      ]),
    );
    expect(response.statusCode).toBe(200);
    expect(response.json().data.key.id).toBe('M1');
    expect(received).toHaveLength(1);
    expect(received[0]?.bytes?.equals(file)).toBe(true);
    expect(received[0]?.message).toMatchObject({
      kind: 'media',
      to: '254711111111',
      type: 'image',
      caption: 'Receipt',
      mimetype: 'image/png',
      upload: { size: file.length, fileName: 'receipt.png' },
    });
    expect(received[0]?.message).not.toHaveProperty('url');
    expect(storedFiles()).toEqual([]);
  });

  it('takes the JSON body’s fields as text parts: a voice note with ptt=true', async () => {
    const { accountId, key } = world.addCustomer();
    await workerAnswers(accountId);
    const response = await upload(
      key,
      form([
        { name: 'file', file: Buffer.from('OggS....'), fileName: 'note.ogg', type: 'audio/ogg' },
        { name: 'to', value: '254711111111' },
        { name: 'type', value: 'audio' },
        { name: 'ptt', value: 'true' },
      ]),
    );
    expect(response.statusCode).toBe(200);
    expect(received[0]?.message).toMatchObject({ type: 'audio', ptt: true, mimetype: 'audio/ogg' });
  });

  it.each([
    ['no file part', [{ name: 'to', value: '254711111111' }], '/file'],
    [
      'two file parts',
      [
        { name: 'to', value: '254711111111' },
        { name: 'file', file: Buffer.from('one') },
        { name: 'file', file: Buffer.from('two') },
      ],
      '/file',
    ],
    [
      'an empty file',
      [
        { name: 'to', value: '254711111111' },
        { name: 'file', file: Buffer.alloc(0) },
      ],
      '/file',
    ],
    [
      'a file under another name',
      [
        { name: 'to', value: '254711111111' },
        { name: 'photo', file: Buffer.from('x') },
      ],
      '/photo',
    ],
    [
      'a url beside the file',
      [
        { name: 'to', value: '254711111111' },
        { name: 'url', value: 'https://cdn.example.com/a.jpg' },
        { name: 'file', file: Buffer.from('x') },
      ],
      '/url',
    ],
    [
      'a sticker that is not WebP',
      [
        { name: 'to', value: '254711111111' },
        { name: 'type', value: 'sticker' },
        { name: 'file', file: Buffer.from('x'), type: 'image/png' },
      ],
      '/mimetype',
    ],
  ] as [string, Part[], string][])(
    'refuses %s with 400, sends nothing, logs the failure, keeps no file',
    async (_, parts, path) => {
      const { accountId, key } = world.addCustomer();
      await workerAnswers(accountId);
      const response = await upload(key, form(parts));
      expect(response.statusCode).toBe(400);
      expect(response.json().error.code).toBe('validation_error');
      expect(response.json().error.details).toEqual([expect.objectContaining({ path })]);
      expect(received).toEqual([]);
      expect(storedFiles()).toEqual([]);
      expect(world.failures).toEqual([
        expect.objectContaining({ accountId, type: 'media', code: 'validation_error' }),
      ]);
    },
  );

  it('answers 413 to a file over the limit while streaming it, and stops reading the body', async () => {
    const { accountId, key } = world.addCustomer();
    await workerAnswers(accountId);
    // A real socket (inject would buffer the payload first): 64 MiB offered in 64 KiB writes, each
    // after the last drained, until the answer comes or the connection closes.
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as AddressInfo;
    const head = Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="to"\r\n\r\n254711111111\r\n` +
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
    );
    const chunk = Buffer.alloc(64 * 1024, 7);
    let written = 0;
    const answer = await new Promise<{ status: number; body: string; connection: string | undefined }>(
      (resolve, reject) => {
        const request = http.request({
          port,
          method: 'POST',
          path: '/api/v1/messages/media',
          headers: {
            'x-api-key': key,
            'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
            'content-length': String(head.length + 1024 * chunk.length),
          },
        });
        let answered = false;
        request.on('response', (response) => {
          answered = true;
          let body = '';
          response.on('data', (data: Buffer) => (body += data.toString()));
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, body, connection: response.headers['connection'] }),
          );
        });
        // The gateway may close the connection while the client is still writing: an EPIPE or a
        // reset before the answer is read is the server having stopped reading, which is the point.
        request.on('error', (error: NodeJS.ErrnoException) =>
          answered
            ? undefined
            : ['EPIPE', 'ECONNRESET'].includes(error.code ?? '')
              ? resolve({ status: 0, body: '', connection: 'close' })
              : reject(error),
        );
        request.write(head);
        const pump = () => {
          while (!answered && !request.destroyed && written < 1024 * chunk.length) {
            written += chunk.length;
            if (!request.write(chunk)) return void request.once('drain', pump);
          }
        };
        pump();
      },
    );
    if (answer.status !== 0) {
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body).error.code).toBe('payload_too_large');
    }
    expect(answer.connection).toBe('close');
    // Stopped far short of the 64 MiB offered: what was written beyond the limit sits in loopback
    // socket buffers (Linux autotunes them to several MiB each way), not in the gateway.
    expect(written).toBeLessThan(16 * 1024 * 1024);
    expect(received).toEqual([]);
    expect(storedFiles()).toEqual([]);
  });

  it('takes a file of exactly the limit', async () => {
    const { accountId, key } = world.addCustomer();
    await workerAnswers(accountId);
    const file = Buffer.alloc(LIMIT, 1);
    const response = await upload(
      key,
      form([
        { name: 'to', value: '254711111111' },
        { name: 'file', file },
      ]),
    );
    expect(response.statusCode).toBe(200);
    expect(received[0]?.bytes?.length).toBe(LIMIT);
  });

  it('records a send the worker refuses as a failed send and removes the file', async () => {
    const { accountId, key } = world.addCustomer();
    await workerAnswers(accountId, replyError('session_not_connected', 'Session "default" is not connected'));
    const response = await upload(
      key,
      form([
        { name: 'to', value: '254711111111' },
        { name: 'file', file: Buffer.from('x') },
      ]),
    );
    expect(response.statusCode).toBe(409);
    expect(world.failures).toEqual([
      expect.objectContaining({ type: 'media', code: 'session_not_connected' }),
    ]);
    expect(storedFiles()).toEqual([]);
  });

  it('replays an Idempotency-Key for the same fields and file, and refuses it for another file', async () => {
    const { accountId, key } = world.addCustomer();
    await workerAnswers(accountId);
    const body = (file: string) =>
      form([
        { name: 'to', value: '254711111111' },
        { name: 'file', file: Buffer.from(file) },
      ]);
    const first = await upload(key, body('same'), { 'idempotency-key': 'up-1' });
    const again = await upload(key, body('same'), { 'idempotency-key': 'up-1' });
    const other = await upload(key, body('other'), { 'idempotency-key': 'up-1' });
    expect(first.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect(other.statusCode).toBe(409);
    expect(received).toHaveLength(1);
    expect(storedFiles()).toEqual([]);
  });

  it('refuses multipart on the other send routes with 415', async () => {
    const { accountId, key } = world.addCustomer();
    await workerAnswers(accountId);
    const response = await upload(key, form([{ name: 'to', value: '254711111111' }]), {}, 'text');
    expect(response.statusCode).toBe(415);
    expect(received).toEqual([]);
  });

  it('answers 401 to a bad key before reading the file', async () => {
    const response = await upload('not-a-key', form([{ name: 'file', file: Buffer.from('x') }]));
    expect(response.statusCode).toBe(401);
    expect(storedFiles()).toEqual([]);
  });
});
