import { apiClient, ServiceProcess } from '@jumbe/testing';
import { createAccount } from './support/operator';
import { eventually, linkSession } from './support/sandbox-helpers';
import { type DistributedTopology, startDistributed } from './support/topology';

/**
 * Ownership and failover (ARCHITECTURE.md): sessions survive the loss of the worker that owns
 * them, a clean hand-over, and a restart of every process.
 */
describe('distributed: worker failover', () => {
  let topology: DistributedTopology;

  beforeEach(async () => {
    topology = await startDistributed(2, {}, 2);
  });
  afterEach(() => topology?.stop());

  const sessionIds = Array.from({ length: 8 }, (_, i) => `shop${i}`);

  async function linkAll(key: string): Promise<void> {
    for (const sessionId of sessionIds) await linkSession(topology.gateways[0]!, key, sessionId);
  }

  async function allConnected(key: string, timeoutMs: number): Promise<string[]> {
    const response = await eventually(
      () => topology.gateways[1]!.get('/api/v1/sessions', { key }),
      (r) =>
        r.status === 200 &&
        r.body.data.length === sessionIds.length &&
        r.body.data.every((s: { state: string }) => s.state === 'connected'),
      timeoutMs,
    );
    return response.body.data.map((s: { state: string }) => s.state);
  }

  async function sendThroughEveryGateway(key: string): Promise<number[]> {
    const statuses: number[] = [];
    for (const gateway of topology.gateways) {
      for (const sessionId of sessionIds) {
        statuses.push(
          (
            await gateway.post('/api/v1/messages/text', {
              key,
              body: { sessionId, to: '254711111111', text: 'after' },
            })
          ).status,
        );
      }
    }
    return statuses;
  }

  it('reconnects the sessions of a SIGKILLed worker on the other worker', async () => {
    const account = await createAccount(topology.gateways[0]!, topology.adminToken, { maxSessions: 20 });
    await linkAll(account.key);
    const [victim, survivor] = topology.workers as [ServiceProcess, ServiceProcess];
    const killedAt = Date.now();
    await victim.stop('SIGKILL');
    // Sends fail with 503 (never 500) while the dead worker's shards have no owner, then work again.
    const during = await topology.gateways[0]!.post('/api/v1/messages/text', {
      key: account.key,
      body: { sessionId: sessionIds[0], to: '254711111111', text: 'during' },
    });
    expect([200, 503]).toContain(during.status);
    const recovered = await eventually(
      () => sendThroughEveryGateway(account.key),
      (statuses) => statuses.every((status) => status === 200),
      30_000,
    );
    const failoverMs = Date.now() - killedAt;
    expect(recovered.every((status) => status === 200)).toBe(true);
    expect(await allConnected(account.key, 5_000)).toEqual(sessionIds.map(() => 'connected'));
    expect(survivor.logs()).toContain('"shardsHeld":64');
    process.stdout.write(
      `failover after SIGKILL: all ${sessionIds.length} sessions sending again after ${failoverMs} ms\n`,
    );
  });

  it('hands shards over cleanly on SIGTERM without losing a session', async () => {
    const account = await createAccount(topology.gateways[0]!, topology.adminToken, { maxSessions: 20 });
    await linkAll(account.key);
    const [leaving] = topology.workers as [ServiceProcess, ServiceProcess];
    const stoppedAt = Date.now();
    expect(await leaving.stop('SIGTERM')).toBe(0);
    const recovered = await eventually(
      () => sendThroughEveryGateway(account.key),
      (statuses) => statuses.every((status) => status === 200),
      15_000,
    );
    expect(recovered.every((status) => status === 200)).toBe(true);
    process.stdout.write(`hand-over on SIGTERM: sending again after ${Date.now() - stoppedAt} ms\n`);
    // A worker that joins takes its share back, and the sessions keep working.
    const joined = await ServiceProcess.start('session-worker', topology.env, { name: 'worker-3' });
    topology.processes.push(joined);
    await eventually(
      async () => joined.logs(),
      (logs) => /"shardsHeld":(2\d|3\d)/.test(logs),
      20_000,
    );
    const afterJoin = await eventually(
      () => sendThroughEveryGateway(account.key),
      (statuses) => statuses.every((status) => status === 200),
      15_000,
    );
    expect(afterJoin.every((status) => status === 200)).toBe(true);
  });

  it('brings every connected session back after all processes restart', async () => {
    const account = await createAccount(topology.gateways[0]!, topology.adminToken, { maxSessions: 20 });
    await linkAll(account.key);
    await Promise.all(topology.processes.map((p) => p.stop('SIGTERM')));
    const restarted = await Promise.all([
      ServiceProcess.start('gateway', topology.env, { name: 'gateway-1' }),
      ServiceProcess.start('session-worker', topology.env, { name: 'worker-1' }),
    ]);
    topology.processes.splice(0, topology.processes.length, ...restarted);
    topology.gateways.splice(
      0,
      topology.gateways.length,
      apiClient(restarted[0].url),
      apiClient(restarted[0].url),
    );
    expect(await allConnected(account.key, 30_000)).toEqual(sessionIds.map(() => 'connected'));
    const statuses = await sendThroughEveryGateway(account.key);
    expect(statuses.every((status) => status === 200)).toBe(true);
  });
});
