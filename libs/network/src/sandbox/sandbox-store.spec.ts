import type { InboundNetworkMessage } from '@jumbe/domain';
import type { SessionRef } from '../session-ref';
import {
  SANDBOX_MEDIA_FILES_PER_SESSION,
  SANDBOX_OUTBOX_CAPACITY,
  SANDBOX_RECEIVED_CAPACITY,
  type SandboxStore,
} from './sandbox-store';
import {
  memoryStores,
  outboxEntry as entry,
  redisStores,
  type SandboxStoreKind,
} from './test-support/sandbox-store-fixtures';
import { delay } from './test-support/session-recorder';

// The two stores must be interchangeable: one contract, run against both.
const kinds: SandboxStoreKind[] = [memoryStores(), redisStores()];

const A: SessionRef = { accountId: 'acc:1/x', sessionId: 'default' };
const B: SessionRef = { accountId: 'acc_2', sessionId: 'default' };
const C: SessionRef = { accountId: 'acc_2', sessionId: 'sales' };
const QR = { kind: 'qr' as const, qr: 'jumbe-sandbox://link?ref=abc' };

function inbound(id: string, text: string): InboundNetworkMessage {
  return {
    id,
    chat: '254711000111@s.whatsapp.net',
    participant: null,
    senderPhoneJid: null,
    fromMe: false,
    pushName: null,
    type: 'conversation',
    text,
    interaction: null,
    media: null,
    timestamp: new Date('2026-03-01T10:00:00.000Z'),
  };
}

describe.each(kinds)('$name', (kind) => {
  let store: SandboxStore;
  let sameNetwork: SandboxStore;

  beforeEach(async () => {
    ({ first: store, second: sameNetwork } = await kind.pair());
  });

  afterAll(() => kind.cleanUp());

  describe('pending login', () => {
    it('is stored, replaced, read from another handle and cleared', async () => {
      await store.setPendingLogin(A, QR, 10_000);
      expect(await sameNetwork.pendingLogin(A)).toEqual(QR);
      const code = { kind: 'pairing_code' as const, code: 'ABCD-EFGH', phoneNumber: '254700000001' };
      await store.setPendingLogin(A, code, 10_000);
      expect(await store.pendingLogin(A)).toEqual(code);
      expect(await store.pendingLogin(B)).toBeNull();
      await sameNetwork.clearPendingLogin(A);
      expect(await store.pendingLogin(A)).toBeNull();
    });

    it('lapses after its time to live', async () => {
      await store.setPendingLogin(A, QR, 50);
      await delay(120);
      expect(await store.pendingLogin(A)).toBeNull();
      expect(await store.completeLogin(A, '254700000001')).toBe('not_ready');
    });
  });

  describe('linking', () => {
    it('needs a pending login', async () => {
      expect(await store.completeLogin(A, '254700000001')).toBe('not_ready');
      expect(await store.linkedNumber(A)).toBeNull();
    });

    it('links, marks online and consumes the login', async () => {
      await store.setPendingLogin(A, QR, 10_000);
      expect(await store.completeLogin(A, '254700000001')).toBe('linked');
      expect(await sameNetwork.linkedNumber(A)).toBe('254700000001');
      expect(await store.pendingLogin(A)).toBeNull();
      expect(await store.completeLogin(A, '254700000001')).toBe('not_ready');
    });

    it('refuses a number an online session holds, whatever the account', async () => {
      await store.setPendingLogin(A, QR, 10_000);
      await store.completeLogin(A, '254700000001');
      await store.setPendingLogin(B, QR, 10_000);
      expect(await sameNetwork.completeLogin(B, '254700000001')).toBe('number_in_use');
      expect(await store.pendingLogin(B)).toEqual(QR); // still waiting
      expect(await store.linkedNumber(B)).toBeNull();
    });

    it('takes a number from an offline session, which loses its link', async () => {
      await store.setPendingLogin(A, QR, 10_000);
      await store.completeLogin(A, '254700000001');
      await store.goOffline(A);
      await store.setPendingLogin(B, QR, 10_000);
      expect(await store.completeLogin(B, '254700000001')).toBe('linked');
      expect(await store.linkedNumber(A)).toBeNull();
      expect(await store.goOnline(A)).toBeNull();
      expect(await store.goOnline(B)).toBe('254700000001');
    });

    it("releases the session's previous number when it links another", async () => {
      await store.setPendingLogin(A, QR, 10_000);
      await store.completeLogin(A, '254700000001');
      await store.setPendingLogin(A, QR, 10_000);
      expect(await store.completeLogin(A, '254700000002')).toBe('linked');
      await store.setPendingLogin(B, QR, 10_000);
      expect(await store.completeLogin(B, '254700000001')).toBe('linked');
      expect(await store.linkedNumber(A)).toBe('254700000002');
    });

    it('goes online only when linked, and back offline', async () => {
      expect(await store.goOnline(A)).toBeNull();
      await store.setPendingLogin(A, QR, 10_000);
      await store.completeLogin(A, '254700000001');
      await store.goOffline(A);
      expect(await sameNetwork.goOnline(A)).toBe('254700000001');
      await store.setPendingLogin(B, QR, 10_000);
      expect(await store.completeLogin(B, '254700000001')).toBe('number_in_use');
    });

    it('resumes a link from credentials it lost, unless another session holds the number', async () => {
      expect(await store.resumeLink(A, '254700000001')).toBe('254700000001');
      expect(await sameNetwork.linkedNumber(A)).toBe('254700000001');
      // Online, so the number is in use for anyone else.
      await store.setPendingLogin(B, QR, 10_000);
      expect(await store.completeLogin(B, '254700000001')).toBe('number_in_use');
      expect(await sameNetwork.resumeLink(B, '254700000001')).toBeNull();
      expect(await store.linkedNumber(B)).toBeNull();
      // A session linked already keeps its own number, whatever the credentials say.
      await store.goOffline(A);
      expect(await sameNetwork.resumeLink(A, '254700000002')).toBe('254700000001');
      // A number the phone moved to another session is not taken back.
      await store.goOffline(A);
      expect(await store.completeLogin(B, '254700000001')).toBe('linked');
      expect(await store.resumeLink(A, '254700000001')).toBeNull();
      expect(await store.linkedNumber(A)).toBeNull();
    });

    it('unlinks: number free, login and pending messages gone, outbox kept', async () => {
      await store.setPendingLogin(A, QR, 10_000);
      await store.completeLogin(A, '254700000001');
      await store.addPendingInbound(A, inbound('m1', 'hi'));
      await store.appendOutbox(A, entry(1));
      await store.setPendingLogin(A, QR, 10_000);
      await sameNetwork.unlink(A);
      expect(await store.linkedNumber(A)).toBeNull();
      expect(await store.pendingLogin(A)).toBeNull();
      expect(await store.pendingInbound(A)).toEqual([]);
      expect(await store.outbox(A, 10)).toEqual([entry(1)]);
      await store.setPendingLogin(C, QR, 10_000);
      expect(await store.completeLogin(C, '254700000001')).toBe('linked');
      await store.unlink(B); // never linked: harmless
    });
  });

  describe('outbox', () => {
    it('is newest first, per session, limited, and capped', async () => {
      for (let n = 1; n <= SANDBOX_OUTBOX_CAPACITY + 5; n += 1) void store.appendOutbox(A, entry(n));
      await store.appendOutbox(B, entry(0));
      const all = await sameNetwork.outbox(A, 5_000);
      expect(all).toHaveLength(SANDBOX_OUTBOX_CAPACITY);
      expect(all[0]).toEqual(entry(SANDBOX_OUTBOX_CAPACITY + 5));
      expect(all[all.length - 1]).toEqual(entry(6));
      expect(await store.outbox(A, 2)).toEqual([
        entry(SANDBOX_OUTBOX_CAPACITY + 5),
        entry(SANDBOX_OUTBOX_CAPACITY + 4),
      ]);
      expect(await store.outbox(A, 0)).toEqual([]);
      expect(await store.outbox(B, 10)).toEqual([entry(0)]);
      expect(await store.outbox(C, 10)).toEqual([]);
    });

    it('keeps the newest, in order, however many were sent', async () => {
      const sent = 3 * SANDBOX_OUTBOX_CAPACITY + 7;
      const appending: Array<Promise<void>> = [];
      for (let n = 1; n <= sent; n += 1) appending.push(store.appendOutbox(A, entry(n)));
      await Promise.all(appending);
      const all = await sameNetwork.outbox(A, 5_000);
      expect(all.map((each) => each.id)).toEqual(
        Array.from({ length: SANDBOX_OUTBOX_CAPACITY }, (_, i) => entry(sent - i).id),
      );
    });

    it('keeps each session apart and in order, and each entry as it was sent, when many send at once', async () => {
      const sends = [A, B, C].flatMap((ref) => [1, 2, 3].map((n) => ({ ref, sent: entry(n) })));
      const appending = sends.map(({ ref, sent }) => store.appendOutbox(ref, sent));
      for (const { sent } of sends) sent.content.text = 'changed while on its way';
      await Promise.all(appending);
      for (const ref of [A, B, C])
        expect(await sameNetwork.outbox(ref, 10)).toEqual([entry(3), entry(2), entry(1)]);
    });

    it('is not changed through an entry its sender still holds', async () => {
      const sending = entry(1);
      await store.appendOutbox(A, sending);
      sending.to = 'changed@s.whatsapp.net';
      sending.content.text = 'changed';
      const [kept] = await store.outbox(A, 1);
      expect(kept).toEqual(entry(1));
      kept!.content.text = 'changed too';
      expect(await store.outbox(A, 1)).toEqual([entry(1)]);
    });
  });

  describe('received messages (quotable)', () => {
    const received = (n: number, createdAt = new Date().toISOString()) => ({
      id: `IN${n}`,
      chats: ['1@lid', '254711000111@s.whatsapp.net'],
      createdAt,
    });

    it('are newest first, per session, capped, and forgotten after a week', async () => {
      for (let n = 1; n <= SANDBOX_RECEIVED_CAPACITY + 2; n += 1) void store.rememberReceived(A, received(n));
      await store.rememberReceived(B, received(0));
      await store.rememberReceived(B, received(-1, new Date(Date.now() - 8 * 24 * 3_600_000).toISOString()));
      const all = await sameNetwork.received(A);
      expect(all).toHaveLength(SANDBOX_RECEIVED_CAPACITY);
      expect(all[0]).toEqual(received(SANDBOX_RECEIVED_CAPACITY + 2, all[0]?.createdAt));
      expect(all.at(-1)?.id).toBe('IN3');
      expect((await store.received(B)).map((entry) => entry.id)).toEqual(['IN0']);
      expect(await store.received(C)).toEqual([]);
    });
  });

  describe('pending inbound', () => {
    it('keeps arrival order until acknowledged, with its timestamp as a Date', async () => {
      await store.addPendingInbound(A, inbound('m1', 'one'));
      await store.addPendingInbound(A, inbound('m2', 'two'));
      await store.addPendingInbound(A, inbound('m3', 'three'));
      await sameNetwork.acknowledgeInbound(A, 'm2');
      const pending = await sameNetwork.pendingInbound(A);
      expect(pending.map((message) => message.text)).toEqual(['one', 'three']);
      expect(pending[0]).toEqual(inbound('m1', 'one'));
      expect(pending[0]?.timestamp).toBeInstanceOf(Date);
      await store.acknowledgeInbound(A, 'unknown');
      expect(await store.pendingInbound(B)).toEqual([]);
    });

    it('remembers a message for quoting in the same step when asked to, and only then', async () => {
      const quotable = {
        id: 'q1',
        chats: ['254711000111@s.whatsapp.net'],
        createdAt: new Date().toISOString(),
      };
      await store.addPendingInbound(C, inbound('q1', 'quote me'), quotable);
      await store.addPendingInbound(C, inbound('q2', 'a change, say'));
      expect((await sameNetwork.pendingInbound(C)).map((message) => message.id)).toEqual(['q1', 'q2']);
      expect(await sameNetwork.received(C)).toEqual([quotable]);
    });

    it('holds one copy of a message added twice', async () => {
      await store.addPendingInbound(A, inbound('m1', 'one'));
      await store.addPendingInbound(A, inbound('m2', 'two'));
      await store.addPendingInbound(A, inbound('m1', 'one'));
      expect((await store.pendingInbound(A)).map((message) => message.id)).toEqual(['m2', 'm1']);
    });
  });

  describe('media files', () => {
    const file = { mimetype: 'image/png', fileName: 'receipt.png', data: Buffer.from([0, 1, 2, 250, 255]) };

    it('holds the bytes of a received file for its session only, byte for byte', async () => {
      await store.putMediaFile(A, 'm1', file, 10_000);
      expect(await sameNetwork.mediaFile(A, 'm1')).toEqual(file);
      expect(await sameNetwork.mediaFile(B, 'm1')).toBeNull();
      expect(await sameNetwork.mediaFile(A, 'm2')).toBeNull();
    });

    it('keeps the newest files of each session only', async () => {
      for (let n = 0; n <= SANDBOX_MEDIA_FILES_PER_SESSION; n++) {
        await store.putMediaFile(B, `f${n}`, file, 10_000);
      }
      await store.putMediaFile(C, 'f0', file, 10_000);
      expect(await sameNetwork.mediaFile(B, 'f0')).toBeNull();
      expect(await sameNetwork.mediaFile(B, 'f1')).toEqual(file);
      expect(await sameNetwork.mediaFile(B, `f${SANDBOX_MEDIA_FILES_PER_SESSION}`)).toEqual(file);
      expect(await sameNetwork.mediaFile(C, 'f0')).toEqual(file);
    });

    it('lets a file lapse after its time to live', async () => {
      await store.putMediaFile(C, 'm1', file, 50);
      await delay(120);
      expect(await store.mediaFile(C, 'm1')).toBeNull();
    });
  });
});
