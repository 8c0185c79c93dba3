import './trust-preload';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MemorySentMessageStore } from '@jumbe/network/testing';
import { DriverHarness, type OpenedSession, until } from './driver-harness';
import { WhatsAppEmulator } from './emulator';
import type { EmulatedUser } from './emulated-user';
import { EmulatedNetwork } from './network';
import { pollOptions, voteOnPoll } from './poll-votes';

/** Polls and status posts (issue 30 items 3, 7) through the product's driver and real Baileys. */
describe('polls and status posts through real Baileys against the emulator', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  // The durable archive a worker keeps sent messages in (PostgreSQL in production).
  const sentMessages = new MemorySentMessageStore();
  let url: string;
  let mediaHost: string;
  let harness: DriverHarness;
  let opened: OpenedSession;
  let phone: EmulatedUser;
  let amina: EmulatedUser;
  let baraka: EmulatedUser;

  beforeAll(async () => {
    url = await emulator.start();
    mediaHost = await network.media.start();
    harness = new DriverHarness(url, undefined, { sentMessages, mediaHost });
    phone = network.user('254700000030', 'Shop');
    amina = network.user('254711000031', 'Amina');
    baraka = network.user('254711000032', 'Baraka');
    opened = await harness.link(network, phone, 'polls');
  }, 30_000);
  afterAll(async () => {
    await harness.closeAll();
    await emulator.stop();
  });

  it('sends a poll the contact decrypts, single choice, with its secret; her vote comes back decrypted', async () => {
    const sent = await opened.session.send({
      kind: 'poll',
      to: amina.jid,
      question: 'Lunch?',
      options: ['Ugali', 'Pilau', 'Chapati'],
    });
    const poll = await until(() => network.receivedBy(amina).find((message) => message.id === sent.id));
    expect(poll.message.pollCreationMessageV3?.name).toBe('Lunch?');
    expect(poll.message.pollCreationMessageV3?.selectableOptionsCount).toBe(1);
    expect(pollOptions(poll.message)).toEqual(['Ugali', 'Pilau', 'Chapati']);
    expect(poll.message.messageContextInfo?.messageSecret?.length).toBe(32);
    // Kept durably for the votes to come: 30 days, not the sent messages' day.
    const keptFor =
      (sentMessages.keptUntil.get(`${opened.ref.accountId}/polls/${sent.id}`)?.getTime() ?? 0) - Date.now();
    expect(keptFor).toBeGreaterThan(29 * 24 * 3_600_000);

    const voteId = await voteOnPoll(network, amina, phone, poll, ['Pilau']);

    const vote = await until(() => opened.pollVotes.find((found) => found.id === voteId));
    expect(vote).toMatchObject({
      pollId: sent.id,
      chat: amina.jid,
      voterPhone: amina.phoneNumber,
      selectedOptions: ['Pilau'],
    });
    // A vote is no message: never message.received.
    expect(opened.inbound.find((message) => message.id === voteId)).toBeUndefined();
  }, 30_000);

  it('a multiple-choice vote names every option chosen, in the poll’s order; a changed vote replaces it', async () => {
    const sent = await opened.session.send({
      kind: 'poll',
      to: amina.jid,
      question: 'Which days?',
      options: ['Mon', 'Tue', 'Wed'],
      multipleChoice: true,
    });
    const poll = await until(() => network.receivedBy(amina).find((message) => message.id === sent.id));
    expect(poll.message.pollCreationMessage?.selectableOptionsCount).toBe(0);

    const first = await voteOnPoll(network, amina, phone, poll, ['Wed', 'Mon']);
    expect((await until(() => opened.pollVotes.find((vote) => vote.id === first))).selectedOptions).toEqual([
      'Mon',
      'Wed',
    ]);
    const taken = await voteOnPoll(network, amina, phone, poll, []);
    expect((await until(() => opened.pollVotes.find((vote) => vote.id === taken))).selectedOptions).toEqual(
      [],
    );
  }, 30_000);

  it('decrypts a vote after a worker restart, from the sent-message store', async () => {
    const sent = await opened.session.send({
      kind: 'poll',
      to: baraka.jid,
      question: 'Open Sunday?',
      options: ['Yes', 'No'],
    });
    const poll = await until(() => network.receivedBy(baraka).find((message) => message.id === sent.id));
    await harness.closeAll();

    // A new worker: nothing in memory, the same credentials and durable store.
    harness = new DriverHarness(url, undefined, {
      credentials: harness.credentials,
      sentMessages,
      mediaHost,
    });
    opened = await harness.open('polls', true);
    await until(() => opened.links.find((event) => event.type === 'connected'), 20_000);
    const voteId = await voteOnPoll(network, baraka, phone, poll, ['No']);

    const vote = await until(() => opened.pollVotes.find((found) => found.id === voteId));
    expect(vote).toMatchObject({ pollId: sent.id, voterPhone: baraka.phoneNumber, selectedOptions: ['No'] });
  }, 40_000);

  it('decrypts a vote from a contact addressed by LID (the key derived from both LIDs)', async () => {
    const sent = await opened.session.send({
      kind: 'poll',
      to: amina.jid,
      question: 'Delivery?',
      options: ['Today', 'Tomorrow'],
    });
    const poll = await until(() => network.receivedBy(amina).find((message) => message.id === sent.id));

    const voteId = await voteOnPoll(network, amina, phone, poll, ['Tomorrow'], 'lid');

    const vote = await until(() => opened.pollVotes.find((found) => found.id === voteId));
    expect(vote).toMatchObject({
      pollId: sent.id,
      voterPhone: amina.phoneNumber,
      selectedOptions: ['Tomorrow'],
    });
  }, 30_000);

  it('drops a vote on a poll it never sent', async () => {
    const stranger = network.user('254711000033', 'Stranger');
    const real = network.receivedBy(amina).find((message) => message.message.pollCreationMessageV3);
    if (!real) throw new Error('no poll received earlier');
    // A poll as a phone would have it, under an id this session never sent.
    const fake = { ...real, id: '3EB0FAKEPOLL0001' };
    const voteId = await voteOnPoll(network, stranger, phone, fake, ['Yes']);
    const marker = await network.sendMessage(stranger, phone, { conversation: 'after the vote' });
    await until(() => opened.inbound.find((message) => message.id === marker));
    expect(opened.pollVotes.find((vote) => vote.id === voteId)).toBeUndefined();
  }, 30_000);

  it('posts a text status to status@broadcast that each listed contact decrypts', async () => {
    const sent = await opened.session.send({
      kind: 'status',
      type: 'text',
      text: 'Open till 8 today',
      backgroundColor: '#1E90FF',
      font: 1,
      contacts: [amina.phoneNumber, baraka.phoneNumber],
    });
    expect(sent.remoteJid).toBe('status@broadcast');

    for (const contact of [amina, baraka]) {
      const status = await until(() => network.receivedBy(contact).find((message) => message.id === sent.id));
      expect(status.chat).toBe('status@broadcast');
      expect(status.message.extendedTextMessage?.text).toBe('Open till 8 today');
      expect(status.message.extendedTextMessage?.backgroundArgb).toBe(0xff1e90ff);
    }
    // Only the listed contacts get it.
    expect(
      network.receivedBy(network.user('254711000033')).find((message) => message.id === sent.id),
    ).toBeUndefined();
    expect(network.failures).toEqual([]);
  }, 30_000);

  it('posts an image status, fetched from its URL, that a listed contact downloads and decrypts', async () => {
    const photo = randomBytes(50_000);
    const server = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'image/jpeg' });
      response.end(photo);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const sent = await opened.session.send({
        kind: 'status',
        type: 'image',
        url: `http://127.0.0.1:${port}/offer.jpg`,
        caption: 'New stock',
        contacts: [baraka.phoneNumber],
      });
      const status = await until(
        () => network.receivedBy(baraka).find((message) => message.id === sent.id),
        20_000,
      );
      expect(status.chat).toBe('status@broadcast');
      expect(status.message.imageMessage?.caption).toBe('New stock');
      expect((await network.downloadMedia(status)).equals(photo)).toBe(true);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }, 40_000);
});

describe('a status post into a connection that turns out dead (keep-alive silence)', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  const phone = network.user('254700000083', 'Duka');
  const contact = network.user('254711000083', 'Amina');
  let harness: DriverHarness;

  beforeAll(async () => {
    harness = new DriverHarness(await emulator.start(), undefined, { keepAliveIntervalMs: 1_000 });
  });
  afterAll(async () => {
    await harness.closeAll();
    await emulator.stop();
  });

  it('goes out again to the same contacts after the reconnect, under the same id', async () => {
    const { device, ...opened } = await harness.link(network, phone, 'silent-status');
    const received = () => network.receivedBy(contact);
    const status = { kind: 'status' as const, type: 'text' as const, contacts: [contact.phoneNumber] };
    // A first post, so the next needs no device list or sender key (queries a silence would hang).
    const first = await opened.session.send({ ...status, text: 'first' });
    await until(() => received().some((message) => message.id === first.id));

    const silenced = network.connectionOf(device);
    expect(network.silenceConnection(device)).toBe(true);
    const sent = await opened.session.send({ ...status, text: 'into the silence' });
    await until(() => ![undefined, silenced].includes(network.connectionOf(device)), 30_000);
    await until(() => received().some((message) => message.id === sent.id), 20_000);

    const copies = received().filter((message) => message.id === sent.id);
    expect(copies.map(({ chat, message }) => [chat, message.extendedTextMessage?.text])).toEqual([
      ['status@broadcast', 'into the silence'],
    ]);
  }, 60_000);
});
