import type { ApiClient } from '@jumbe/testing';
import { ServiceProcess } from '@jumbe/testing';
import { createAccount } from './support/operator';
import { eventually, linkSession } from './support/sandbox-helpers';
import { type DistributedTopology, startDistributed } from './support/topology';

const SESSIONS = 200;
/** What a platform engineer may expect after losing a worker, lease expiry (6 s) included. */
const RECOVERY_GOAL_MS = 10_000;

/** Runs `work` over `items`, `parallel` at a time. */
async function inParallel<T, R>(items: T[], parallel: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!);
      }
    }),
  );
  return results;
}

/**
 * Take-over at scale (issue 17): of two workers sharing a few hundred linked sessions, one is
 * SIGKILLed and the other takes everything over; a new worker joins; then the worker that took over
 * is SIGKILLed in turn. Each time every session sends again within 10 s of the kill, and no client
 * ever sees a plain 503 for a session whose shard is merely changing hands.
 */
describe('distributed: workers SIGKILLed twice in a row', () => {
  let topology: DistributedTopology;

  beforeAll(async () => {
    topology = await startDistributed(1, {}, 2);
  });
  afterAll(() => topology?.stop());

  it(`brings all ${SESSIONS} sessions back within 10 s of each SIGKILL`, async () => {
    const gateway: ApiClient = topology.gateways[0]!;
    const account = await createAccount(gateway, topology.adminToken, { maxSessions: SESSIONS });
    const sessionIds = Array.from({ length: SESSIONS }, (_, i) => `line${i}`);
    await inParallel(sessionIds, 8, (sessionId) => linkSession(gateway, account.key, sessionId));

    /** One send through every session (20 at a time); the statuses that came back. */
    const sendThroughEvery = () =>
      inParallel(sessionIds, 20, async (sessionId) => {
        const response = await gateway.post('/api/v1/messages/text', {
          key: account.key,
          body: { sessionId, to: '254711111111', text: 'still here' },
        });
        return { status: response.status, code: response.body?.error?.code as string | undefined };
      });
    expect((await sendThroughEvery()).every((r) => r.status === 200)).toBe(true);

    const recoveries: number[] = [];
    for (let round = 1; round <= 2; round += 1) {
      // Round 2 kills the worker that took everything over in round 1 (and has since handed half
      // to a newcomer): the case that used to take 16 s instead of 6.
      const [victim, survivor] = topology.workers.splice(0, 2) as [ServiceProcess, ServiceProcess];
      const killedAt = Date.now();
      await victim.stop('SIGKILL');

      const failures: string[] = [];
      for (;;) {
        const pass = await sendThroughEvery();
        const failed = pass.filter((r) => r.status !== 200);
        failures.push(...failed.map((r) => `${r.status} ${r.code}`));
        if (failed.length === 0) break;
        if (Date.now() - killedAt > 30_000) throw new Error(`still failing: ${failed.length} sessions`);
      }
      recoveries.push(Date.now() - killedAt);
      // A hand-over is waited out by the gateway, a restoring session answers session_restoring:
      // never the plain "nobody owns this" 503.
      expect(failures.filter((failure) => failure.startsWith('503 unavailable'))).toEqual([]);
      expect(survivor.logs()).not.toContain('could not be renewed in time');

      // A new worker joins and takes its half back from the survivor, as after a real failure.
      const newcomer = await ServiceProcess.start('session-worker', topology.env, {
        name: `worker-${round + 2}`,
      });
      topology.processes.push(newcomer);
      topology.workers.push(survivor, newcomer);
      await eventually(
        async () => newcomer.logs(),
        (logs) => /"shardsHeld":(2\d|3\d)/.test(logs),
        20_000,
      );
      const settled = await eventually(
        sendThroughEvery,
        (pass) => pass.every((r) => r.status === 200),
        20_000,
      );
      expect(settled.every((r) => r.status === 200)).toBe(true);
    }
    process.stdout.write(
      `take-over of ${SESSIONS} sessions after SIGKILL: ${recoveries.map((ms) => `${ms} ms`).join(', then ')}\n`,
    );
    for (const ms of recoveries) expect(ms).toBeLessThan(RECOVERY_GOAL_MS);
  });
});
