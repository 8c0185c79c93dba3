import './trust-preload';
import type { OutboundText } from '@jumbe/network';
import { DriverHarness, type OpenedSession, until } from './driver-harness';
import { WhatsAppEmulator } from './emulator';
import type { EmulatedUser } from './emulated-user';
import { EmulatedNetwork } from './network';

describe('Signal-encrypted messages between emulated contacts and the linked device', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  let harness: DriverHarness;
  let opened: OpenedSession;
  let phone: EmulatedUser;
  let contact: EmulatedUser;

  beforeAll(async () => {
    harness = new DriverHarness(await emulator.start());
    opened = await harness.open('messaging');
    const qr = await until(() => opened.links.find((event) => event.type === 'qr'));
    phone = network.user('254700000010', 'Shop');
    contact = network.user('254711000001', 'Amina');
    await network.scanQr(phone, qr.type === 'qr' ? qr.qr : '');
    await until(() => opened.links.find((event) => event.type === 'connected'));
  }, 30_000);
  afterAll(async () => {
    await harness.closeAll();
    await emulator.stop();
  });

  it('delivers a text a contact encrypted to the device, with the sender and text the product reads', async () => {
    const id = await network.sendMessage(contact, phone, { conversation: 'Habari, is the shop open?' });

    const inbound = await until(() => opened.inbound.find((message) => message.id === id));
    expect(inbound).toMatchObject({
      chat: '254711000001@s.whatsapp.net',
      pushName: 'Amina',
      text: 'Habari, is the shop open?',
    });
  }, 30_000);

  it('encrypts what the device sends so the contact decrypts exactly that text', async () => {
    const text: OutboundText = { to: '254711000001@s.whatsapp.net', text: 'Yes, until 8 pm' };
    const sent = await opened.session.sendText(text);

    const received = await until(() => network.receivedBy(contact).find((message) => message.id === sent.id));
    expect(received.message.conversation ?? received.message.extendedTextMessage?.text).toBe(
      'Yes, until 8 pm',
    );
    expect(network.failures).toEqual([]);
  }, 30_000);
});
