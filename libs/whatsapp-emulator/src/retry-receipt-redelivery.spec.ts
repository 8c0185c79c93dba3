import './trust-preload';
import type { BinaryNode } from '@whiskeysockets/baileys';
import { DriverHarness, type OpenedSession, until } from './driver-harness';
import { WhatsAppEmulator } from './emulator';
import type { LinkedDevice } from './linked-device';
import { EmulatedNetwork } from './network';

/**
 * Issue 28, the fault schedule's seed 1: a contact's phone could not decrypt a send and asked for
 * it again, and the stream ended (an unknown stream error) while Baileys was resending. Baileys'
 * resend failed (`Connection Closed`), and so did its ack of the retry receipt, which it sends only
 * after the resend (messages-recv.js, `handleReceipt`'s `finally`). WhatsApp delivers again what a
 * device did not ack; the emulator kept only messages that way, so the receipt was gone and the
 * contact never got a copy it could read, although the send was answered with an id.
 */
describe('a retry receipt whose stream ends while Baileys resends, against real Baileys', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  const phone = network.user('254700000083', 'Duka la Zawadi');
  const contact = network.user('254744000083', 'Neema');
  let harness: DriverHarness;
  let opened: OpenedSession & { device: LinkedDevice };

  const copiesOf = (id: string) => network.receivedBy(contact).filter((message) => message.id === id);
  const textOf = (id: string) =>
    copiesOf(id).map(({ message }) => message.conversation ?? message.extendedTextMessage?.text);

  beforeAll(async () => {
    harness = new DriverHarness(await emulator.start());
    opened = await harness.link(network, phone, 'retry-redelivery');
  }, 60_000);
  afterAll(async () => {
    await harness.closeAll();
    await emulator.stop();
  });

  it('is delivered again on the next connection, and the contact reads the resend once', async () => {
    const deliver = network.deliver.bind(network);
    let streamsEnded = 0;
    // The server ends the stream right behind the retry receipt: Baileys is still resending.
    network.deliver = (device: LinkedDevice, stanza: BinaryNode) => {
      deliver(device, stanza);
      if (stanza.tag === 'receipt' && stanza.attrs.type === 'retry' && streamsEnded === 0) {
        streamsEnded += network.endStream(device, 'unknown') ? 1 : 0;
      }
    };
    network.failToDecrypt(contact);
    const sent = await opened.session.send({ kind: 'text', to: contact.jid, text: 'Order 83 is packed' });

    await until(() => copiesOf(sent.id).length > 0, 25_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(streamsEnded).toBe(1);
    expect(textOf(sent.id)).toEqual(['Order 83 is packed']);
    // One retry receipt, sent once by the phone and delivered again by the server.
    expect(network.retryReceipts.filter(({ id }) => id === sent.id).map(({ count }) => count)).toEqual([1]);
    expect(network.failures).toEqual([]);
    // Acked on the new connection: not delivered a third time.
    expect([...opened.device.unanswered.keys()]).toEqual([]);
    expect(opened.device.backlog).toEqual([]);
  }, 40_000);
});
