import './trust-preload';
import { DriverHarness, type OpenedSession, until } from './driver-harness';
import { WhatsAppEmulator } from './emulator';
import type { LinkedDevice } from './linked-device';
import { EmulatedNetwork } from './network';

/**
 * A send accepted into a connection that has gone quiet (keep-alive silence: TCP open, nothing
 * carried either way) was answered with an id and then lost: WhatsApp never acknowledged it and
 * nothing sent it again (the fault schedule's `silentlyDropped`). The driver keeps each send until
 * WhatsApp's server ack and sends what was not acknowledged again after the reconnect.
 */
describe('a send into a connection that turns out dead (keep-alive silence)', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  const phone = network.user('254700000081', 'Mtaa');
  const contact = network.user('254711000081', 'Baraka');
  let harness: DriverHarness;
  let opened: OpenedSession;
  let device: LinkedDevice;

  beforeAll(async () => {
    // Baileys pings every second and gives up after 6 s of silence (30 s and 35 s by default).
    harness = new DriverHarness(await emulator.start(), undefined, { keepAliveIntervalMs: 1_000 });
    ({ device, ...opened } = await harness.link(network, phone, 'silent-send'));
  }, 30_000);
  afterAll(async () => {
    await harness.closeAll();
    await emulator.stop();
  });

  it('reaches the contact, once and under the id it was answered with, after the reconnect', async () => {
    const received = () => network.receivedBy(contact);
    const before = await opened.session.send({ kind: 'text', to: contact.jid, text: 'before the silence' });
    await until(() => received().some((message) => message.id === before.id));

    const silenced = network.connectionOf(device);
    expect(network.silenceConnection(device)).toBe(true);
    const sent = await opened.session.send({ kind: 'text', to: contact.jid, text: 'into the silence' });
    await until(() => ![undefined, silenced].includes(network.connectionOf(device)), 30_000);
    await until(() => received().some((message) => message.id === sent.id), 20_000);

    const copies = received().filter((message) => message.id === sent.id);
    const texts = copies.map(({ message }) => message.conversation ?? message.extendedTextMessage?.text);
    expect(texts).toEqual(['into the silence']);
    // The message acknowledged before the silence is not sent again.
    expect(received().filter((message) => message.id === before.id)).toHaveLength(1);
  }, 60_000);

  it('is reported failed when the session closes before WhatsApp acknowledged it', async () => {
    const closing = await harness.link(network, network.user('254700000082', 'Wanjiru'), 'silent-close');
    // A first message, so the next needs no device list or key bundle (queries a silence would hang).
    const first = await closing.session.send({ kind: 'text', to: contact.jid, text: 'habari' });
    await until(() => network.receivedBy(contact).some((message) => message.id === first.id));
    expect(network.silenceConnection(closing.device)).toBe(true);
    const sent = await closing.session.send({ kind: 'text', to: contact.jid, text: 'never carried' });
    await closing.session.close();

    expect(closing.statuses).toContainEqual(
      expect.objectContaining({ messageId: sent.id, status: 'failed' }),
    );
    expect(network.receivedBy(contact).some((message) => message.id === sent.id)).toBe(false);
  }, 60_000);
});
