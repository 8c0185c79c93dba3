import './trust-preload';
import { inboundSender } from '@jumbe/contracts';
import { DriverHarness, type OpenedSession, until } from './driver-harness';
import { WhatsAppEmulator } from './emulator';
import { child, children } from './iq-nodes';
import { EmulatedNetwork } from './network';

/**
 * Issue 28: groups WhatsApp addresses by LID (`addressing_mode="lid"`): the participant of each
 * message is a LID with its number in `participant_pn`. The customer gets the sender's number as
 * `from`, the LID as `participant`, and the group as `replyTo`.
 */
describe('a LID-addressed group', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  const phone = network.user('254700000075', 'Kibanda');
  const akinyi = network.user('254711000075', 'Akinyi');
  const baraka = network.user('254711000076', 'Baraka');
  const group = network.createGroup('Sokoni', akinyi, [phone, baraka], 'lid');
  let harness: DriverHarness;
  let opened: OpenedSession;
  let undecryptable = 0;

  const deliveredMessage = (id: string) =>
    until(() => opened.inbound.find((message) => message.id === id), 20_000);

  beforeAll(async () => {
    harness = new DriverHarness(await emulator.start(), undefined, {
      onUndecryptable: () => void (undecryptable += 1),
    });
    opened = await harness.link(network, phone, 'lid-group');
  }, 30_000);
  afterAll(async () => {
    await harness.closeAll();
    await emulator.stop();
  });

  it('delivers a LID participant’s messages with the right sender', async () => {
    for (const text of ['Habari za soko?', 'Nyanya zimefika']) {
      const id = await network.sendGroupMessage(akinyi, group.jid, phone, { conversation: text });
      const message = await deliveredMessage(id);
      expect(message).toMatchObject({ chat: group.jid, participant: akinyi.lid, text });
      expect(inboundSender(message)).toMatchObject({
        from: akinyi.jid,
        phoneNumber: '254711000075',
        replyTo: group.jid,
        participant: akinyi.lid,
      });
    }
    expect(undecryptable).toBe(0);
  }, 30_000);

  it('reads a member who wrote directly by phone number before, now as a LID in the group', async () => {
    const direct = await network.sendMessage(baraka, phone, { conversation: 'Niko njiani' });
    await deliveredMessage(direct);
    const id = await network.sendGroupMessage(baraka, group.jid, phone, { conversation: 'Nimefika' });
    const message = await deliveredMessage(id);
    expect(inboundSender(message)).toMatchObject({
      from: baraka.jid,
      phoneNumber: '254711000076',
      replyTo: group.jid,
      participant: baraka.lid,
    });
    expect(undecryptable).toBe(0);
  }, 30_000);

  it('sends to it: every member decrypts, the copies addressed to the members by LID', async () => {
    const sent = await opened.session.send({ kind: 'text', to: group.jid, text: 'Karibuni' });
    const copies = await until(() => {
      const found = [akinyi, baraka].map((member) =>
        network.receivedBy(member).find((message) => message.id === sent.id),
      );
      return found.every(Boolean) ? found : undefined;
    }, 20_000);
    for (const copy of copies) {
      expect(copy?.message.conversation ?? copy?.message.extendedTextMessage?.text).toBe('Karibuni');
    }
    const stanza = copies[0]?.stanza;
    const addressed = children(child(stanza, 'participants')).map((to) => to.attrs.jid ?? '');
    expect(addressed.length).toBeGreaterThan(0);
    for (const jid of addressed) expect(jid).toMatch(/@lid$/);
    expect(network.failures).toEqual([]);
  }, 30_000);
});
