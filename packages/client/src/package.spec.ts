// The package as a user gets it: `npm pack`, installed from the tarball into a fresh folder, then
// used from plain Node and from TypeScript, with nothing of this repository on the module path.
// Offline: its dependencies are put in place first, copied from the repository's node_modules (the
// versions `npm ci` installed from the registry), because an offline install cannot resolve a
// version range without the registry's metadata, which `npm ci` never fetches (a fresh CI machine
// has none in its cache).
import { execFile, execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const packageDir = join(__dirname, '..');
const repositoryRoot = join(packageDir, '../..');
const run = promisify(execFile);

let folder: string;
let packedFiles: string[];

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'jumbe-client-'));
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', folder], {
      cwd: packageDir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  ) as { filename: string; files: { path: string }[] }[];
  if (!packed) throw new Error('npm pack wrote no tarball');
  packedFiles = packed.files.map((file) => file.path);
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  seedDependencies(folder, dependenciesOf(packageDir));
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', join(folder, packed.filename)], {
    cwd: folder,
    stdio: 'ignore',
  });
}, 120_000);

afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The `dependencies` a package declares (names only). */
function dependenciesOf(dir: string): string[] {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  return Object.keys(manifest.dependencies ?? {});
}

/** Copies `names` and what they depend on from the repository's node_modules into `folder`'s. */
function seedDependencies(folder: string, names: string[]): void {
  for (const name of names) {
    const target = join(folder, 'node_modules', name);
    if (existsSync(target)) continue;
    const source = join(repositoryRoot, 'node_modules', name);
    // Not hoisted: it came along inside the package that needs it.
    if (!existsSync(source)) continue;
    cpSync(source, target, { recursive: true, dereference: true });
    seedDependencies(folder, dependenciesOf(source));
  }
}

/** Runs `script` with Node in the consumer folder and parses what it prints as JSON. */
async function inConsumer(script: string, env: Record<string, string> = {}): Promise<any> {
  const { stdout } = await run(process.execPath, ['-e', script], {
    cwd: folder,
    env: { ...process.env, ...env },
  });
  return JSON.parse(stdout);
}

describe('@jumbe/client packed for npm', () => {
  it('ships its build, the Postman collection and the README, and no sources or tests', () => {
    expect(packedFiles).toEqual(
      expect.arrayContaining([
        'dist/index.js',
        'dist/index.d.ts',
        'dist/webhooks.js',
        'dist/webhook-receiver/verify-delivery.js',
        'jumbe.postman_collection.json',
        'README.md',
        'package.json',
      ]),
    );
    expect(packedFiles.filter((path) => path.endsWith('.spec.ts') || path.startsWith('src/'))).toEqual([]);
  });

  describe('calling an API', () => {
    let server: Server;
    const received: { method?: string; url?: string; headers: IncomingHttpHeaders; body: string }[] = [];

    beforeAll(async () => {
      server = createServer((request, response) => {
        let body = '';
        request.on('data', (chunk) => (body += chunk));
        request.on('end', () => {
          received.push({ method: request.method, url: request.url, headers: request.headers, body });
          response.writeHead(request.url?.startsWith('/api/v1/messages') ? 409 : 200, {
            'content-type': 'application/json',
          });
          response.end(
            request.url?.startsWith('/api/v1/messages')
              ? JSON.stringify({ message: 'Not connected.', error: { code: 'session_not_connected' } })
              : JSON.stringify({ data: { sessionId: 'shop', state: 'connected' } }),
          );
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    });
    afterAll(() => new Promise((resolve) => server.close(resolve)));

    it('sends the key, the query and the JSON body, and returns data or the error envelope', async () => {
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const result = await inConsumer(
        `const { createJumbeClient } = require('@jumbe/client');
         const client = createJumbeClient({ baseUrl: process.env.BASE_URL, apiKey: 'jmb_test' });
         (async () => {
           const status = await client.GET('/api/v1/session/status', { params: { query: { sessionId: 'shop' } } });
           const sent = await client.POST('/api/v1/messages/text', { body: { sessionId: 'shop', to: '254711111111', text: 'hi' } });
           console.log(JSON.stringify({ status: status.data, sent: sent.error, code: sent.response.status }));
         })();`,
        { BASE_URL: baseUrl },
      );
      expect(result).toEqual({
        status: { data: { sessionId: 'shop', state: 'connected' } },
        sent: { message: 'Not connected.', error: { code: 'session_not_connected' } },
        code: 409,
      });
      expect(received.map(({ method, url }) => `${method} ${url}`)).toEqual([
        'GET /api/v1/session/status?sessionId=shop',
        'POST /api/v1/messages/text',
      ]);
      expect(received.map((request) => request.headers['x-api-key'])).toEqual(['jmb_test', 'jmb_test']);
      expect(received[1]?.headers['content-type']).toBe('application/json');
      expect(JSON.parse(received[1]?.body ?? '')).toEqual({
        sessionId: 'shop',
        to: '254711111111',
        text: 'hi',
      });
    });
  });

  it('verifies a signed webhook delivery and refuses a tampered one (@jumbe/client/webhooks)', async () => {
    const secret = 'whsec_client-package-test';
    const timestamp = new Date().toISOString();
    const body = JSON.stringify({
      event: 'webhook.test',
      deliveryId: 'dlv_1',
      timestamp: new Date().toISOString(),
      customerId: 'acc_1',
      sessionId: 'shop',
    });
    const signature = `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
    const result = await inConsumer(
      `const { verifyDelivery, WebhookVerificationError } = require('@jumbe/client/webhooks');
       const headers = { 'x-service-signature': process.env.SIGNATURE, 'x-service-timestamp': process.env.TIMESTAMP,
         'x-service-event': 'webhook.test', 'x-service-delivery': 'dlv_1' };
       const ok = verifyDelivery({ body: process.env.BODY, headers, secret: process.env.SECRET });
       let refused;
       try { verifyDelivery({ body: process.env.BODY.replace('shop', 'shoq'), headers, secret: process.env.SECRET }); }
       catch (error) { refused = error instanceof WebhookVerificationError && error.reason; }
       console.log(JSON.stringify({ event: ok.event, deliveryId: ok.deliveryId, sessionId: ok.payload.sessionId, refused }));`,
      { SECRET: secret, TIMESTAMP: timestamp, SIGNATURE: signature, BODY: body },
    );
    expect(result).toEqual({
      event: 'webhook.test',
      deliveryId: 'dlv_1',
      sessionId: 'shop',
      refused: 'bad_signature',
    });
  });

  it('type-checks a TypeScript consumer against the shipped declarations, refusing unknown routes', async () => {
    writeFileSync(
      join(folder, 'consumer.ts'),
      `import { createJumbeClient, type Session, type Usage, type ErrorBody, type WebhookEvent } from '@jumbe/client';
       import { verifyDelivery } from '@jumbe/client/webhooks';
       const client = createJumbeClient({ baseUrl: 'http://localhost:8080', apiKey: 'k' });
       export async function main(): Promise<string> {
         const { data, error } = await client.GET('/api/v1/sessions');
         const sessions: Session[] = data?.data ?? [];
         const envelope: ErrorBody | undefined = error;
         const usage: Usage | undefined = (await client.GET('/api/v1/usage')).data?.data;
         // @ts-expect-error not a route of the document
         await client.GET('/api/v1/no-such-route');
         const delivery = verifyDelivery({ body: '', headers: {}, secret: 's' });
         const event: WebhookEvent = delivery.payload;
         const text = event.event === 'message.received' ? event.message.text : '';
         return [sessions[0]?.state, envelope?.error.code, usage?.apiHits, text].join();
       }`,
    );
    writeFileSync(
      join(folder, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          target: 'ES2022',
          module: 'commonjs',
          moduleResolution: 'node',
          typeRoots: [join(repositoryRoot, 'node_modules/@types')],
          types: ['node'],
        },
        files: ['consumer.ts'],
      }),
    );
    const tsc = require.resolve('typescript/bin/tsc');
    await expect(run(process.execPath, [tsc, '-p', folder], { cwd: folder })).resolves.toBeDefined();
  }, 60_000);
});
