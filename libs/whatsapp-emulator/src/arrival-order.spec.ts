import './trust-preload';
import { DriverHarness, type OpenedSession, until } from './driver-harness';
import { WhatsAppEmulator } from './emulator';
import type { EmulatedUser } from './emulated-user';
import type { LinkedDevice } from './linked-device';
import { EmulatedNetwork } from './network';

/**
 * A contact's messages reach the customer in the order WhatsApp delivered them. Baileys (rc14,
 * `messages-recv.js` handleMessage) awaits key-store work (the LID mapping, a session move, and
 * during a PostgreSQL outage every key read) before it takes its message lock, so a later message
 * could be handed over first: seen every time across the PN→LID switch, and after outages in the
 * fault schedule (`outOfOrder`). The driver hands messages on in their stanzas' arrival order.
 */
describe('received messages in arrival order', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  const phone = network.user('254700000075', 'Kibanda');
  let harness: DriverHarness;
  let opened: OpenedSession & { device: LinkedDevice };

  async function say(contact: EmulatedUser, texts: string[]): Promise<string[]> {
    const ids: string[] = [];
    for (const text of texts) ids.push(await network.sendMessage(contact, phone, { conversation: text }));
    return ids;
  }

  beforeAll(async () => {
    harness = new DriverHarness(await emulator.start());
    opened = await harness.link(network, phone, 'arrival-order');
  }, 30_000);
  afterAll(async () => {
    await harness.closeAll();
    await emulator.stop();
  });

  it('a message sent right after a reconnect does not overtake the same contact’s backlog', async () => {
    const busy = network.user('254711000076', 'Wafula');
    const contact = network.user('254711000077', 'Akinyi');
    await say(contact, ['hello']);
    await until(() => opened.inbound.some((message) => message.text === 'hello'), 20_000);

    const release = network.holdLogins();
    const logins = network.logins.length;
    network.resetConnection(opened.device);
    await until(() => network.loginsHeld > 0, 20_000);
    // Queued while the device is away: a long backlog, the contact's message last.
    for (let n = 1; n <= 40; n++) await say(busy, [`busy ${n}`]);
    await say(contact, ['sent while away']);
    release();
    await until(() => network.logins.length > logins && network.connectionOf(opened.device), 20_000);
    await say(contact, ['sent after the reconnect']);

    await until(() => opened.inbound.some((message) => message.text === 'sent after the reconnect'), 30_000);
    await until(() => opened.inbound.some((message) => message.text === 'sent while away'), 30_000);
    const texts = opened.inbound
      .filter((message) => message.chat === contact.jid)
      .map((message) => message.text);
    expect(texts).toEqual(['hello', 'sent while away', 'sent after the reconnect']);
  }, 60_000);
});
