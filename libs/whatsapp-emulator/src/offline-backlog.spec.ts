import './trust-preload';
import type { InboundNetworkMessage } from '@jumbe/domain';
import { DriverHarness, type OpenedSession, until } from './driver-harness';
import { WhatsAppEmulator } from './emulator';
import type { LinkedDevice } from './linked-device';
import { EmulatedNetwork } from './network';

/**
 * Issue 28, item 1: Baileys receipts the offline backlog but holds its `messages.upsert` in its
 * event buffer until `<ib><offline>`. A socket that ends before that (a 515, a planned close) must
 * not take the receipted messages with it: WhatsApp never sends them again.
 */
describe('a backlog receipted but still buffered by Baileys when the socket ends', () => {
  const BACKLOG = 5;
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  const phone = network.user('254700000040', 'Duka');
  const contact = network.user('254711000040', 'Wanjiru');
  let harness: DriverHarness;
  let device: LinkedDevice;
  /** Every inbound message any opening of the session reported, in order. */
  const inbound: InboundNetworkMessage[] = [];
  let opened: OpenedSession;

  beforeAll(async () => {
    // Baileys' own buffering only: the driver's drain of a long-held buffer is tested apart below.
    harness = new DriverHarness(await emulator.start(), undefined, { eventBufferFlushMs: 0 });
    ({ device, ...opened } = await harness.link(network, phone, 'backlog'));
  }, 30_000);
  afterAll(async () => {
    await harness.closeAll();
    await emulator.stop();
  });

  const reopen = async (): Promise<OpenedSession> => {
    opened = await harness.open('backlog', true);
    const seen = opened.inbound;
    // Collected across openings: a message may reach the product through the next one.
    const push = seen.push.bind(seen);
    seen.push = (...items: InboundNetworkMessage[]) => {
      inbound.push(...items);
      return push(...items);
    };
    return opened;
  };

  /** The device goes away, `contact` writes BACKLOG texts, the device logs in again and answers them all. */
  async function backlogReceiptedButHeld(): Promise<{ ids: string[]; release: () => void }> {
    await opened.session.close();
    await until(() => network.connectionOf(device) === undefined);
    const ids: string[] = [];
    for (let index = 0; index < BACKLOG; index += 1) {
      ids.push(await network.sendMessage(contact, phone, { conversation: `backlog ${index}` }));
    }
    expect(device.backlog).toHaveLength(BACKLOG);
    const release = network.holdOfflineCompletion();
    await reopen();
    // Every message receipted (WhatsApp forgets it), `<ib><offline>` still withheld.
    await until(() => network.offlineCompletionsHeld === 1, 20_000);
    expect(ids.filter((id) => device.unanswered.has(id))).toEqual([]);
    expect(device.backlog).toEqual([]);
    // Pins Baileys: receipted, yet none emitted before `<ib><offline>` (the driver's drain is off).
    expect(idsOf(ids)).toEqual([]);
    return { ids, release };
  }

  const idsOf = (wanted: string[]) =>
    inbound.map((message) => message.id).filter((id) => wanted.includes(id));

  it('a 515 mid-backlog: every receipted message still reaches the inbound outbox, in order', async () => {
    const { ids, release } = await backlogReceiptedButHeld();
    const dropped = network.connectionOf(device);
    expect(network.endStream(device, 'restart')).toBe(true);
    release();
    // Logged in again on a new connection (the receipts may have gone out before `connected`).
    await until(() => ![undefined, dropped].includes(network.connectionOf(device)), 20_000);
    await until(() => idsOf(ids).length === BACKLOG, 20_000).catch(() => undefined);
    expect(idsOf(ids)).toEqual(ids);
  }, 60_000);

  it('a planned close mid-backlog: every receipted message is stored for the next opening', async () => {
    const { ids, release } = await backlogReceiptedButHeld();
    await opened.session.close();
    release();
    await reopen();
    await until(() => idsOf(ids).length === BACKLOG, 20_000).catch(() => undefined);
    expect(idsOf(ids)).toEqual(ids);
  }, 60_000);
});

describe('a long backlog replay (the server has not yet said the backlog is complete)', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  const phone = network.user('254700000041', 'Soko');
  const contact = network.user('254711000041', 'Otieno');
  let harness: DriverHarness;
  let device: LinkedDevice;
  let opened: OpenedSession;

  beforeAll(async () => {
    // The periodic flush far off: only each message's own flush gets it out before Baileys' 30 s
    // (the fault schedule's seed 43: a SIGKILL 1.2 s into a backlog lost the 93 messages Baileys
    // had receipted and still buffered, when the buffer was flushed after two checks a second apart).
    harness = new DriverHarness(await emulator.start(), undefined, { eventBufferFlushMs: 60_000 });
    ({ device, ...opened } = await harness.link(network, phone, 'replay'));
  }, 30_000);
  afterAll(async () => {
    await harness.closeAll();
    await emulator.stop();
  });

  it('receipted messages reach the outbox while Baileys still waits for <ib><offline>, in batches', async () => {
    await opened.session.close();
    await until(() => network.connectionOf(device) === undefined);
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      ids.push(await network.sendMessage(contact, phone, { conversation: `replay ${index}` }));
    }
    network.offlineBatchLimit = 2;
    const release = network.holdOfflineCompletion();
    try {
      opened = await harness.open('replay', true);
      // Well before Baileys' own 30 s auto-flush, and with the completion still withheld.
      await until(() => opened.inbound.length === 5, 20_000);
      expect(opened.inbound.map((message) => message.id)).toEqual(ids);
      // Each is handed on at once: the completion is withheld all along (it goes only on `release`).
      await until(() => network.offlineCompletionsHeld === 1, 10_000);
    } finally {
      network.offlineBatchLimit = Number.POSITIVE_INFINITY;
      release();
    }
  }, 60_000);
});
