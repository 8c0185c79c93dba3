import type { BinaryNode, SignalAuthState, SocketConfig } from '@whiskeysockets/baileys';
import { RememberedDecryptions } from './remembered-decryptions';

type Repository = ReturnType<SocketConfig['makeSignalRepository']>;

/** A repository whose keys are used up after one decryption of a ciphertext (libsignal's counters). */
function usedUpOnce(): { make: SocketConfig['makeSignalRepository']; decryptions: () => number } {
  const used = new Set<string>();
  let decryptions = 0;
  const decrypt = async (ciphertext: Uint8Array): Promise<Uint8Array> => {
    decryptions += 1;
    const key = Buffer.from(ciphertext).toString('hex');
    if (used.has(key)) throw new Error('Key used already or never filled');
    used.add(key);
    return Buffer.from(`plain:${key}`);
  };
  const repository = {
    decryptMessage: ({ ciphertext }: { ciphertext: Uint8Array }) => decrypt(ciphertext),
    decryptGroupMessage: ({ msg }: { msg: Uint8Array }) => decrypt(msg),
  } as unknown as Repository;
  return { make: () => repository, decryptions: () => decryptions };
}

const stanza = (id: string, ciphertext: Buffer): BinaryNode => ({
  tag: 'message',
  attrs: { id, from: '254711000001@s.whatsapp.net' },
  content: [{ tag: 'enc', attrs: { v: '2', type: 'msg' }, content: ciphertext }],
});

describe('RememberedDecryptions', () => {
  const ciphertext = Buffer.from('0a0b0c', 'hex');
  const opts = { jid: '254711000001@s.whatsapp.net', type: 'msg' as const, ciphertext };

  it('answers the same stanza delivered again (same id, same ciphertext) with its plaintext, across sockets', async () => {
    const remembered = new RememberedDecryptions();
    const inner = usedUpOnce();
    remembered.noteStanza(stanza('3A01', ciphertext));
    const first = await remembered
      .repository(inner.make)({} as SignalAuthState, undefined as never, undefined as never)
      .decryptMessage(opts);
    remembered.noteStanza(stanza('3A01', ciphertext));
    const nextSocket = remembered.repository(inner.make)(
      {} as SignalAuthState,
      undefined as never,
      undefined as never,
    );
    await expect(nextSocket.decryptMessage(opts)).resolves.toEqual(first);
    expect(inner.decryptions()).toBe(1);
  });

  it('leaves an old ciphertext under another id to libsignal, which refuses it (no replay)', async () => {
    const remembered = new RememberedDecryptions();
    const inner = usedUpOnce();
    const repository = remembered.repository(inner.make)(
      {} as SignalAuthState,
      undefined as never,
      undefined as never,
    );
    remembered.noteStanza(stanza('3A01', ciphertext));
    await repository.decryptMessage(opts);
    remembered.noteStanza(stanza('3A02', ciphertext));
    await expect(
      repository.decryptGroupMessage({ group: 'g@g.us', authorJid: opts.jid, msg: ciphertext }),
    ).rejects.toThrow('Key used already');
  });
});
