import { uploadBucketName } from '@jumbe/contracts';
import type { ServiceProcess } from '@jumbe/testing';
import { connect } from 'nats';
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createAccount } from './support/operator';
import { linkSession, randomPhone } from './support/sandbox-helpers';
import { NATS_URL, startAllInOne, startDistributed, type Topology } from './support/topology';

const MiB = 1024 * 1024;
/** Room for the 90 MiB upload below (the default limit is 64 MiB). */
const UPLOAD_LIMIT = 128 * MiB;

/**
 * Media uploads (issue 30 item 4) on both topologies with the sandbox network: a 5 MiB file sent
 * as multipart reaches the worker by reference (the sandbox's outbox records it), counts like a
 * JSON send, and leaves nothing in the uploads store (the data dir's folder in the all-in-one, the
 * JetStream Object Store bucket between processes). A 30 MiB upload does not grow the gateway's
 * resident memory by the file's size: it is streamed, never held whole.
 */
describe.each([
  ['all-in-one', () => startAllInOne({ JUMBE_MEDIA_MAX_BYTES: String(UPLOAD_LIMIT) })],
  ['distributed', () => startDistributed(1, { JUMBE_MEDIA_MAX_BYTES: String(UPLOAD_LIMIT) }, 1)],
] as [string, () => Promise<Topology & { dataDir?: string; deployment?: string }>][])(
  'media uploads (%s, sandbox)',
  (name, start) => {
    let running: (Topology & { dataDir?: string; deployment?: string }) | undefined;

    beforeAll(async () => {
      running = await start();
    }, 180_000);
    afterAll(async () => {
      await running?.stop();
    });

    const gatewayProcess = (): ServiceProcess => {
      const process = running?.processes.find((p) => p.name !== 'worker-1' && !p.name.startsWith('worker'));
      if (!process) throw new Error('no gateway process');
      return process;
    };

    const upload = async (key: string, file: Buffer, fields: Record<string, string>) => {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) form.append(name, value);
      form.append('file', new Blob([file], { type: 'image/jpeg' }), 'photo.jpg');
      const api = running?.gateways[0];
      const response = await fetch(`${api?.baseUrl}/api/v1/messages/media`, {
        method: 'POST',
        headers: { 'x-api-key': key },
        body: form,
      });
      return { status: response.status, body: (await response.json()) as Record<string, any> };
    };

    /** The files left in the uploads store. */
    const storedUploads = async (): Promise<string[]> => {
      if (running?.dataDir) return readdir(join(running.dataDir, 'uploads')).catch(() => []);
      const connection = await connect({ servers: NATS_URL });
      try {
        const bucket = await connection.jetstream().views.os(uploadBucketName(running?.deployment ?? null));
        return (await bucket.list()).filter((entry) => !entry.deleted).map((entry) => entry.name);
      } finally {
        await connection.close();
      }
    };

    it('sends a 5 MiB upload by reference, counts it once, and removes it', async () => {
      const api = running?.gateways[0];
      if (!api || !running) throw new Error('not started');
      const { key } = await createAccount(api, running.adminToken);
      await linkSession(api, key);
      const to = randomPhone();
      const file = randomBytes(5 * MiB);
      const usage = async () => (await api.get('/api/v1/usage', { key })).body.data;
      const before = await usage();

      const sent = await upload(key, file, { to, caption: 'Receipt' });
      expect(sent.status).toBe(200);
      // One API hit for the upload (and one for this read), one message sent: as a JSON send.
      const after = await usage();
      expect(after.apiHits).toBe(before.apiHits + 2);
      expect(after.messagesSent).toBe(before.messagesSent + 1);
      const id: string = sent.body['data'].key.id;
      const outbox = await api.get('/api/v1/sandbox/outbox?limit=5', { key });
      expect(outbox.body.data.find((entry: { id: string }) => entry.id === id)).toMatchObject({
        type: 'media',
        content: {
          type: 'image',
          caption: 'Receipt',
          mimetype: 'image/jpeg',
          upload: { size: 5 * MiB, fileName: 'photo.jpg' },
        },
      });
      expect(await storedUploads()).toEqual([]);
    }, 60_000);

    it('streams 30 and 90 MiB uploads without growing the gateway’s memory with the file size', async () => {
      const api = running?.gateways[0];
      if (!api || !running) throw new Error('not started');
      const { key } = await createAccount(api, running.adminToken);
      await linkSession(api, key);
      const pid = gatewayProcess().pid;
      if (pid === undefined) throw new Error('no gateway pid');
      const rss = async () => {
        const status = await readFile(`/proc/${pid}/status`, 'utf8');
        return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
      };
      /** The gateway's resident memory at its highest during the upload, above where it started. */
      const growthDuring = async (size: number) => {
        const file = randomBytes(size);
        const baseline = await rss();
        let peak = baseline;
        let sampling = true;
        const sampler = (async () => {
          while (sampling) {
            peak = Math.max(peak, await rss());
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
        })();
        const sent = await upload(key, file, { to: randomPhone() });
        sampling = false;
        await sampler;
        expect(sent.status).toBe(200);
        return peak - baseline;
      };
      const small = await growthDuring(30 * MiB);
      const large = await growthDuring(90 * MiB);
      process.stdout.write(
        `${name}: gateway RSS growth during an upload: 30 MiB → ${(small / MiB).toFixed(1)} MiB, 90 MiB → ${(large / MiB).toFixed(1)} MiB\n`,
      );
      // Garbage waiting for a collection is some tens of MiB whatever the size; a file held whole is its size.
      expect(large).toBeLessThan(45 * MiB);
      expect(await storedUploads()).toEqual([]);
    }, 120_000);
  },
);
