import './trust-preload';
import { DriverHarness, type OpenedSession, until } from './driver-harness';
import { WhatsAppEmulator } from './emulator';
import { deviceJid, type LinkedDevice } from './linked-device';
import { EmulatedNetwork } from './network';

/**
 * Issue 28: after a PostgreSQL outage or a shard hand-over, the worker that sends can hold Signal
 * state the contact's phone no longer shares, and the phone fails to decrypt (`Bad MAC`). A real
 * phone answers with a retry receipt and Baileys resends in a fresh session; the contact must end up
 * reading the message exactly once, under the id the send was answered with.
 */
describe('a contact whose Signal session with the device diverged, against real Baileys', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  const phone = network.user('254700000081', 'Duka la Baraka');
  const contact = network.user('254744000081', 'Wanjiru');
  let harness: DriverHarness;
  let opened: OpenedSession & { device: LinkedDevice };

  const copiesOf = (id: string) => network.receivedBy(contact).filter((message) => message.id === id);
  const failuresOf = (id: string) => network.failures.filter(({ stanza }) => stanza.attrs.id === id);
  const retriesOf = (id: string) => network.retryReceipts.filter((receipt) => receipt.id === id);
  const textOf = (id: string) =>
    copiesOf(id).map(({ message }) => message.conversation ?? message.extendedTextMessage?.text);
  const settle = () => new Promise((resolve) => setTimeout(resolve, 1_000));

  beforeAll(async () => {
    harness = new DriverHarness(await emulator.start());
    opened = await harness.link(network, phone, 'diverged-session');
    // A session used both ways first, as in a running conversation (later sends are plain `msg`).
    const first = await opened.session.send({ kind: 'text', to: contact.jid, text: 'Karibu' });
    await until(() => copiesOf(first.id).length === 1, 20_000);
    const answer = await network.sendMessage(contact, phone, { conversation: 'Asante' });
    await until(() => opened.inbound.some((message) => message.id === answer), 20_000);
  }, 60_000);
  afterAll(async () => {
    await harness.closeAll();
    await emulator.stop();
  });

  it('a send the contact cannot decrypt is asked for again and read once, under its id', async () => {
    contact.phone.divergeSession(deviceJid(opened.device));
    const sent = await opened.session.send({ kind: 'text', to: contact.jid, text: 'Your order is ready' });

    await until(() => copiesOf(sent.id).length > 0, 20_000);
    await settle();
    expect(textOf(sent.id)).toEqual(['Your order is ready']);
    // The first copy really failed, and the phone asked once, without keys.
    expect(failuresOf(sent.id).map(({ error }) => String(error))).toEqual([
      expect.stringMatching(/Bad MAC|No matching sessions/),
    ]);
    expect(retriesOf(sent.id).map(({ count, preKeyId }) => ({ count, preKeyId }))).toEqual([
      { count: 1, preKeyId: undefined },
    ]);
  }, 30_000);

  it('the conversation then goes on both ways in the fresh session', async () => {
    const next = await opened.session.send({ kind: 'text', to: contact.jid, text: 'Pick it up by 5' });
    await until(() => copiesOf(next.id).length > 0, 20_000);
    const reply = await network.sendMessage(contact, phone, { conversation: 'Sawa' });
    await until(() => opened.inbound.some((message) => message.id === reply), 20_000);
    expect(textOf(next.id)).toEqual(['Pick it up by 5']);
    expect(failuresOf(next.id)).toEqual([]);
    expect(retriesOf(next.id)).toEqual([]);
  }, 30_000);

  it('from the second retry receipt on, the phone sends its keys and Baileys builds the session from them', async () => {
    network.failToDecrypt(contact, 2);
    const sent = await opened.session.send({ kind: 'text', to: contact.jid, text: 'Third time' });

    await until(() => copiesOf(sent.id).length > 0, 20_000);
    await settle();
    expect(textOf(sent.id)).toEqual(['Third time']);
    const [first, second] = retriesOf(sent.id);
    expect(retriesOf(sent.id).map(({ count }) => count)).toEqual([1, 2]);
    expect(first?.preKeyId).toBeUndefined();
    // The resend was a pre-key message on the pre-key the receipt offered (it is used up).
    expect(second?.preKeyId).toEqual(expect.any(Number));
    expect(contact.phone.hasPreKey(second!.preKeyId!)).toBe(false);
  }, 30_000);

  it("asks for one message at most five times, Baileys' maxMsgRetryCount", async () => {
    const sent = await opened.session.send({ kind: 'text', to: contact.jid, text: 'Asked for often' });
    const [read] = await until(() => (copiesOf(sent.id).length > 0 ? copiesOf(sent.id) : undefined), 20_000);

    const asked = Array.from({ length: 6 }, () => network.requestRetry(contact, read!));
    expect(asked).toEqual([true, true, true, true, true, false]);
    expect(retriesOf(sent.id).map(({ count }) => count)).toEqual([1, 2, 3, 4, 5]);
  }, 30_000);
});
