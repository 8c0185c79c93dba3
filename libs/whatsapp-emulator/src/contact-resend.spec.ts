import './trust-preload';
import { MAX_RESENDS } from './contact-resends';
import { DriverHarness, type OpenedSession, until } from './driver-harness';
import { WhatsAppEmulator } from './emulator';
import { EmulatedNetwork } from './network';

/**
 * Issue 28: a contact's phone answers our device's retry receipt by resending the message in a
 * fresh Signal session, as WhatsApp clients do, within Baileys' limit of five per message.
 */
describe('a contact resending after a retry receipt', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  const phone = network.user('254700000071', 'Kibanda');
  const contact = network.user('254711000071', 'Akinyi');
  let harness: DriverHarness;
  let opened: OpenedSession;

  const resendsOf = (id: string) => network.contactResends.resent.filter((resend) => resend.id === id);
  const delivered = (id: string) => opened.inbound.filter((message) => message.id === id);

  beforeAll(async () => {
    harness = new DriverHarness(await emulator.start());
    opened = await harness.link(network, phone, 'contact-resend');
  }, 30_000);
  afterAll(async () => {
    await harness.closeAll();
    await emulator.stop();
  });

  it('delivers a message the device could not decrypt the first time, once, after one resend', async () => {
    const id = network.sendUndecryptable(contact, phone, { conversation: 'second time lucky' });
    await until(() => delivered(id).length === 1, 20_000);
    expect(delivered(id).map((message) => message.text)).toEqual(['second time lucky']);
    expect(resendsOf(id)).toEqual([expect.objectContaining({ count: 1, decryptable: true })]);
  }, 30_000);

  it('from the second retry on, starts the fresh session from the keys the receipt carries', async () => {
    const id = network.sendUndecryptable(contact, phone, { conversation: 'third try' }, 2);
    await until(() => delivered(id).length === 1, 20_000);
    expect(
      resendsOf(id).map(({ count, withKeys, decryptable }) => ({ count, withKeys, decryptable })),
    ).toEqual([
      { count: 1, withKeys: false, decryptable: false },
      { count: 2, withKeys: true, decryptable: false },
      { count: 3, withKeys: true, decryptable: true },
    ]);
  }, 30_000);

  it('gives up after five resends, and the next message still arrives', async () => {
    const lost = network.sendUndecryptable(contact, phone, { conversation: 'never readable' }, 99);
    await until(() => resendsOf(lost).length === MAX_RESENDS, 30_000);
    const next = await network.sendMessage(contact, phone, { conversation: 'after the lost one' });
    await until(() => delivered(next).length === 1, 20_000);
    expect(resendsOf(lost).map((resend) => resend.count)).toEqual([1, 2, 3, 4, 5]);
    expect(delivered(lost)).toEqual([]);
  }, 60_000);
});
