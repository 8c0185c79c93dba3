import './trust-preload';
import type { BinaryNode } from '@whiskeysockets/baileys';
import { DriverHarness, type OpenedSession, until } from './driver-harness';
import { WhatsAppEmulator } from './emulator';
import type { LinkedDevice } from './linked-device';
import { EmulatedNetwork } from './network';

/**
 * Issue 28, the fault schedule's seed 6: a contact's resend (answering the device's retry receipt)
 * reached Baileys just before an unknown stream error. Baileys decrypted it (the ratchet stored),
 * then its receipt failed (`Connection Closed`) before the message was emitted
 * (messages-recv.js `handleMessage`). WhatsApp delivered the unreceipted stanza again on the next
 * connection; its keys used up, Baileys nacked it (487, `Key used already or never filled`) and
 * sent no retry receipt, and the server forgot it: lost, though the contact's phone saw it answered.
 */
describe('a contact resend whose stream ends as it arrives, against real Baileys', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  const phone = network.user('254700000084', 'Duka la Baraka');
  const contact = network.user('254744000084', 'Wanjiru');
  let harness: DriverHarness;
  let opened: OpenedSession & { device: LinkedDevice };

  beforeAll(async () => {
    harness = new DriverHarness(await emulator.start());
    opened = await harness.link(network, phone, 'resend-stream-end');
  }, 60_000);
  afterAll(async () => {
    await harness.closeAll();
    await emulator.stop();
  });

  it('reaches the session once it reconnects, and the server holds nothing for the device', async () => {
    const deliver = network.deliver.bind(network);
    let streamsEnded = 0;
    // The server ends the stream right behind the resend: Baileys decrypts it on a closing socket.
    network.deliver = (device: LinkedDevice, stanza: BinaryNode) => {
      deliver(device, stanza);
      const enc = Array.isArray(stanza.content)
        ? stanza.content.find((node) => node.tag === 'enc')
        : undefined;
      if (stanza.tag === 'message' && enc?.attrs.count && streamsEnded === 0) {
        streamsEnded += network.endStream(device, 'unknown') ? 1 : 0;
      }
    };
    const id = network.sendUndecryptable(contact, phone, { conversation: 'Is the order ready?' });
    await until(() => opened.inbound.some((message) => message.id === id), 30_000);
    expect(streamsEnded).toBe(1);
    expect(opened.inbound.filter((message) => message.id === id).map((message) => message.text)).toEqual([
      'Is the order ready?',
    ]);
    await until(() => opened.device.unanswered.size === 0 && opened.device.backlog.length === 0, 10_000);
    expect(network.failures).toEqual([]);
  }, 60_000);
});
