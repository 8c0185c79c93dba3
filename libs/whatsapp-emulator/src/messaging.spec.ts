import './trust-preload';
import type { OutboundInteractive, OutboundText } from '@jumbe/network';
import type { BinaryNode } from '@whiskeysockets/baileys';
import { child } from './iq-nodes';
import { DriverHarness, type OpenedSession, until } from './driver-harness';
import { WhatsAppEmulator } from './emulator';
import type { EmulatedUser } from './emulated-user';
import type { LinkedDevice } from './linked-device';
import { EmulatedNetwork } from './network';

describe('Signal-encrypted messages between emulated contacts and the linked device', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  let harness: DriverHarness;
  let opened: OpenedSession;
  let phone: EmulatedUser;
  let contact: EmulatedUser;
  let device: LinkedDevice;

  beforeAll(async () => {
    harness = new DriverHarness(await emulator.start());
    opened = await harness.open('messaging');
    const qr = await until(() => opened.links.find((event) => event.type === 'qr'));
    phone = network.user('254700000010', 'Shop');
    contact = network.user('254711000001', 'Amina');
    device = await network.scanQr(phone, qr.type === 'qr' ? qr.qr : '');
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
    const text: OutboundText = { kind: 'text', to: '254711000001@s.whatsapp.net', text: 'Yes, until 8 pm' };
    const sent = await opened.session.send(text);

    const received = await until(() => network.receivedBy(contact).find((message) => message.id === sent.id));
    expect(received.message.conversation ?? received.message.extendedTextMessage?.text).toBe(
      'Yes, until 8 pm',
    );
    expect(network.failures).toEqual([]);
  }, 30_000);

  it('reads every inbound kind the product maps: extended text, media metadata, button and list answers', async () => {
    const ids = {
      extended: await network.sendMessage(contact, phone, {
        extendedTextMessage: { text: 'See https://example.com', matchedText: 'https://example.com' },
      }),
      image: await network.sendMessage(contact, phone, {
        imageMessage: { mimetype: 'image/jpeg', caption: 'The red one', fileLength: 2048 },
      }),
      document: await network.sendMessage(contact, phone, {
        documentMessage: { mimetype: 'application/pdf', fileName: 'invoice.pdf', caption: 'Invoice' },
      }),
      button: await network.sendMessage(contact, phone, {
        buttonsResponseMessage: { selectedButtonId: 'yes', selectedDisplayText: 'Yes please' },
      }),
      list: await network.sendMessage(contact, phone, {
        listResponseMessage: { title: 'Large', singleSelectReply: { selectedRowId: 'size-l' } },
      }),
    };
    const byId = await until(() => {
      const found = new Map(opened.inbound.map((message) => [message.id, message]));
      return Object.values(ids).every((id) => found.has(id)) ? found : undefined;
    });
    expect(byId.get(ids.extended)).toMatchObject({
      type: 'extendedTextMessage',
      text: 'See https://example.com',
    });
    expect(byId.get(ids.image)).toMatchObject({
      type: 'imageMessage',
      text: 'The red one',
      media: { type: 'image', mimetype: 'image/jpeg', caption: 'The red one' },
    });
    expect(byId.get(ids.document)?.media).toMatchObject({ type: 'document', fileName: 'invoice.pdf' });
    expect(byId.get(ids.button)?.interaction).toEqual({
      type: 'quick_reply',
      id: 'yes',
      label: 'Yes please',
    });
    expect(byId.get(ids.list)?.interaction).toEqual({ type: 'list', id: 'size-l', label: 'Large' });
  }, 30_000);

  it('resolves a sender addressed by LID to its phone number (sender_pn)', async () => {
    const lidContact = network.user('254711000002', 'Baraka');
    const id = await network.sendMessage(
      lidContact,
      phone,
      { conversation: 'via lid' },
      { addressing: 'lid' },
    );

    const inbound = await until(() => opened.inbound.find((message) => message.id === id));
    expect(inbound).toMatchObject({
      chat: lidContact.lid,
      senderPhoneJid: '254711000002@s.whatsapp.net',
      text: 'via lid',
    });
  }, 30_000);

  it('sends an interactive message whose stanza carries the biz node and whose proto the contact decrypts', async () => {
    const interactive: OutboundInteractive = {
      kind: 'interactive',
      to: '254711000001@s.whatsapp.net',
      text: 'Which size?',
      footer: 'Duka',
      actions: [
        { type: 'reply', id: 'small', label: 'Small' },
        { type: 'url', label: 'Catalogue', url: 'https://example.com/catalogue' },
      ],
    };
    const sent = await opened.session.send(interactive);

    const received = await until(() => network.receivedBy(contact).find((message) => message.id === sent.id));
    const native = received.message.interactiveMessage?.nativeFlowMessage;
    expect(received.message.interactiveMessage?.body?.text).toBe('Which size?');
    expect(native?.buttons?.map((button) => button.name)).toEqual(['quick_reply', 'cta_url']);
    expect(JSON.parse(native?.buttons?.[0]?.buttonParamsJson ?? '{}')).toEqual({
      display_text: 'Small',
      id: 'small',
    });
    const biz = child(received.stanza, 'biz') as BinaryNode;
    expect(child(child(biz, 'interactive'), 'native_flow')?.attrs).toEqual({ v: '9', name: 'mixed' });
    expect(child(received.stanza, 'bot')?.attrs).toEqual({ biz_bot: '1' });
  }, 30_000);

  it('keeps what arrives while the device is offline and delivers it, in order, when it logs in again', async () => {
    await opened.session.close();
    const first = await network.sendMessage(contact, phone, { conversation: 'are you there?' });
    const second = await network.sendMessage(contact, phone, { conversation: 'call me back' });
    // Both wait on the server (marked offline) until the device logs in again.
    await until(() => device.backlog.length === 2);
    expect(device.backlog.map((stanza) => stanza.attrs.offline)).toEqual(['1', '1']);

    opened = await harness.open('messaging', true);
    await until(() => opened.inbound.length >= 2, 20_000);
    expect(opened.inbound.map((message) => [message.id, message.text])).toEqual([
      [first, 'are you there?'],
      [second, 'call me back'],
    ]);
  }, 30_000);
});
