import './trust-preload';
import { DriverHarness, type OpenedSession, until } from './driver-harness';
import { WhatsAppEmulator } from './emulator';
import { child, children } from './iq-nodes';
import { EmulatedNetwork } from './network';

/**
 * Issue 28 (chaos seed 2): a group message the device decrypted, whose receipt then failed as its
 * socket ended, was delivered again and failed `Received message with old counter` (the device's
 * sender-key chain had moved past it). The device sent a retry receipt; a real sender answers it by
 * resending the message to that device alone, encrypted pairwise, from the group with the author
 * as participant. The message must then reach the customer exactly once.
 */
describe('a group message the device cannot read with its sender key, against real Baileys', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  const phone = network.user('254700000091', 'Duka la Mama Pima');
  const author = network.user('254711000091', 'Njeri');
  const group = network.createGroup('Chama', author, [phone]);
  const lidGroup = network.createGroup('Wauzaji', author, [phone], 'lid');
  let harness: DriverHarness;
  let opened: OpenedSession;
  let undecryptable = 0;

  const delivered = (id: string) => opened.inbound.filter((message) => message.id === id);
  const resendsOf = (id: string) => network.contactResends.resent.filter((resend) => resend.id === id);
  const settle = () => new Promise((resolve) => setTimeout(resolve, 1_000));
  const sendRead = async (groupJid: string, text: string) => {
    const id = await network.sendGroupMessage(author, groupJid, phone, { conversation: text });
    await until(() => delivered(id).length === 1, 20_000);
    return id;
  };

  beforeAll(async () => {
    harness = new DriverHarness(await emulator.start(), undefined, {
      onUndecryptable: () => void (undecryptable += 1),
    });
    opened = await harness.link(network, phone, 'group-resend');
    // The device holds the author's sender key and has used a counter of it in each group.
    await sendRead(group.jid, 'Karibuni kwa chama');
    await sendRead(lidGroup.jid, 'Karibuni wauzaji');
  }, 60_000);
  afterAll(async () => {
    await harness.closeAll();
    await emulator.stop();
  });

  it('is asked for again, resent to the device alone pairwise from the group, and delivered once', async () => {
    const before = undecryptable;
    const id = await network.sendStaleGroupMessage(author, group.jid, phone, {
      conversation: 'Mkutano ni Jumamosi',
    });

    await until(() => delivered(id).length === 1, 20_000);
    await settle();
    expect(delivered(id)).toEqual([
      expect.objectContaining({ chat: group.jid, participant: author.jid, text: 'Mkutano ni Jumamosi' }),
    ]);
    // The first copy failed on the device (no resend without its retry receipt).
    expect(undecryptable - before).toBe(1);
    const [resend, ...more] = resendsOf(id);
    expect(more).toEqual([]);
    expect(resend).toMatchObject({ count: 1, withKeys: false, decryptable: true });
    expect(resend?.stanza.attrs).toMatchObject({ from: group.jid, participant: author.jid });
    const encs = children(resend?.stanza).filter((node) => node.tag === 'enc');
    expect(encs.map((enc) => enc.attrs)).toEqual([{ v: '2', type: 'pkmsg', count: '1' }]);
  }, 30_000);

  it("the group's next messages decrypt with the sender key as before", async () => {
    const id = await sendRead(group.jid, 'Leteni michango');
    await settle();
    expect(delivered(id)).toEqual([expect.objectContaining({ text: 'Leteni michango' })]);
    expect(resendsOf(id)).toEqual([]);
  }, 30_000);

  it('from the second retry receipt, resends in a session from the keys the device sent', async () => {
    const id = await network.sendStaleGroupMessage(author, group.jid, phone, { conversation: 'Tena' }, 1);

    await until(() => delivered(id).length === 1, 20_000);
    await settle();
    expect(delivered(id).map((message) => message.text)).toEqual(['Tena']);
    expect(
      resendsOf(id).map(({ count, withKeys, decryptable }) => ({ count, withKeys, decryptable })),
    ).toEqual([
      { count: 1, withKeys: false, decryptable: false },
      { count: 2, withKeys: true, decryptable: true },
    ]);
  }, 30_000);

  it('in a LID-addressed group, the resend names the author by LID and Baileys reads it in that session', async () => {
    const id = await network.sendStaleGroupMessage(author, lidGroup.jid, phone, { conversation: 'Bei mpya' });

    await until(() => delivered(id).length === 1, 20_000);
    await settle();
    expect(delivered(id)).toEqual([
      expect.objectContaining({ chat: lidGroup.jid, participant: author.lid, text: 'Bei mpya' }),
    ]);
    const [resend] = resendsOf(id);
    expect(resend?.stanza.attrs).toMatchObject({
      from: lidGroup.jid,
      participant: author.lid,
      participant_pn: author.jid,
    });
    expect(child(resend?.stanza, 'enc')?.attrs.type).toMatch(/^(pkmsg|msg)$/);
    expect(resendsOf(id)).toHaveLength(1);
    expect(network.failures).toEqual([]);
  }, 30_000);
});
