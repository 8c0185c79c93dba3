import type { SentKey } from '@jumbe/network';
import { SendReplays } from './send-replays';

const key = (id: string): SentKey => ({ remoteJid: '255711111111@s.whatsapp.net', fromMe: true, id });

describe('SendReplays', () => {
  it('forgets a send that failed, so the client can try the same request again', async () => {
    const replays = new SendReplays();
    let tries = 0;
    const send = async () => {
      tries += 1;
      if (tries === 1) throw new Error('WhatsApp did not take the message');
      return key(`SENT${tries}`);
    };
    await expect(replays.once('acct/default', 'id-1', send)).rejects.toThrow('did not take');
    await new Promise((resolve) => setImmediate(resolve));
    expect(await replays.once('acct/default', 'id-1', send)).toEqual(key('SENT2'));
    expect(await replays.once('acct/default', 'id-1', send)).toEqual(key('SENT2'));
    expect(tries).toBe(2);
  });

  it('sends every time when the request carries no send id (no Idempotency-Key)', async () => {
    const replays = new SendReplays();
    let tries = 0;
    const send = async () => key(`SENT${++tries}`);
    await replays.once('acct/default', undefined, send);
    await replays.once('acct/default', undefined, send);
    expect(tries).toBe(2);
  });
});
