import type { SessionCommand } from '@jumbe/contracts';
import type { SessionView } from '@jumbe/domain';
import { AccountRepository, PlanRepository } from '@jumbe/persistence';
import type { EmulatedNetwork, EmulatedUser, LinkedDevice } from '@jumbe/whatsapp-emulator';
import type { DataSource } from 'typeorm';
import type { SessionHost } from '../session-host';
import { eventually } from './emulator-wait';
import { sessionInUnusedShard } from './host-harness';

/** A session of a new account (a plan of its own), in a shard no other session of it uses. */
export interface TestSession {
  ref: { accountId: string; sessionId: string; shard: number };
  /** What every v1 command of the session starts with. */
  base: { v: 1; accountId: string; sessionId: string };
}

export async function newTestSession(dataSource: DataSource, name: string): Promise<TestSession> {
  const planId = (
    await new PlanRepository(dataSource).create({ name, monthlyApiHits: 1_000, maxSessions: 5 })
  ).id;
  const accountId = (await new AccountRepository(dataSource).create({ name, planId })).id;
  const ref = { accountId, ...sessionInUnusedShard(accountId, new Set()) };
  return { ref, base: { v: 1, accountId, sessionId: ref.sessionId } };
}

/** The session's state on `host`. */
export async function stateOn(host: SessionHost, { base }: TestSession): Promise<SessionView['state']> {
  return ((await host.execute({ ...base, type: 'session.status' } as SessionCommand)) as SessionView).state;
}

/**
 * Starts the session on `host` (its shard adopted), scans its QR with `phone` through the emulated
 * network, and waits until it is connected: the device the phone linked.
 */
export async function linkOnHost(
  host: SessionHost,
  session: TestSession,
  network: EmulatedNetwork,
  phone: EmulatedUser,
): Promise<LinkedDevice> {
  const { ref, base } = session;
  await host.adoptShard(ref.shard, 1);
  await host.execute({ ...base, type: 'session.start', maxSessions: 5 } as SessionCommand);
  const qr = await eventually('a QR', async () => {
    const shown = (await host.execute({ ...base, type: 'session.qr' } as SessionCommand)) as { qr: string };
    return shown.qr;
  });
  const device = await network.scanQr(phone, qr);
  await eventually('connected', async () => (await stateOn(host, session)) === 'connected');
  return device;
}
