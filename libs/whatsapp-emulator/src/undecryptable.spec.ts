import './trust-preload';
import { DriverHarness, type OpenedSession, until } from './driver-harness';
import { WhatsAppEmulator } from './emulator';
import { EmulatedNetwork } from './network';

/** Issue 28, item 7: a message the linked device cannot decrypt is counted, not dropped silently. */
describe('a message the linked device cannot decrypt', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  const phone = network.user('254700000070', 'Kibanda');
  const contact = network.user('254711000070', 'Akinyi');
  let harness: DriverHarness;
  let opened: OpenedSession;
  let undecryptable = 0;

  beforeAll(async () => {
    harness = new DriverHarness(await emulator.start(), undefined, {
      onUndecryptable: () => void (undecryptable += 1),
    });
    opened = await harness.link(network, phone, 'undecryptable');
  }, 30_000);
  afterAll(async () => {
    await harness.closeAll();
    await emulator.stop();
  });

  it('counts it once, delivers nothing for it, and the next readable message still arrives', async () => {
    network.sendUndecryptable(contact, phone);
    await until(() => undecryptable === 1, 20_000);
    const readable = await network.sendMessage(contact, phone, { conversation: 'can you read this?' });
    await until(() => opened.inbound.some((message) => message.id === readable), 20_000);
    expect(opened.inbound.map((message) => message.text)).toEqual(['can you read this?']);
    expect(undecryptable).toBe(1);
  }, 60_000);
});
