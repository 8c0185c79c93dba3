import { Client } from 'pg';
import { notifyInvalidation, PostgresInvalidationBus } from './postgres-invalidation-bus';

const URL = process.env['JUMBE_TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TOPIC = `test-${Math.random().toString(36).slice(2)}`;

const waitFor = async (condition: () => boolean, ms = 2_000) => {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('PostgresInvalidationBus', () => {
  const buses: PostgresInvalidationBus[] = [];
  const open = async (url = URL) => {
    const bus = new PostgresInvalidationBus(url);
    await bus.start();
    buses.push(bus);
    return bus;
  };
  afterAll(() => Promise.all(buses.map((bus) => bus.close())));

  it('delivers in process before publish resolves, once, and to another process on the database', async () => {
    const [a, b] = [await open(), await open()];
    const inA: string[] = [];
    const inB: string[] = [];
    await a.subscribe(TOPIC, (message) => inA.push(message));
    await b.subscribe(TOPIC, (message) => inB.push(message));

    await a.publish(TOPIC, 'one');
    expect(inA).toEqual(['one']);
    await waitFor(() => inB.length === 1);
    expect(inB).toEqual(['one']);
    // Its own notification does not come back as a second delivery.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(inA).toEqual(['one']);
  });

  it('hears a NOTIFY sent by a plain connection (the CLI), on the subscribed topic only', async () => {
    const bus = await open();
    const heard: string[] = [];
    await bus.subscribe(TOPIC, (message) => heard.push(message));
    const cli = new Client({ connectionString: URL });
    await cli.connect();
    try {
      await notifyInvalidation((sql, parameters) => cli.query(sql, parameters), 'other-topic', 'x');
      await notifyInvalidation((sql, parameters) => cli.query(sql, parameters), TOPIC, 'revoked');
    } finally {
      await cli.end();
    }
    await waitFor(() => heard.length === 1);
    expect(heard).toEqual(['revoked']);
  });

  it('reconnects after its connection is killed and reports a possible loss', async () => {
    // Its own application name (a connection string's parameters win over the bus's), so only
    // this test's listener is killed, never another run's on the shared PostgreSQL.
    const ownName = `jumbe-invalidations-test-${Math.random().toString(36).slice(2)}`;
    const url = new globalThis.URL(URL);
    url.searchParams.set('application_name', ownName);
    const bus = await open(url.toString());
    let losses = 0;
    bus.onPossibleLoss(() => (losses += 1));
    const heard: string[] = [];
    await bus.subscribe(TOPIC, (message) => heard.push(message));
    const admin = new Client({ connectionString: URL });
    await admin.connect();
    try {
      const killed = await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`,
        [ownName],
      );
      expect(killed.rows).toEqual([{ pg_terminate_backend: true }]);
      await waitFor(() => losses > 0, 5_000);
      await notifyInvalidation((sql, parameters) => admin.query(sql, parameters), TOPIC, 'after');
      await waitFor(() => heard.includes('after'));
    } finally {
      await admin.end();
    }
  });
});
