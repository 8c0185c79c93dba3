import { type BinaryNode, getMediaKeys } from '@whiskeysockets/baileys';
import { createCipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { request } from 'node:https';
import { MEDIA_HOST_CERT } from './media-certificate';
import { downloadAndDecrypt } from './media-download';
import { EmulatedMediaHost } from './media-host';

/** What Baileys' encryptedStream makes of a file: AES-256-CBC, then the first 10 bytes of the HMAC. */
async function encryptLikeBaileys(plaintext: Buffer) {
  const mediaKey = randomBytes(32);
  const { iv, cipherKey, macKey } = await getMediaKeys(mediaKey, 'document');
  const cipher = createCipheriv('aes-256-cbc', cipherKey, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  const mac = createHmac('sha256', macKey ?? Buffer.alloc(0))
    .update(iv)
    .update(ciphertext)
    .digest()
    .subarray(0, 10);
  const encrypted = Buffer.concat([ciphertext, mac]);
  return {
    encrypted,
    message: {
      mediaKey,
      fileEncSha256: createHash('sha256').update(encrypted).digest(),
      fileSha256: createHash('sha256').update(plaintext).digest(),
      fileLength: plaintext.length,
    },
  };
}

/** POSTs `body` to the host over HTTPS, trusting its certificate the way the preload makes Baileys. */
function upload(host: string, path: string, body: Buffer): Promise<{ status: number; json: any }> {
  const url = new URL(`https://${host}${path}`);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        hostname: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: 'POST',
        ca: MEDIA_HOST_CERT,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString()) }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

describe('the emulated media CDN and a phone downloading from it', () => {
  const host = new EmulatedMediaHost();
  let conn: BinaryNode;
  afterAll(() => host.stop());

  beforeAll(async () => {
    conn = await host.mediaConnNode();
  });

  const hostname = () => (conn.content as BinaryNode[])[0]?.attrs.hostname ?? '';
  const path = (digest: string, auth = conn.attrs.auth ?? '') =>
    `/mms/document/${digest}?auth=${encodeURIComponent(auth)}&token=${digest}`;

  it('takes an upload named by the SHA-256 of its encrypted bytes; the phone decrypts the original', async () => {
    const plaintext = randomBytes(3_000);
    const { encrypted, message } = await encryptLikeBaileys(plaintext);
    const digest = createHash('sha256').update(encrypted).digest('base64url');

    const answer = await upload(hostname(), path(digest), encrypted);

    expect(answer.status).toBe(200);
    expect(answer.json.url).toBe(`https://${hostname()}${answer.json.direct_path}`);
    const document = { ...message, directPath: answer.json.direct_path };
    const downloaded = await downloadAndDecrypt({ documentMessage: document }, (where) => host.fetch(where));
    expect(downloaded.equals(plaintext)).toBe(true);
  });

  it('refuses an upload with another token or a body that does not match its name', async () => {
    const { encrypted } = await encryptLikeBaileys(randomBytes(100));
    const digest = createHash('sha256').update(encrypted).digest('base64url');

    expect((await upload(hostname(), path(digest, 'not-the-token'), encrypted)).status).toBe(401);
    expect(
      (await upload(hostname(), path(digest), Buffer.concat([encrypted, Buffer.from([1])]))).status,
    ).toBe(400);
    expect(host.refused.map((refusal) => refusal.reason)).toEqual(['auth', 'hash mismatch']);
  });

  it('a phone refuses a file whose bytes, MAC or plaintext hash do not match the message', async () => {
    const plaintext = randomBytes(500);
    const { encrypted, message } = await encryptLikeBaileys(plaintext);
    const from = (bytes: Buffer) => () => bytes;
    const tampered = Buffer.from(encrypted);
    tampered[0] = (tampered[0] ?? 0) ^ 1;

    const open = (fields: object, bytes: Buffer) =>
      downloadAndDecrypt({ documentMessage: { ...message, directPath: '/v/x.enc', ...fields } }, from(bytes));
    await expect(open({}, tampered)).rejects.toThrow('fileEncSha256');
    await expect(
      open({ fileEncSha256: createHash('sha256').update(tampered).digest() }, tampered),
    ).rejects.toThrow('MAC');
    await expect(open({ fileSha256: Buffer.alloc(32) }, encrypted)).rejects.toThrow('fileSha256');
    expect((await open({}, encrypted)).equals(plaintext)).toBe(true);
  });
});
