import './trust-preload';
import type { BinaryNode } from '@whiskeysockets/baileys';
import { DriverHarness, type OpenedSession, until } from './driver-harness';
import { type EmulatedConnection, WhatsAppEmulator } from './emulator';
import { HalfOpenLink } from './half-open-link';
import type { LinkedDevice } from './linked-device';
import { EmulatedNetwork } from './network';

/**
 * WhatsApp's server keeps one queue per device, in the order it took the messages for it; what it
 * handed to a connection that closed before the device answered goes out again on the next
 * connection in its place. The emulator once put a closed connection's unanswered messages
 * (live ones included) ahead of the backlog it had not sent yet, and sent a live message ahead of
 * a backlog still being replayed: a contact's newest message could reach the device before older
 * ones. Checked on what the server sends the real Baileys.
 */
describe("a device's queue across a backlog replay and a reconnect", () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  const phone = network.user('254700000097', 'Duka la Mama');
  const contact = network.user('254711000097', 'Njeri');
  let harness: DriverHarness;
  let device: LinkedDevice;
  let opened: OpenedSession;
  /** Every message stanza the server handed a connection of the device (silenced ones too). */
  const handed: { connection: EmulatedConnection; id: string; offline?: string }[] = [];

  beforeAll(async () => {
    emulator.on('connection', (connection: EmulatedConnection) => {
      const send = connection.send.bind(connection);
      connection.send = (node: BinaryNode) => {
        if (node.tag === 'message')
          handed.push({ connection, id: node.attrs.id ?? '', offline: node.attrs.offline });
        send(node);
      };
    });
    harness = new DriverHarness(await emulator.start());
    ({ device, ...opened } = await harness.link(network, phone, 'queue-order'));
  }, 30_000);
  afterAll(async () => {
    network.offlineBatchLimit = Number.POSITIVE_INFINITY;
    await harness.closeAll();
    await emulator.stop();
  });

  const handedOn = (connection: EmulatedConnection | undefined, ids: string[]) =>
    handed.filter((item) => item.connection === connection && ids.includes(item.id)).map((item) => item.id);
  const delivered = (ids: string[]) =>
    opened.inbound.map((message) => message.id).filter((id) => ids.includes(id));

  /** The device goes away and `contact` writes `count` texts: its backlog. */
  async function backlogWhileAway(label: string, count: number): Promise<string[]> {
    await opened.session.close();
    await until(() => network.connectionOf(device) === undefined);
    const ids: string[] = [];
    for (let index = 0; index < count; index += 1) {
      ids.push(await network.sendMessage(contact, phone, { conversation: `${label} ${index}` }));
    }
    return ids;
  }

  /** Calls `act` on the device's next connection once Baileys asks that connection for a batch. */
  function onBatchRequest(act: (connection: EmulatedConnection) => void): void {
    emulator.once('connection', (connection: EmulatedConnection) => {
      // Ahead of the replay's own listener: `act` runs before the batch goes out.
      connection.prependListener('node', function asked(node: BinaryNode) {
        const request = node.tag === 'ib' && Array.isArray(node.content) ? node.content[0] : undefined;
        if (request?.tag !== 'offline_batch') return;
        connection.off('node', asked);
        act(connection);
      });
    });
  }

  it('a connection closed mid-backlog: its unanswered live message comes back behind the unsent backlog', async () => {
    const backlog = await backlogWhileAway('kabla', 5);
    network.offlineBatchLimit = 2;
    // The first batch goes out on a connection that went quiet: sent, never answered.
    let quiet: EmulatedConnection | undefined;
    onBatchRequest((connection) => {
      quiet = connection;
      connection.silence();
    });
    opened = await harness.open('queue-order', true);
    await until(() => handedOn(quiet, backlog).length === 2, 20_000);
    const live = await network.sendMessage(contact, phone, { conversation: 'sasa hivi' });
    expect(network.connectionOf(device)).toBe(quiet);
    expect(network.resetConnection(device)).toBe(true);

    // Baileys reconnects; the next connection gets the device's queue in the order it was taken.
    await until(() => ![undefined, quiet].includes(network.connectionOf(device)), 20_000);
    const next = network.connectionOf(device);
    const all = [...backlog, live];
    await until(() => handedOn(next, all).length === all.length, 20_000);
    expect(handedOn(next, all)).toEqual(all);
    await until(() => delivered(all).length === all.length, 20_000);
    expect(delivered(all)).toEqual(all);
  }, 60_000);

  it('a live message taken while the backlog is still being sent goes out after it', async () => {
    const backlog = await backlogWhileAway('zamani', 4);
    // The live message, made now and handed over once the device asked for the first batch.
    const live = await network.sendMessage(contact, phone, { conversation: 'mpya' });
    const stanza = device.backlog.pop();
    if (!stanza) throw new Error('the live message was not kept for the device');
    const liveStanza = { ...stanza, attrs: { ...stanza.attrs } };
    delete liveStanza.attrs['offline'];
    network.offlineBatchLimit = 2;
    let replaying: EmulatedConnection | undefined;
    onBatchRequest((connection) => {
      replaying = connection;
      // Once the replay's own listener sent the first batch, before the device answers it.
      setImmediate(() => network.deliver(device, liveStanza));
    });
    opened = await harness.open('queue-order', true);

    const all = [...backlog, live];
    await until(() => handedOn(replaying, all).length === all.length, 20_000);
    expect(handedOn(replaying, all)).toEqual(all);
    // Taken while the device was online: a live stanza, not one from the offline queue.
    const sent = handed.filter((item) => item.connection === replaying && all.includes(item.id));
    expect(sent.map((item) => item.offline)).toEqual(['1', '1', '1', '1', undefined]);
    await until(() => delivered(all).length === all.length, 20_000);
    expect(delivered(all)).toEqual(all);
  }, 60_000);
});

/**
 * The same queue when a login replaces a connection the server still holds (440 to the old one):
 * a path that went half-open mid-backlog (the device saw its socket break and logged in again).
 * The old connection closes only at the server's own timeout; what it was handed and never
 * answered, and the backlog it had not sent, must come first on the new one, not wait for it.
 */
describe("a device's queue when a new login replaces a connection mid-backlog", () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  const phone = network.user('254700000098', 'Duka la Baba');
  const contact = network.user('254711000098', 'Chebet');
  const handed: { connection: EmulatedConnection; id: string }[] = [];
  let link: HalfOpenLink;
  let harness: DriverHarness;
  let device: LinkedDevice;
  let opened: OpenedSession;

  beforeAll(async () => {
    emulator.on('connection', (connection: EmulatedConnection) => {
      const send = connection.send.bind(connection);
      connection.send = (node: BinaryNode) => {
        if (node.tag === 'message') handed.push({ connection, id: node.attrs.id ?? '' });
        send(node);
      };
    });
    link = new HalfOpenLink(await emulator.start());
    harness = new DriverHarness(await link.start());
    ({ device, ...opened } = await harness.link(network, phone, 'queue-replaced'));
  }, 30_000);
  afterAll(async () => {
    network.offlineBatchLimit = Number.POSITIVE_INFINITY;
    await harness.closeAll();
    await link.stop();
    await emulator.stop();
  });

  const handedOn = (connection: EmulatedConnection | undefined, ids: string[]) =>
    handed.filter((item) => item.connection === connection && ids.includes(item.id)).map((item) => item.id);

  it('what the replaced connection held comes first on the new one, in the order taken', async () => {
    await opened.session.close();
    await until(() => network.connectionOf(device) === undefined);
    const backlog: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      backlog.push(await network.sendMessage(contact, phone, { conversation: `jana ${index}` }));
    }
    network.offlineBatchLimit = 2;
    // The path goes half-open as Baileys asks for the first batch: the batch never reaches it.
    let stranded: EmulatedConnection | undefined;
    emulator.once('connection', (connection: EmulatedConnection) => {
      connection.prependListener('node', function asked(node: BinaryNode) {
        const request = node.tag === 'ib' && Array.isArray(node.content) ? node.content[0] : undefined;
        if (request?.tag !== 'offline_batch') return;
        connection.off('node', asked);
        stranded = connection;
        link.strand();
      });
    });
    opened = await harness.open('queue-replaced', true);
    await until(() => handedOn(stranded, backlog).length === 2, 20_000);
    const live = await network.sendMessage(contact, phone, { conversation: 'leo' });

    // Baileys logs in again while the server still holds `stranded`, whose batch it never got.
    await until(() => ![undefined, stranded].includes(network.connectionOf(device)), 20_000);
    const next = network.connectionOf(device);
    const all = [...backlog, live];
    await until(() => handedOn(next, all).length === all.length, 20_000);
    expect(handedOn(next, all)).toEqual(all);
    await until(
      () => opened.inbound.filter((message) => all.includes(message.id)).length === all.length,
      20_000,
    );
    expect(opened.inbound.map((message) => message.id).filter((id) => all.includes(id))).toEqual(all);
  }, 60_000);
});
