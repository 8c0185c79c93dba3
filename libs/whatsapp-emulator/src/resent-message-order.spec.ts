import './trust-preload';
import { ProcessInboundOutbox } from '@jumbe/network';
import { DriverHarness, type OpenedSession, until } from './driver-harness';
import { WhatsAppEmulator } from './emulator';
import type { LinkedDevice } from './linked-device';
import { EmulatedNetwork } from './network';

/**
 * Issue 28 (the fault schedule's seed 1, right after a Redis outage): a message the device could
 * not decrypt when WhatsApp delivered it (its socket ended after Baileys had used its keys, so the
 * copy delivered again fails: `old counter`, `Key used already`) is asked for again with a retry
 * receipt and comes back from the sender's phone a round trip later. The contact's next message,
 * delivered right after the first, must still reach the customer after it: the order is the one
 * WhatsApp delivered them in, not the order they became readable.
 */
describe('a message that comes back after a retry receipt, against real Baileys', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  const phone = network.user('254700000094', 'Duka la Baraka');
  const author = network.user('254711000094', 'Wanjiru');
  const member = network.user('254711000095', 'Otieno');
  const group = network.createGroup('Soko', author, [phone, member]);
  let harness: DriverHarness;
  let opened: OpenedSession & { device: LinkedDevice };
  const outbox = new ProcessInboundOutbox();

  const textsIn = (chat: string) =>
    opened.inbound.filter((message) => message.chat === chat).map((message) => message.text);
  const delivered = (id: string) => opened.inbound.some((message) => message.id === id);

  beforeAll(async () => {
    harness = new DriverHarness(await emulator.start(), undefined, { inboundOutbox: outbox });
    opened = await harness.link(network, phone, 'resent-message-order');
    // The device holds both members' sender keys and has used a counter of the author's.
    for (const from of [author, member]) {
      const id = await network.sendGroupMessage(from, group.jid, phone, {
        conversation: `jambo ${from.name}`,
      });
      await until(() => delivered(id), 20_000);
    }
  }, 60_000);
  afterAll(async () => {
    await harness.closeAll();
    await emulator.stop();
  });

  it('a group message resent pairwise stays ahead of the next one in the group', async () => {
    const resent = await network.sendStaleGroupMessage(author, group.jid, phone, { conversation: 'kwanza' });
    const next = await network.sendGroupMessage(member, group.jid, phone, { conversation: 'pili' });

    await until(() => delivered(resent) && delivered(next), 20_000);
    expect(network.contactResends.resent.map((resend) => resend.id)).toContain(resent);
    expect(textsIn(group.jid).slice(-2)).toEqual(['kwanza', 'pili']);
  }, 30_000);

  it("a contact's message resent in a fresh session stays ahead of the contact's next one", async () => {
    const contact = network.user('254711000096', 'Kamau');
    const hello = await network.sendMessage(contact, phone, { conversation: 'habari' });
    await until(() => delivered(hello), 20_000);

    const resent = network.sendUndecryptable(contact, phone, { conversation: 'kwanza' });
    const next = await network.sendMessage(contact, phone, { conversation: 'pili' });

    await until(() => delivered(resent) && delivered(next), 20_000);
    expect(network.contactResends.resent.map((resend) => resend.id)).toContain(resent);
    expect(textsIn(contact.jid)).toEqual(['habari', 'kwanza', 'pili']);
  }, 30_000);

  it('a message asked for again keeps its place when the socket ends before the copy comes back', async () => {
    // Issue 28 (the fault schedule's seed 8): the wait for the copy was the socket's, and ended with
    // it; the next message went out first and the copy, read on the next socket, after it.
    const contact = network.user('254711000097', 'Akinyi');
    const hello = await network.sendMessage(contact, phone, { conversation: 'habari' });
    await until(() => delivered(hello), 20_000);

    network.contactResends.phoneAway(contact);
    const resent = network.sendUndecryptable(contact, phone, { conversation: 'kwanza' });
    const next = await network.sendMessage(contact, phone, { conversation: 'pili' });
    await untilStored(next);
    await until(() => network.contactResends.waitingReceipts(contact) > 0, 20_000);

    const logins = network.logins.length;
    expect(network.endStream(opened.device, 'restart')).toBe(true);
    await until(() => network.logins.length > logins && network.connectionOf(opened.device), 20_000);
    // Held for the copy on the new socket too: the next message has not gone out on its own.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(delivered(next)).toBe(false);
    await network.contactResends.phoneBack(contact);

    await until(() => delivered(resent) && delivered(next), 20_000);
    expect(textsIn(contact.jid)).toEqual(['habari', 'kwanza', 'pili']);
  }, 40_000);

  /** Until the driver's outbox holds message `id` (stored, not yet handed on). */
  async function untilStored(id: string): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (!(await outbox.oldest(opened.ref, 100)).some((entry) => entry.messageId === id)) {
      if (Date.now() > deadline) throw new Error(`message ${id} was never stored`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
});
