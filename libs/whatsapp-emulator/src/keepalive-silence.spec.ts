import './trust-preload';
import { DriverHarness, type OpenedSession, until } from './driver-harness';
import { WhatsAppEmulator } from './emulator';
import type { LinkedDevice } from './linked-device';
import { EmulatedNetwork } from './network';

/** The emulator's keep-alive silence fault, against the real Baileys and the product's driver. */
describe('a connection the server stops answering (keep-alive silence)', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  const phone = network.user('254700000080', 'Mtaa');
  const contact = network.user('254711000080', 'Baraka');
  let harness: DriverHarness;
  let opened: OpenedSession;
  let device: LinkedDevice;

  beforeAll(async () => {
    // Baileys pings every second and gives up after 6 s of silence (30 s and 35 s by default).
    harness = new DriverHarness(await emulator.start(), undefined, { keepAliveIntervalMs: 1_000 });
    ({ device, ...opened } = await harness.link(network, phone, 'silence'));
  }, 30_000);
  afterAll(async () => {
    await harness.closeAll();
    await emulator.stop();
  });

  it('the session notices, logs in again without a scan, and gets what was sent meanwhile', async () => {
    opened.links.length = 0;
    const silenced = network.connectionOf(device);
    expect(network.silenceConnection(device)).toBe(true);
    const id = await network.sendMessage(contact, phone, { conversation: 'are you still there?' });
    await until(() => ![undefined, silenced].includes(network.connectionOf(device)), 30_000);
    await until(() => opened.inbound.some((message) => message.id === id), 20_000);
    expect(opened.links.map((event) => event.type)).toEqual(['connecting', 'connected']);
  }, 60_000);
});
