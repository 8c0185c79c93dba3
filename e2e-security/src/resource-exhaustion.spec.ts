import { type ApiClient, RecordingReceiver, type ServiceProcess } from '@jumbe/testing';
import { randomBytes } from 'node:crypto';
// The end-to-end suites' launchers, reused rather than copied (e2e is an app, not an importable lib).
// eslint-disable-next-line @nx/enforce-module-boundaries
import { NATS_URL, startAllInOne, startDistributed, type Topology } from '../../e2e/src/support/topology';
import { isErrorEnvelope } from './raw-http';
import { hammer, LatencyProbe, ResourceGauge, type ResourceSample } from './resource-usage';
import { type Account, createAccount, eventually, linkSession, randomPhone } from './server';

/** A deployment as this suite needs it: the API, and the processes whose resources are counted. */
interface Deployment {
  topology: Topology;
  serving: ServiceProcess[];
  jetStream?: { url: string; deployment: string };
}

const ENV = { JUMBE_ALLOW_PRIVATE_NETWORKS: 'true' };

const DEPLOYMENTS: Record<string, () => Promise<Deployment>> = {
  'all-in-one': async () => {
    const topology = await startAllInOne(ENV);
    return { topology, serving: topology.processes };
  },
  distributed: async () => {
    const topology = await startDistributed(1, ENV, 1, { dispatchers: 1 });
    return {
      topology,
      serving: topology.processes,
      jetStream: { url: NATS_URL, deployment: topology.deployment },
    };
  },
};

/** The name a contact's phone can send (issue 29): a lone surrogate, which UTF-8 cannot carry. */
const BAD_NAME = 'invoice\ud800.pdf';
const SANE_DISPOSITION = `attachment; filename="invoice_.pdf"; filename*=UTF-8''invoice%EF%BF%BD.pdf`;
/** Large enough that a download is still streaming when a client walks away from it. */
const LARGE_FILE = randomBytes(600 * 1024);

/**
 * One tenant hammers every route that opens a file, a stream or a consumer (media downloads, the
 * QR image, the webhook test, the docs' and dashboard's static files) and the serving processes'
 * descriptors, JetStream consumers and memory stay bounded, and come back down afterwards, while
 * another tenant's requests keep being answered. In both topologies.
 */
describe.each(Object.keys(DEPLOYMENTS))('resource exhaustion (%s)', (name) => {
  let deployment: Deployment;
  let gauge: ResourceGauge;
  let receiver: RecordingReceiver;
  let api: ApiClient;
  let hammering: Account;
  let other: Account;
  let badId: string;
  let largeId: string;

  const media = (id: string, init: RequestInit = {}) =>
    fetch(`${api.baseUrl}/api/v1/messages/media?sessionId=shop&messageId=${id}`, {
      ...init,
      headers: { 'x-api-key': hammering.key },
    });

  /** A document as the contact sends it; returns its message id. */
  const receiveDocument = async (fileName: string, data: Buffer) => {
    const received = await api.post('/api/v1/sandbox/inbound', {
      key: hammering.key,
      body: {
        sessionId: 'shop',
        from: randomPhone(),
        media: { type: 'document', mimetype: 'application/pdf', fileName, data: data.toString('base64') },
      },
    });
    if (received.status !== 200) throw new Error(`inbound: ${received.status} ${received.text}`);
    return received.body.data.id as string;
  };

  beforeAll(async () => {
    deployment = await DEPLOYMENTS[name]!();
    api = deployment.topology.gateways[0]!;
    const admin = { api, adminToken: deployment.topology.adminToken };
    hammering = await createAccount(admin, `exhaust-${name}`);
    other = await createAccount(admin, `bystander-${name}`);
    await linkSession(api, hammering.key, 'shop', randomPhone());
    receiver = await RecordingReceiver.start();
    const webhook = await api.patch('/api/v1/webhook', {
      key: hammering.key,
      body: { url: `${receiver.url}/hook` },
    });
    if (webhook.status !== 200) throw new Error(`webhook: ${webhook.status} ${webhook.text}`);
    // A second session waiting for its link: the one whose QR image is drawn.
    await api.post('/api/v1/session/start', { key: hammering.key, body: { sessionId: 'waiting' } });
    await eventually(
      () => api.get('/api/v1/session/qr?sessionId=waiting', { key: hammering.key }),
      (response) => response.body?.data?.state === 'qr_ready',
    );
    badId = await receiveDocument(BAD_NAME, Buffer.from('%PDF-1.4 bad name'));
    largeId = await receiveDocument('large.pdf', LARGE_FILE);
    gauge = await ResourceGauge.open(
      deployment.serving.map((process) => process.pid!),
      deployment.jetStream,
    );
  }, 240_000);

  afterAll(async () => {
    await gauge?.close();
    await receiver?.close();
    await deployment?.topology.stop();
  });

  /** Waits for the processes to let go of what a burst opened (kept-alive sockets close within 5 s). */
  const settled = (baseline: ResourceSample, slack: number) =>
    eventually(
      () => gauge.sample(),
      (now) =>
        now.descriptors <= baseline.descriptors + slack && now.mediaConsumers <= baseline.mediaConsumers,
      20_000,
    );

  it('serves a document whose file name has a lone surrogate: 200 with a sane header, never 500', async () => {
    const response = await media(badId);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toBe(SANE_DISPOSITION);
    expect(await response.text()).toBe('%PDF-1.4 bad name');
  });

  it('leaves no descriptor and no consumer open after 100 downloads of it', async () => {
    await (await media(badId)).arrayBuffer(); // the connection and the store are warm
    const before = await gauge.sample();
    const { result: statuses, peak } = await gauge.peakWhile(
      (async () => {
        const seen: number[] = [];
        for (let i = 0; i < 100; i += 1) {
          const response = await media(badId);
          await response.arrayBuffer();
          seen.push(response.status);
        }
        return seen;
      })(),
      50,
    );
    const after = await settled(before, 5);
    console.log(
      `${name}: 100 downloads of a file named with a lone surrogate: descriptors ${before.descriptors} → ` +
        `${after.descriptors}, media consumers ${before.mediaConsumers} → peak ${peak.mediaConsumers} → ` +
        `${after.mediaConsumers}`,
    );
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    // A download reads the file without a consumer: none is created, not even for a while.
    expect(peak.mediaConsumers).toBeLessThanOrEqual(before.mediaConsumers);
    expect(after.descriptors).toBeLessThanOrEqual(before.descriptors + 5);
    expect(after.mediaConsumers).toBeLessThanOrEqual(before.mediaConsumers);
  }, 120_000);

  it('stays bounded while one tenant hammers every route that opens a file, a stream or a consumer', async () => {
    const before = await gauge.sample();
    const key = { 'x-api-key': hammering.key };
    const get = (path: string, headers: Record<string, string> = key) =>
      fetch(`${api.baseUrl}${path}`, { headers });
    /** Reads the first bytes of a large download, then hangs up: the server must let go of the file. */
    const abandonedDownload = async () => {
      const controller = new AbortController();
      const response = await media(largeId, { signal: controller.signal });
      await response.body?.getReader().read();
      controller.abort();
      return response;
    };
    const routes: [string, () => Promise<Response>][] = [
      ['media, lone-surrogate name', () => media(badId)],
      ['media, 600 KiB', () => media(largeId)],
      ['media, abandoned mid-body', abandonedDownload],
      ['media, unknown id', () => media('3A0000000000DEADBEEF')],
      ['QR png', () => get('/api/v1/session/qr?sessionId=waiting&format=png')],
      ['QR svg', () => get('/api/v1/session/qr?sessionId=waiting&format=svg')],
      ['webhook test', () => fetch(`${api.baseUrl}/api/v1/webhook/test`, { method: 'POST', headers: key })],
      ['docs asset', () => get('/docs/static/index.css', {})],
      ['dashboard', () => get('/dashboard/', {})],
      ['openapi', () => get('/api/v1/openapi.json', {})],
    ];
    const probe = new LatencyProbe(() => api.get('/api/v1/usage', { key: other.key }));
    const outcomes: { route: string; status: number; envelope: boolean }[] = [];
    const { peak } = await gauge.peakWhile(
      (async () => {
        for (const [route, call] of routes) {
          await hammer(100, 8, async () => {
            const response = await call().catch(() => null);
            if (response === null) return; // the abandoned download's own abort
            const body = await response.text().catch(() => '');
            const envelope = response.status < 400 || isErrorEnvelope(safeJson(body));
            outcomes.push({ route, status: response.status, envelope });
          });
        }
      })(),
    );
    const latency = await probe.stop();
    const after = await settled(before, 10);
    console.log(
      `${name}: ${outcomes.length} hammering requests; descriptors ${before.descriptors} → peak ` +
        `${peak.descriptors} → ${after.descriptors}; media consumers ${before.mediaConsumers} → peak ` +
        `${peak.mediaConsumers} → ${after.mediaConsumers}; RSS ${before.residentMiB} → peak ` +
        `${peak.residentMiB} → ${after.residentMiB} MiB; the other tenant's GET /usage meanwhile: ` +
        `${latency.count} requests, p50 ${latency.p50} ms, p99 ${latency.p99} ms, max ${latency.max} ms`,
    );
    expect(outcomes.filter((outcome) => outcome.status >= 500)).toEqual([]);
    expect(outcomes.filter((outcome) => !outcome.envelope)).toEqual([]);
    // Bounded while it lasts: eight clients at a time hold a few descriptors each, not one per request.
    expect(peak.descriptors - before.descriptors).toBeLessThan(100);
    expect(peak.mediaConsumers).toBeLessThanOrEqual(before.mediaConsumers);
    // And all of it let go afterwards.
    expect(after.descriptors).toBeLessThanOrEqual(before.descriptors + 10);
    expect(after.mediaConsumers).toBeLessThanOrEqual(before.mediaConsumers);
    expect(after.residentMiB - before.residentMiB).toBeLessThan(150 * deployment.serving.length);
    // The other tenant was answered throughout. Generous bounds: the test machine is shared and
    // loaded (measured: p50 0.2–0.4 s, worst 1.6 s all-in-one and 7.3 s distributed on 2 busy cores).
    expect(latency.count).toBeGreaterThan(10);
    expect(latency.failed).toBe(0);
    expect(latency.p50).toBeLessThan(2_000);
    expect(latency.max).toBeLessThan(20_000);
  }, 300_000);
});

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
