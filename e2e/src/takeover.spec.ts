import type { ApiClient } from '@jumbe/testing';
import { ServiceProcess } from '@jumbe/testing';
import { createAccount } from './support/operator';
import { linkSession } from './support/sandbox-helpers';
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
 * Take-over at scale (issue 17): a worker with a few hundred linked sessions is SIGKILLed and
 * replaced, twice in a row; each time every session sends again within 10 s of the kill, and no
 * client ever sees a plain 503 for a session whose shard is merely changing hands.
 */
describe('distributed: a killed worker replaced twice in a row', () => {
  let topology: DistributedTopology;

  beforeAll(async () => {
    topology = await startDistributed(1, {}, 1);
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
      const victim = topology.workers.pop()!;
      const killedAt = Date.now();
      await victim.stop('SIGKILL');
      const replacement = await ServiceProcess.start('session-worker', topology.env, {
        name: `worker-${round + 1}`,
      });
      topology.workers.push(replacement);
      topology.processes.push(replacement);

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
      expect(replacement.logs()).not.toContain('could not be renewed in time');
    }
    process.stdout.write(
      `take-over of ${SESSIONS} sessions after SIGKILL: ${recoveries.map((ms) => `${ms} ms`).join(', then ')}\n`,
    );
    for (const ms of recoveries) expect(ms).toBeLessThan(RECOVERY_GOAL_MS);
  });
});
