import { type ApiClient, RecordingReceiver } from '@jumbe/testing';
import { Client } from 'pg';
import { createAccount, type TestAccount } from './support/operator';
import { eventually, linkSession } from './support/sandbox-helpers';
import { type DistributedTopology, startDistributed } from './support/topology';

/** One span as the OTLP/JSON export carries it, with the service that reported it. */
interface ExportedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

/** OTLP span kinds (opentelemetry-proto trace.proto). */
const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;

/** Decodes every OTLP/JSON trace export the receiver got (`POST /v1/traces`). */
function exportedSpans(receiver: RecordingReceiver): ExportedSpan[] {
  return receiver.at('/v1/traces').flatMap((request) =>
    (request.json?.resourceSpans ?? []).flatMap((resourceSpans: any) => {
      const service = attributesOf(resourceSpans.resource?.attributes)['service.name'] as string;
      return (resourceSpans.scopeSpans ?? []).flatMap((scopeSpans: any) =>
        (scopeSpans.spans ?? []).map((span: any) => ({
          service,
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? '',
          name: span.name,
          kind: span.kind,
          attributes: attributesOf(span.attributes),
        })),
      );
    }),
  );
}

function attributesOf(list: Array<{ key: string; value: Record<string, unknown> }> = []) {
  return Object.fromEntries(list.map(({ key, value }) => [key, Object.values(value)[0]]));
}

/** The one span matching, once exported (spans leave in batches, every 100 ms here). */
async function spanWhere(
  receiver: RecordingReceiver,
  matches: (span: ExportedSpan) => boolean,
): Promise<ExportedSpan> {
  const found = await eventually(
    async () => exportedSpans(receiver).filter(matches),
    (spans) => spans.length > 0,
  );
  expect(found).toHaveLength(1);
  return found[0]!;
}

describe('tracing: one trace per request across gateway, worker, event stream and dispatcher', () => {
  let topology: DistributedTopology;
  let collector: RecordingReceiver;
  let webhooks: RecordingReceiver;
  let api: ApiClient;
  let account: TestAccount;

  beforeAll(async () => {
    // The test's own OTLP/HTTP receiver stands in for a collector.
    collector = await RecordingReceiver.start();
    collector.on('/v1/traces', (_request, response) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
    );
    webhooks = await RecordingReceiver.start();
    topology = await startDistributed(
      1,
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        JUMBE_ALLOW_PRIVATE_NETWORKS: 'true',
        JUMBE_LOG_LEVEL: 'debug',
      },
      1,
      { dispatchers: 1 },
    );
    api = topology.gateways[0]!;
    account = await createAccount(api, topology.adminToken);
    await linkSession(api, account.key);
    const saved = await api.patch('/api/v1/webhook', {
      key: account.key,
      body: { url: `${webhooks.url}/hook` },
    });
    expect(saved.status).toBe(200);
  }, 180_000);
  afterAll(async () => {
    await topology?.stop();
    await webhooks?.close();
    await collector?.close();
  });

  it('follows a send from the HTTP request over NATS to the worker and its network call', async () => {
    const sent = await api.post('/api/v1/messages/text', {
      key: account.key,
      headers: { 'x-request-id': 'trace-send-1' },
      body: { to: '254711111111', text: 'Habari' },
    });
    expect(sent.status).toBe(200);

    const request = await spanWhere(
      collector,
      (span) => span.service === 'jumbe-gateway' && span.name === 'POST /api/v1/messages/text',
    );
    expect(request.kind).toBe(SERVER);
    expect(request.attributes['http.route']).toBe('/api/v1/messages/text');
    const inTrace = (span: ExportedSpan) => span.traceId === request.traceId;
    const busRequest = await spanWhere(
      collector,
      (span) => inTrace(span) && span.name === 'bus request message.send',
    );
    expect(busRequest).toMatchObject({ service: 'jumbe-gateway', kind: CLIENT });
    expect(busRequest.attributes['jumbe.request_id']).toBe('trace-send-1');
    const handled = await spanWhere(
      collector,
      (span) => inTrace(span) && span.name === 'bus handle message.send',
    );
    expect(handled).toMatchObject({
      service: 'jumbe-session-worker',
      kind: SERVER,
      parentSpanId: busRequest.spanId,
    });
    const network = await spanWhere(collector, (span) => inTrace(span) && span.name === 'network send text');
    expect(network).toMatchObject({ service: 'jumbe-session-worker', kind: CLIENT });

    // The request id went along too, into the worker's log line for the command.
    const workerLines = topology.workers[0]!.logs()
      .split('\n')
      .filter((line) => line.includes('"trace-send-1"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(workerLines).toContainEqual(
      expect.objectContaining({ requestId: 'trace-send-1', type: 'message.send', msg: 'command handled' }),
    );
  });

  it('follows an inbound message from the worker through JetStream to the webhook POST', async () => {
    const injected = await api.post('/api/v1/sandbox/inbound', {
      key: account.key,
      body: { from: '254722000001', text: 'Habari yako' },
    });
    expect(injected.status).toBe(200);
    const [delivered] = await webhooks.waitFor('/hook', 1);
    expect(delivered).toBeDefined();

    const published = await spanWhere(
      collector,
      (span) => span.service === 'jumbe-session-worker' && span.name === 'events publish message.received',
    );
    expect(published.kind).toBe(PRODUCER);
    const inTrace = (span: ExportedSpan) => span.traceId === published.traceId;
    const delivery = await spanWhere(
      collector,
      (span) => inTrace(span) && span.name === 'webhook deliver message.received',
    );
    expect(delivery).toMatchObject({
      service: 'jumbe-webhook-dispatcher',
      kind: CONSUMER,
      parentSpanId: published.spanId,
    });
    const post = await spanWhere(collector, (span) => inTrace(span) && span.parentSpanId === delivery.spanId);
    expect(post).toMatchObject({ service: 'jumbe-webhook-dispatcher', kind: CLIENT, name: 'POST' });
    expect(post.attributes['url.full']).toBe(`${webhooks.url}/hook`);
    // The receiver got the trace context too, so it may continue the trace.
    expect(delivered!.headers['traceparent']).toContain(published.traceId);
  });

  it('carries the request id of POST /webhook/test into its delivery record, in one trace', async () => {
    const tested = await api.post('/api/v1/webhook/test', {
      key: account.key,
      headers: { 'x-request-id': 'trace-test-1' },
    });
    expect(tested.status).toBe(200);
    const database = new Client({ connectionString: topology.env['JUMBE_DATABASE_URL'] });
    await database.connect();
    try {
      const { rows } = await database.query(`SELECT request_id FROM webhook_deliveries WHERE id = $1`, [
        tested.body.data.delivery.id,
      ]);
      expect(rows).toEqual([{ request_id: 'trace-test-1' }]);
    } finally {
      await database.end();
    }

    const request = await spanWhere(
      collector,
      (span) => span.service === 'jumbe-gateway' && span.name === 'POST /api/v1/webhook/test',
    );
    const inTrace = (span: ExportedSpan) => span.traceId === request.traceId;
    const handled = await spanWhere(
      collector,
      (span) => inTrace(span) && span.name === 'bus handle webhook.test',
    );
    expect(handled.service).toBe('jumbe-webhook-dispatcher');
    const delivery = await spanWhere(
      collector,
      (span) => inTrace(span) && span.name === 'webhook deliver webhook.test',
    );
    expect(delivery.parentSpanId).toBe(handled.spanId);
  });
});
