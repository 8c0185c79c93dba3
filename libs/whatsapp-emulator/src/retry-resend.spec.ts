import './trust-preload';
import type { OutboundInteractive } from '@jumbe/network';
import type { BinaryNode } from '@whiskeysockets/baileys';
import { DriverHarness, type OpenedSession, until } from './driver-harness';
import { WhatsAppEmulator } from './emulator';
import type { EmulatedUser } from './emulated-user';
import { child } from './iq-nodes';
import { EmulatedNetwork } from './network';

/**
 * Issue 8 item 7: a recipient that cannot decrypt a message asks for it again (a retry receipt).
 * Baileys rc14 resends on its own without the stanza's extra nodes; an interactive message resent
 * without `<biz>` never renders, so the driver answers those retries itself, with the same nodes.
 */
describe('retry receipts of sent messages, against real Baileys', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  let harness: DriverHarness;
  let opened: OpenedSession;
  let contact: EmulatedUser;

  beforeAll(async () => {
    harness = new DriverHarness(await emulator.start());
    opened = await harness.link(network, network.user('254700000050', 'Duka'), 'retries');
    contact = network.user('254744000001', 'Amina');
  }, 30_000);
  afterAll(async () => {
    await harness.closeAll();
    await emulator.stop();
  });

  const copiesOf = (id: string) => network.receivedBy(contact).filter((message) => message.id === id);

  it('an interactive message the contact could not decrypt is resent with its biz and bot nodes, and decrypts to the same message', async () => {
    network.failToDecrypt(contact);
    const interactive: OutboundInteractive = {
      kind: 'interactive',
      to: contact.jid,
      text: 'Which size?',
      footer: 'Duka',
      actions: [
        { type: 'reply', id: 'small', label: 'Small' },
        { type: 'url', label: 'Catalogue', url: 'https://example.com/catalogue' },
      ],
    };
    const sent = await opened.session.send(interactive);

    const [resent] = await until(
      () => (copiesOf(sent.id).length > 0 ? copiesOf(sent.id) : undefined),
      20_000,
    );
    const [failed] = network.undecryptable.filter(({ stanza }) => stanza.attrs.id === sent.id);
    expect(failed?.recipient).toBe(contact);
    // The resend is a new Signal session (a fresh bundle) carrying the original's stanza nodes.
    const biz = child(resent!.stanza, 'biz') as BinaryNode;
    expect(child(child(biz, 'interactive'), 'native_flow')?.attrs).toEqual({ v: '9', name: 'mixed' });
    expect(child(biz, 'quality_control')?.attrs).toEqual({ source_type: 'third_party' });
    expect(child(resent!.stanza, 'bot')?.attrs).toEqual({ biz_bot: '1' });
    expect(resent!.message.interactiveMessage?.body?.text).toBe('Which size?');
    expect(resent!.message.interactiveMessage?.footer?.text).toBe('Duka');
    const buttons = resent!.message.interactiveMessage?.nativeFlowMessage?.buttons ?? [];
    expect(buttons.map((button) => [button.name, JSON.parse(button.buttonParamsJson ?? '{}')])).toEqual([
      ['quick_reply', { display_text: 'Small', id: 'small' }],
      [
        'cta_url',
        {
          display_text: 'Catalogue',
          url: 'https://example.com/catalogue',
          merchant_url: 'https://example.com/catalogue',
        },
      ],
    ]);
    // Resent once: by the driver, not a second time by Baileys without the nodes.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(copiesOf(sent.id)).toHaveLength(1);
    expect(network.failures).toEqual([]);
  }, 30_000);

  it('a text the contact could not decrypt is still resent by Baileys itself', async () => {
    network.failToDecrypt(contact);
    const sent = await opened.session.send({ kind: 'text', to: contact.jid, text: 'Plain retry' });

    const [resent] = await until(
      () => (copiesOf(sent.id).length > 0 ? copiesOf(sent.id) : undefined),
      20_000,
    );
    expect(resent!.message.conversation ?? resent!.message.extendedTextMessage?.text).toBe('Plain retry');
    expect(child(resent!.stanza, 'biz')).toBeUndefined();
  }, 30_000);

  it('stops after Baileys own limit of retries: a contact that never decrypts gets two resends, then none', async () => {
    network.failToDecrypt(contact, 10);
    const sent = await opened.session.send({
      kind: 'interactive',
      to: contact.jid,
      text: 'Never readable',
      actions: [{ type: 'reply', id: 'ok', label: 'OK' }],
    });

    const attempts = () => network.undecryptable.filter(({ stanza }) => stanza.attrs.id === sent.id);
    await until(() => attempts().length >= 3, 20_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // The first delivery and two resends, each with the nodes (Baileys counts two per retry, up to 5).
    expect(attempts()).toHaveLength(3);
    for (const { stanza } of attempts()) expect(child(stanza, 'biz')).toBeDefined();
    network.failToDecrypt(contact, 0);
  }, 30_000);
});
