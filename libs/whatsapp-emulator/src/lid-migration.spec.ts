import './trust-preload';
import { inboundSender } from '@jumbe/contracts';
import { DriverHarness, type OpenedSession, until } from './driver-harness';
import { WhatsAppEmulator } from './emulator';
import type { EmulatedUser } from './emulated-user';
import type { LinkedDevice } from './linked-device';
import { EmulatedNetwork } from './network';

/**
 * Issue 28: WhatsApp moves a contact from phone-number to LID addressing in the middle of a
 * conversation. Baileys moves its Signal session to the LID when the mapping is announced (or with
 * the first LID-addressed message); every message before and after reaches the customer from the
 * same sender, with a reply address that reaches it (the contract: `from` and `replyTo` are the
 * phone number when the LID resolves; `chat` is as received and may be the LID).
 */
describe('a contact moved from phone-number to LID addressing mid-conversation', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  const phone = network.user('254700000073', 'Kibanda');
  let harness: DriverHarness;
  let opened: OpenedSession & { device: LinkedDevice };
  let undecryptable = 0;

  async function say(contact: EmulatedUser, texts: string[]): Promise<string[]> {
    const ids: string[] = [];
    for (const text of texts) ids.push(await network.sendMessage(contact, phone, { conversation: text }));
    return ids;
  }

  /** The `enc` type of each stanza the network handed the device, by message id. */
  const encTypes = new Map<string, string | undefined>();
  const deliver = network.deliver.bind(network);
  network.deliver = (device, stanza) => {
    const [enc] = Array.isArray(stanza.content) ? stanza.content : [];
    encTypes.set(stanza.attrs.id ?? '', enc?.attrs.type);
    deliver(device, stanza);
  };

  /** The customer answers: the contact's phone then has a two-way session and sends `msg`, not `pkmsg`. */
  async function reply(contact: EmulatedUser): Promise<void> {
    const sent = await opened.session.send({ kind: 'text', to: contact.jid, text: 'Karibu' });
    await until(() => network.receivedBy(contact).some((message) => message.id === sent.id), 20_000);
  }

  async function delivered(ids: string[]) {
    await until(() => ids.every((id) => opened.inbound.some((message) => message.id === id)), 20_000);
    return opened.inbound.filter((message) => ids.includes(message.id));
  }

  beforeAll(async () => {
    harness = new DriverHarness(await emulator.start(), undefined, {
      onUndecryptable: () => void (undecryptable += 1),
    });
    opened = await harness.link(network, phone, 'lid-migration');
  }, 30_000);
  afterAll(async () => {
    await harness.closeAll();
    await emulator.stop();
  });

  it.each([
    ['announced on a phone-number message first (sender_lid)', '254711000073', true],
    ['switched at once (the first LID message carries sender_pn)', '254711000074', false],
  ])(
    'delivers every message from one sender, in order per chat: %s',
    async (_case, number, announced) => {
      const contact = network.user(number, 'Akinyi');
      const ids = await say(contact, ['before 1']);
      await delivered(ids);
      await reply(contact);
      ids.push(...(await say(contact, ['before 2'])));
      if (announced) {
        network.lidAddressing.announce(contact);
        ids.push(...(await say(contact, ['announcing'])));
      }
      network.lidAddressing.migrate(contact);
      ids.push(...(await say(contact, ['after 1', 'after 2'])));

      const messages = await delivered(ids);
      // Order holds per chat as received; across the switch Baileys may hand over the announcing
      // message after the first LID ones (it stores the mapping outside its message lock).
      const textsIn = (chat: string) =>
        messages.filter((message) => message.chat === chat).map((message) => message.text);
      expect(textsIn(contact.jid)).toEqual(
        announced ? ['before 1', 'before 2', 'announcing'] : ['before 1', 'before 2'],
      );
      expect(textsIn(contact.lid)).toEqual(['after 1', 'after 2']);
      // After the reply the contact kept its session: the LID messages were read with the session
      // Baileys moved from the phone number to the LID, not with a new one.
      expect(ids.slice(1).map((id) => encTypes.get(id))).toEqual(ids.slice(1).map(() => 'msg'));
      for (const message of messages) {
        expect(inboundSender(message)).toMatchObject({
          from: contact.jid,
          replyTo: contact.jid,
          phoneNumber: number,
        });
      }
      expect(undecryptable).toBe(0);
    },
    40_000,
  );

  it('keeps the migrated session across a reconnect: the next LID message is read', async () => {
    const contact = network.user('254711000074', 'Akinyi');
    const logins = network.logins.length;
    network.endStream(opened.device, 'restart');
    await until(() => network.logins.length > logins && network.connectionOf(opened.device), 20_000);
    const ids = await say(contact, ['after the reconnect']);
    const [message] = await delivered(ids);
    if (!message) throw new Error('not delivered');
    expect(message.text).toBe('after the reconnect');
    expect(inboundSender(message)).toMatchObject({ from: contact.jid, replyTo: contact.jid });
    expect(undecryptable).toBe(0);
  }, 40_000);
});
