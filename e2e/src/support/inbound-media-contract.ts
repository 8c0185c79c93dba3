import type { ApiClient } from '@jumbe/testing';
import { randomBytes } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { expectError } from './expect-error';
import { createAccount, type TestAccount } from './operator';
import { linkSession } from './sandbox-helpers';
import type { Topology } from './topology';

/** The size cap the topology must be started with (JUMBE_MEDIA_MAX_BYTES). */
export const MEDIA_TEST_MAX_BYTES = 64 * 1024;

/**
 * `GET /messages/media` end to end (issue 12, item 12): a contact's file attached on the sandbox
 * network comes back byte for byte, with its headers, through whichever processes the topology
 * has; errors, isolation and counting as the README promises.
 */
export function describeInboundMediaContract(start: () => Promise<Topology>): void {
  let topology: Topology;
  let api: ApiClient;
  let a: TestAccount;
  let b: TestAccount;

  beforeAll(async () => {
    topology = await start();
    api = topology.gateways[0]!;
    [a, b] = await Promise.all([
      createAccount(api, topology.adminToken),
      createAccount(api, topology.adminToken),
    ]);
    await Promise.all([linkSession(api, a.key), linkSession(api, b.key)]);
  });
  afterAll(() => topology?.stop());

  const receive = async (account: TestAccount, media: Record<string, unknown>): Promise<string> => {
    const sent = await api.post('/api/v1/sandbox/inbound', {
      key: account.key,
      body: { from: '254722000077', media },
    });
    expect(sent.status).toBe(200);
    return sent.body.data.id as string;
  };
  const download = (account: TestAccount, messageId: string, gateway = api) =>
    fetch(`${gateway.baseUrl}/api/v1/messages/media?messageId=${encodeURIComponent(messageId)}`, {
      headers: { 'x-api-key': account.key },
    });

  it('streams a received image byte for byte, with its type, length and a file name', async () => {
    const bytes = randomBytes(40_000);
    const id = await receive(a, { type: 'image', mimetype: 'image/png', data: bytes.toString('base64') });
    // Every gateway serves it: the file travels through the media store, not one process's memory.
    for (const gateway of topology.gateways) {
      const response = await download(a, id, gateway);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/png');
      expect(response.headers.get('content-length')).toBe(String(bytes.length));
      expect(response.headers.get('content-disposition')).toBe(
        `attachment; filename="${id}.png"; filename*=UTF-8''${id}.png`,
      );
      expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
    }
    // All-in-one: the store is the data dir, which now holds the file (and its headers).
    const dataDir = (topology as { dataDir?: string }).dataDir;
    if (dataDir) {
      const sizes = await Promise.all(
        (await readdir(join(dataDir, 'media'))).map(
          async (entry) => (await stat(join(dataDir, 'media', entry))).size,
        ),
      );
      expect(sizes).toContain(bytes.length);
    }
  });

  it("names a document after the sender's file name, in ASCII and exactly (RFC 5987)", async () => {
    const bytes = Buffer.from('%PDF-1.4 receipt');
    const id = await receive(a, {
      type: 'document',
      mimetype: 'application/pdf',
      fileName: 'Stakabadhi "Juni" ü.pdf',
      data: bytes.toString('base64'),
    });
    const response = await download(a, id);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="Stakabadhi _Juni_ _.pdf"; filename*=UTF-8''Stakabadhi%20%22Juni%22%20%C3%BC.pdf`,
    );
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('counts each request as one API hit', async () => {
    const id = await receive(a, { type: 'sticker', data: randomBytes(100).toString('base64') });
    const first = await download(a, id);
    const second = await download(a, id);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.headers.get('content-type')).toBe('image/webp');
    expect(
      Number(first.headers.get('x-quota-remaining')) - Number(second.headers.get('x-quota-remaining')),
    ).toBe(1);
  });

  it('is 404 media_not_found for a message without a file, an unknown id, and another account', async () => {
    const withoutFile = await receive(a, { type: 'image' });
    const id = await receive(a, { type: 'audio', data: randomBytes(64).toString('base64') });
    const asJson = async (response: Response) => {
      const text = await response.text();
      return { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
    };
    expectError(await asJson(await download(a, withoutFile)), 404, 'media_not_found');
    expectError(await asJson(await download(a, 'UNKNOWN0123')), 404, 'media_not_found');
    // Account B asks for A's message through its own session: exactly what an unknown id gets.
    expectError(await asJson(await download(b, id)), 404, 'media_not_found');
    expect((await download(a, id)).status).toBe(200);
  });

  it('is 422 media_too_large past JUMBE_MEDIA_MAX_BYTES, and 400 without a messageId', async () => {
    const id = await receive(a, {
      type: 'video',
      data: randomBytes(MEDIA_TEST_MAX_BYTES + 1).toString('base64'),
    });
    const tooLarge = await api.get(`/api/v1/messages/media?messageId=${id}`, { key: a.key });
    expectError(tooLarge, 422, 'media_too_large');
    expectError(await api.get('/api/v1/messages/media', { key: a.key }), 400, 'validation_error');
  });
}
