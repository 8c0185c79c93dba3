import type { ApiClient } from '@jumbe/testing';
import { createAccount, type TestAccount } from './operator';
import { eventually, linkSession, randomPhone } from './sandbox-helpers';
import type { Topology } from './topology';
import { expectError } from './expect-error';

const ALL_ACTIONS = [
  { type: 'reply', id: 'yes', label: 'Yes' },
  { type: 'url', label: 'Track', url: 'https://shop.example/track/1', merchantUrl: 'https://shop.example' },
  { type: 'copy', label: 'Coupon', value: 'SAVE10' },
  { type: 'call', label: 'Call us', phoneNumber: '254700000000' },
  {
    type: 'list',
    label: 'Menu',
    sections: [
      {
        title: 'Drinks',
        rows: [
          { id: 'tea', title: 'Tea' },
          { id: 'coffee', title: 'Coffee', description: 'Hot' },
        ],
      },
    ],
  },
  { type: 'catalog', businessPhoneNumber: '254700000000' },
  { type: 'location_request', label: 'Share location' },
];

/**
 * Sessions, messages and the sandbox (CONTRACT §4, §5, §9) over real HTTP, on any topology that
 * runs the sandbox network.
 */
export function describeSessionContract(start: () => Promise<Topology>): void {
  let topology: Topology;
  let api: ApiClient;
  let other: ApiClient;
  let admin: string;
  const account = (options?: Parameters<typeof createAccount>[2]) => createAccount(api, admin, options);

  beforeAll(async () => {
    topology = await start();
    api = topology.gateways[0]!;
    other = topology.gateways[topology.gateways.length - 1]!;
    admin = topology.adminToken;
  });
  afterAll(() => topology?.stop());

  describe('session lifecycle', () => {
    let a: TestAccount;
    beforeAll(async () => {
      a = await account({ maxSessions: 10 });
    });

    it('reads a never-started session as disconnected with an empty QR', async () => {
      const status = await api.get('/api/v1/session/status?sessionId=never', { key: a.key });
      expect(status.status).toBe(200);
      expect(status.body.data).toEqual({
        sessionId: 'never',
        phoneNumber: null,
        connected: false,
        state: 'disconnected',
        updatedAt: null,
        reason: null,
      });
      const qr = await api.get('/api/v1/session/qr?sessionId=never', { key: a.key });
      expect(qr.body.data).toEqual({ sessionId: 'never', state: 'disconnected', qr: '' });
      expectError(
        await api.get('/api/v1/session/qr?sessionId=never&format=png', { key: a.key }),
        404,
        'not_found',
      );
    });

    it('starts with the default session id, idempotently, and shows a QR as JSON, PNG and SVG', async () => {
      const first = await api.post('/api/v1/session/start', { key: a.key });
      expect(first.status).toBe(200);
      expect(first.body.data).toMatchObject({ sessionId: 'default', connected: false, phoneNumber: null });
      expect(['starting', 'qr_ready']).toContain(first.body.data.state);
      const again = await other.post('/api/v1/session/start', { key: a.key, body: {} });
      expect(again.status).toBe(200);
      expect(again.body.data.state).toBe('qr_ready');
      const qr = await api.get('/api/v1/session/qr', { key: a.key });
      expect(qr.body.data).toEqual({
        sessionId: 'default',
        state: 'qr_ready',
        qr: expect.stringMatching(/.{10,}/),
      });
      const png = await fetch(`${api.baseUrl}/api/v1/session/qr?format=png`, {
        headers: { 'x-api-key': a.key },
      });
      expect(png.headers.get('content-type')).toBe('image/png');
      expect(
        Buffer.from(await png.arrayBuffer())
          .subarray(1, 4)
          .toString(),
      ).toBe('PNG');
      const svg = await api.get('/api/v1/session/qr?format=svg', { key: a.key });
      expect(svg.headers.get('content-type')).toContain('image/svg+xml');
      expect(svg.text).toContain('<svg');
    });

    it('connects when the phone scans, and lists the session', async () => {
      const phone = randomPhone();
      const scanned = await api.post('/api/v1/sandbox/scan', { key: a.key, body: { phoneNumber: phone } });
      expect(scanned.status).toBe(200);
      expect(scanned.body.data).toMatchObject({
        sessionId: 'default',
        state: 'connected',
        connected: true,
        phoneNumber: phone,
        reason: null,
      });
      const list = await other.get('/api/v1/sessions', { key: a.key });
      expect(list.body.data).toEqual([
        {
          sessionId: 'default',
          phoneNumber: phone,
          connected: true,
          state: 'connected',
          updatedAt: expect.stringMatching(/Z$/),
          reason: null,
        },
      ]);
      expect((await api.get('/api/v1/usage', { key: a.key })).body.data.sessions).toBe(1);
    });

    it('refuses a scan when the session shows no QR', async () => {
      expectError(
        await api.post('/api/v1/sandbox/scan', {
          key: a.key,
          body: { sessionId: 'idle', phoneNumber: randomPhone() },
        }),
        409,
        'session_not_ready',
      );
    });

    it('links with a pairing code', async () => {
      const phone = randomPhone();
      const response = await api.post('/api/v1/session/pairing-code', {
        key: a.key,
        body: { sessionId: 'paired', phoneNumber: phone },
      });
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual({
        sessionId: 'paired',
        state: 'pairing_code_ready',
        pairingCode: expect.stringMatching(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/),
      });
      expect((await api.get('/api/v1/session/status?sessionId=paired', { key: a.key })).body.data.state).toBe(
        'pairing_code_ready',
      );
      const scanned = await api.post('/api/v1/sandbox/scan', {
        key: a.key,
        body: { sessionId: 'paired', phoneNumber: phone },
      });
      expect(scanned.body.data).toMatchObject({ state: 'connected', phoneNumber: phone });
      expectError(
        await api.post('/api/v1/session/pairing-code', { key: a.key, body: { phoneNumber: '2547' } }),
        400,
        'invalid_phone',
      );
    });

    it('keeps one number on one session, across accounts', async () => {
      const phone = await linkSession(api, a.key, 'first');
      const b = await account();
      await api.post('/api/v1/session/start', { key: b.key, body: { sessionId: 'second' } });
      expectError(
        await api.post('/api/v1/sandbox/scan', {
          key: b.key,
          body: { sessionId: 'second', phoneNumber: phone },
        }),
        409,
        'number_in_use',
      );
      // After logout the number is free again.
      const out = await api.post('/api/v1/session/logout', { key: a.key, body: { sessionId: 'first' } });
      expect(out.body.data).toMatchObject({ state: 'disconnected', connected: false, reason: 'logged_out' });
      await api.post('/api/v1/session/start', { key: b.key, body: { sessionId: 'second' } });
      const relinked = await api.post('/api/v1/sandbox/scan', {
        key: b.key,
        body: { sessionId: 'second', phoneNumber: phone },
      });
      expect(relinked.body.data).toMatchObject({ state: 'connected', phoneNumber: phone });
    });

    it('logs out idempotently and deletes sessions', async () => {
      await linkSession(api, a.key, 'temp');
      const out = await api.post('/api/v1/session/logout', { key: a.key, body: { sessionId: 'temp' } });
      expect(out.status).toBe(200);
      expect(out.body.data.state).toBe('disconnected');
      const twice = await other.post('/api/v1/session/logout', { key: a.key, body: { sessionId: 'temp' } });
      expect(twice.body.data.state).toBe('disconnected');
      expectError(
        await api.post('/api/v1/messages/text', {
          key: a.key,
          body: { sessionId: 'temp', to: '254711111111', text: 'x' },
        }),
        409,
        'session_not_connected',
      );
      // Paged one at a time (an extension), the same sessions as the whole list, which is the spec's { data }.
      const whole = await api.get('/api/v1/sessions', { key: a.key });
      expect(Object.keys(whole.body)).toEqual(['data']);
      const paged: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { status: number; body: { data: { sessionId: string }[]; nextCursor: string | null } } =
          await other.get(`/api/v1/sessions?limit=1${cursor ? `&cursor=${cursor}` : ''}`, { key: a.key });
        expect(page.status).toBe(200);
        expect(page.body.data.length).toBeLessThanOrEqual(1);
        paged.push(...page.body.data.map((s) => s.sessionId));
        cursor = page.body.nextCursor;
      } while (cursor !== null);
      expect(paged).toEqual(whole.body.data.map((s: { sessionId: string }) => s.sessionId));
      expect(paged).toContain('temp');
      expectError(await api.get('/api/v1/sessions?limit=0', { key: a.key }), 400, 'validation_error');
      const removed = await api.delete('/api/v1/session?sessionId=temp', { key: a.key });
      expect(removed.status).toBe(200);
      const list = await api.get('/api/v1/sessions', { key: a.key });
      expect(list.body.data.map((s: { sessionId: string }) => s.sessionId)).not.toContain('temp');
      expectError(await api.delete('/api/v1/session?sessionId=temp', { key: a.key }), 404, 'not_found');
    });

    it('reconnects by itself after a network drop, and ends disconnected when the phone unlinks', async () => {
      await linkSession(api, a.key, 'flaky');
      const dropped = await api.post('/api/v1/sandbox/disconnect', {
        key: a.key,
        body: { sessionId: 'flaky', reason: 'network' },
      });
      expect(dropped.status).toBe(200);
      const back = await eventually(
        () => api.get('/api/v1/session/status?sessionId=flaky', { key: a.key }),
        (response) => response.body.data.state === 'connected',
      );
      expect(back.body.data.state).toBe('connected');
      await api.post('/api/v1/sandbox/disconnect', {
        key: a.key,
        body: { sessionId: 'flaky', reason: 'logged_out' },
      });
      const gone = await api.get('/api/v1/session/status?sessionId=flaky', { key: a.key });
      expect(gone.body.data).toMatchObject({ state: 'disconnected', reason: 'logged_out', connected: false });
    });

    it('enforces the plan session cap exactly under concurrent starts', async () => {
      const capped = await account({ maxSessions: 3 });
      const responses = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          topology.gateways[i % topology.gateways.length]!.post('/api/v1/session/start', {
            key: capped.key,
            body: { sessionId: `s${i}` },
          }),
        ),
      );
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(3);
      for (const refused of responses.filter((response) => response.status !== 200))
        expectError(refused, 403, 'instance_limit_reached');
      expect(responses.find((r) => r.status === 403)!.body.message).toMatch(/upgrade/i);
      // A started session starting again is not a new one.
      const started = responses.findIndex((response) => response.status === 200);
      expect(
        (await api.post('/api/v1/session/start', { key: capped.key, body: { sessionId: `s${started}` } }))
          .status,
      ).toBe(200);
    });

    it.each([
      ['../x', 'a traversal'],
      ['', 'empty'],
      ['x'.repeat(65), '65 characters'],
      ['café', 'unicode'],
      ['a b', 'a space'],
    ])('refuses the session id %j (%s) with invalid_session_id', async (sessionId) => {
      expectError(
        await api.post('/api/v1/session/start', { key: a.key, body: { sessionId } }),
        400,
        'invalid_session_id',
      );
      expectError(
        await api.get(`/api/v1/session/status?sessionId=${encodeURIComponent(sessionId)}`, { key: a.key }),
        400,
        'invalid_session_id',
      );
    });

    it('refuses wrong types, unknown fields and bad bodies on session routes', async () => {
      expectError(
        await api.post('/api/v1/session/start', { key: a.key, body: { sessionId: 7 } }),
        400,
        'validation_error',
      );
      expectError(
        await api.post('/api/v1/session/start', { key: a.key, body: { sesionId: 'x' } }),
        400,
        'validation_error',
      );
      expectError(
        await api.get('/api/v1/session/status?sessionId=a&verbose=1', { key: a.key }),
        400,
        'validation_error',
      );
      expectError(
        await api.post('/api/v1/session/start', {
          key: a.key,
          rawBody: '{"sessionId":',
          headers: { 'content-type': 'application/json' },
        }),
        400,
        'invalid_json',
      );
      expectError(
        await api.post('/api/v1/session/start', {
          key: a.key,
          rawBody: 'sessionId=x',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }),
        415,
        'unsupported_media_type',
      );
      // An empty body without a content type is fine on an all-optional route.
      expect((await api.post('/api/v1/session/start', { key: a.key, rawBody: '' })).status).toBe(200);
    });
  });

  describe('messages', () => {
    let a: TestAccount;
    beforeAll(async () => {
      a = await account();
      await linkSession(api, a.key);
    });

    it('sends text to a number and to a reply JID, and the network receives it', async () => {
      const sent = await api.post('/api/v1/messages/text', {
        key: a.key,
        body: { to: '254711111111', text: 'Habari' },
      });
      expect(sent.status).toBe(200);
      expect(sent.body).toEqual({
        message: 'Message sent',
        data: { key: { remoteJid: '254711111111@s.whatsapp.net', fromMe: true, id: expect.any(String) } },
      });
      const group = await other.post('/api/v1/messages/text', {
        key: a.key,
        body: { to: '120363040000000000@g.us', text: 'Hi all' },
      });
      expect(group.body.data.key.remoteJid).toBe('120363040000000000@g.us');
      const outbox = await api.get('/api/v1/sandbox/outbox?limit=2', { key: a.key });
      expect(outbox.body.data).toEqual([
        {
          id: group.body.data.key.id,
          to: '120363040000000000@g.us',
          type: 'text',
          content: { text: 'Hi all' },
          createdAt: expect.any(String),
        },
        {
          id: sent.body.data.key.id,
          to: '254711111111@s.whatsapp.net',
          type: 'text',
          content: { text: 'Habari' },
          createdAt: expect.any(String),
        },
      ]);
    });

    it('sends media by public URL and refuses private or non-http URLs', async () => {
      const sent = await api.post('/api/v1/messages/media', {
        key: a.key,
        body: {
          to: '254711111111',
          url: 'https://93.184.215.14/invoice.pdf',
          type: 'document',
          caption: 'Invoice',
          mimetype: 'application/pdf',
          fileName: 'invoice.pdf',
        },
      });
      expect(sent.status).toBe(200);
      const [entry] = (await api.get('/api/v1/sandbox/outbox?limit=1', { key: a.key })).body.data;
      expect(entry).toMatchObject({
        id: sent.body.data.key.id,
        type: 'media',
        content: expect.objectContaining({ type: 'document', fileName: 'invoice.pdf', caption: 'Invoice' }),
      });
      for (const url of [
        'http://127.0.0.1/a.jpg',
        'http://10.0.0.8/a.jpg',
        'http://[::1]/a.jpg',
        'http://2130706433/a.jpg',
        'ftp://93.184.215.14/a.jpg',
        'file:///etc/passwd',
      ]) {
        expectError(
          await api.post('/api/v1/messages/media', { key: a.key, body: { to: '254711111111', url } }),
          400,
          'invalid_media_url',
        );
      }
      expectError(
        await api.post('/api/v1/messages/media', {
          key: a.key,
          body: { to: '254711111111', url: 'https://93.184.215.14/a', type: 'gif' },
        }),
        400,
        'validation_error',
      );
    });

    it('shares locations and contact cards, reacts, and sends voice notes and stickers (extensions)', async () => {
      const send = (kind: string, body: object) =>
        api.post(`/api/v1/messages/${kind}`, { key: a.key, body: { to: '254711111111', ...body } });
      const location = await send('location', { latitude: -1.2921, longitude: 36.8219, name: 'Duka' });
      const contact = await send('contact', { contacts: [{ name: 'Amina', phoneNumber: '254712345678' }] });
      const reaction = await send('reaction', { messageId: location.body.data.key.id, emoji: '👍' });
      const voice = await send('media', { url: 'https://93.184.215.14/note.ogg', type: 'audio', ptt: true });
      const sticker = await send('media', { url: 'https://93.184.215.14/s.webp', type: 'sticker' });
      for (const sent of [location, contact, reaction, voice, sticker]) expect(sent.status).toBe(200);
      const outbox = await api.get('/api/v1/sandbox/outbox?limit=5', { key: a.key });
      expect(
        outbox.body.data.map((entry: { type: string; content: object }) => [entry.type, entry.content]),
      ).toEqual([
        ['media', expect.objectContaining({ type: 'sticker' })],
        ['media', expect.objectContaining({ type: 'audio', ptt: true })],
        ['reaction', { messageId: location.body.data.key.id, emoji: '👍' }],
        ['contact', { contacts: [{ name: 'Amina', phoneNumber: '254712345678' }] }],
        ['location', { latitude: -1.2921, longitude: 36.8219, name: 'Duka' }],
      ]);
      expectError(await send('location', { latitude: 120, longitude: 0 }), 400, 'validation_error');
      expectError(await send('reaction', { messageId: 'x', emoji: '👍👍' }), 400, 'validation_error');
      expectError(
        await send('contact', { contacts: [{ name: 'A', phoneNumber: '+254 7' }] }),
        400,
        'invalid_phone',
      );
    });

    it('edits and deletes for everyone what the session sent, and says when it cannot (extensions)', async () => {
      const sent = await api.post('/api/v1/messages/text', {
        key: a.key,
        body: { to: '254711111111', text: 'Total: 100' },
      });
      const id = sent.body.data.key.id;
      const edited = await api.post('/api/v1/messages/edit', {
        key: a.key,
        body: { to: '254711111111', messageId: id, text: 'Total: 90' },
      });
      expect(edited.status).toBe(200);
      const revoked = await api.post('/api/v1/messages/revoke', {
        key: a.key,
        body: { to: '254711111111', messageId: id },
      });
      expect(revoked.status).toBe(200);
      const outbox = await api.get('/api/v1/sandbox/outbox?limit=2', { key: a.key });
      expect(
        outbox.body.data.map((entry: { type: string; content: object }) => [entry.type, entry.content]),
      ).toEqual([
        ['revoke', { messageId: id }],
        ['edit', { messageId: id, text: 'Total: 90' }],
      ]);
      expectError(
        await api.post('/api/v1/messages/revoke', {
          key: a.key,
          body: { to: '254711111111', messageId: 'NEVERSENT0' },
        }),
        404,
        'message_not_found',
      );
      // Another chat's message is not this chat's: refused the same way.
      expectError(
        await api.post('/api/v1/messages/edit', {
          key: a.key,
          body: { to: '254722222222', messageId: id, text: 'x' },
        }),
        404,
        'message_not_found',
      );
      const failures = await api.get('/api/v1/messages/failures?limit=2', { key: a.key });
      expect(failures.body.data.map((f: { type: string; code: string }) => [f.type, f.code])).toEqual([
        ['edit', 'message_not_found'],
        ['revoke', 'message_not_found'],
      ]);
    });

    it('replies quote a received or sent message of the chat, on every kind that can (extension)', async () => {
      const contact = randomPhone();
      const inbound = await api.post('/api/v1/sandbox/inbound', {
        key: a.key,
        body: { from: contact, text: 'Bei gani?' },
      });
      const asked = inbound.body.data.id;
      const send = (kind: string, body: object, on = api, key = a.key) =>
        on.post(`/api/v1/messages/${kind}`, { key, body: { to: contact, ...body } });
      // Another gateway, so on the distributed topology the quote is found whoever answers.
      const answer = await send('text', { text: 'KSh 500', quotedMessageId: asked }, other);
      expect(answer.status).toBe(200);
      const replies = [
        await send('media', {
          url: 'https://93.184.215.14/menu.pdf',
          type: 'document',
          quotedMessageId: asked,
        }),
        await send('interactive', {
          text: 'Order?',
          actions: ALL_ACTIONS.slice(0, 1),
          quotedMessageId: asked,
        }),
        await send('location', {
          latitude: -1.29,
          longitude: 36.82,
          quotedMessageId: answer.body.data.key.id,
        }),
        await send('contact', {
          contacts: [{ name: 'Duka', phoneNumber: '254700000000' }],
          quotedMessageId: answer.body.data.key.id,
        }),
      ];
      for (const reply of replies) expect(reply.status).toBe(200);
      const outbox = await api.get('/api/v1/sandbox/outbox?limit=5', { key: a.key });
      expect(
        outbox.body.data.map((entry: { type: string; content: { quotedMessageId?: string } }) => [
          entry.type,
          entry.content.quotedMessageId,
        ]),
      ).toEqual([
        ['contact', answer.body.data.key.id],
        ['location', answer.body.data.key.id],
        ['interactive', asked],
        ['media', asked],
        ['text', asked],
      ]);
      expect(outbox.body.data[4].content).toEqual({ text: 'KSh 500', quotedMessageId: asked });

      // Unknown, of another chat, or of another account's session: 404, logged as a failed send.
      const b = await account();
      await linkSession(api, b.key);
      expectError(await send('text', { text: 'x', quotedMessageId: 'NEVERSEEN0' }), 404, 'message_not_found');
      expectError(
        await api.post('/api/v1/messages/text', {
          key: a.key,
          body: { to: randomPhone(), text: 'x', quotedMessageId: asked },
        }),
        404,
        'message_not_found',
      );
      expectError(
        await send('text', { text: 'x', quotedMessageId: asked }, api, b.key),
        404,
        'message_not_found',
      );
      const failures = await api.get('/api/v1/messages/failures?limit=2', { key: a.key });
      expect(failures.body.data.map((f: { type: string; code: string }) => [f.type, f.code])).toEqual([
        ['text', 'message_not_found'],
        ['text', 'message_not_found'],
      ]);
      const invalid = await send('text', { text: 'x', quotedMessageId: 'not an id' });
      expectError(invalid, 400, 'validation_error');
      expect(invalid.body.error.details).toEqual([{ path: '/quotedMessageId', problem: expect.any(String) }]);
    });

    it('marks messages read, shows typing, and says whether numbers are on WhatsApp (extensions)', async () => {
      const read = await api.post('/api/v1/chats/read', {
        key: a.key,
        body: { chat: '254711111111', messageIds: ['IN1', 'IN2'] },
      });
      expect(read.status).toBe(200);
      const typing = await api.post('/api/v1/chats/presence', {
        key: a.key,
        body: { chat: '254711111111', state: 'typing' },
      });
      expect(typing.status).toBe(200);
      const outbox = await api.get('/api/v1/sandbox/outbox?limit=2', { key: a.key });
      expect(
        outbox.body.data.map((entry: { type: string; content: object }) => [entry.type, entry.content]),
      ).toEqual([
        ['presence', { state: 'typing' }],
        ['read', { messageIds: ['IN1', 'IN2'] }],
      ]);
      const on = await api.get('/api/v1/contacts/check?phoneNumber=254711111111', { key: a.key });
      expect(on.body.data).toEqual({
        phoneNumber: '254711111111',
        onWhatsApp: true,
        recipientId: '254711111111@s.whatsapp.net',
      });
      // The sandbox's rule: numbers ending in 0000 are not on WhatsApp.
      const off = await api.get('/api/v1/contacts/check?phoneNumber=254711110000', { key: a.key });
      expect(off.body.data).toEqual({ phoneNumber: '254711110000', onWhatsApp: false, recipientId: null });
      expectError(
        await api.get('/api/v1/contacts/check?phoneNumber=+2547', { key: a.key }),
        400,
        'invalid_phone',
      );
      expectError(
        await api.post('/api/v1/chats/presence', {
          key: a.key,
          body: { chat: '254711111111', state: 'dancing' },
        }),
        400,
        'validation_error',
      );
    });

    it('limits number look-ups per session, so a customer cannot get the number banned', async () => {
      const lookups = [];
      for (let n = 0; n < 21; n++) {
        lookups.push(
          await api.get(
            `/api/v1/contacts/check?sessionId=lookups&phoneNumber=2547222${String(n).padStart(5, '0')}`,
            {
              key: a.key,
            },
          ),
        );
      }
      // The session is not connected: each allowed look-up reaches the worker and gets a 409;
      // past 20 a minute the gateway refuses before asking the network.
      expect(lookups.slice(0, 20).every((response) => response.status === 409)).toBe(true);
      expectError(lookups[20]!, 429, 'rate_limited');
      expect(lookups[20]!.headers.get('retry-after')).toMatch(/^\d+$/);
    });

    it('sends every interactive action type', async () => {
      const sent = await api.post('/api/v1/messages/interactive', {
        key: a.key,
        body: {
          to: '254711111111',
          title: 'Order 42',
          text: 'What next?',
          footer: 'Duka',
          actions: ALL_ACTIONS,
        },
      });
      expect(sent.status).toBe(200);
      const [entry] = (await api.get('/api/v1/sandbox/outbox?limit=1', { key: a.key })).body.data;
      expect(entry).toMatchObject({ id: sent.body.data.key.id, type: 'interactive' });
      expect(entry.content.actions).toEqual(ALL_ACTIONS);
    });

    it.each([
      ['no actions', { actions: [] }, ['/actions']],
      [
        'eleven actions',
        { actions: Array.from({ length: 11 }, (_, i) => ({ type: 'reply', id: `r${i}`, label: 'x' })) },
        ['/actions'],
      ],
      [
        'a url action without http(s)',
        { actions: [{ type: 'url', label: 'x', url: 'javascript:alert(1)' }] },
        ['/actions/0/url'],
      ],
      ['a reply without label', { actions: [{ type: 'reply', id: 'a' }] }, ['/actions/0/label']],
      [
        'duplicate reply ids',
        {
          actions: [
            { type: 'reply', id: 'a', label: 'A' },
            { type: 'reply', id: 'a', label: 'B' },
          ],
        },
        ['/actions/1/id'],
      ],
      [
        'a list without sections',
        { actions: [{ type: 'list', label: 'Menu', sections: [] }] },
        ['/actions/0/sections'],
      ],
      [
        'a list section without rows',
        { actions: [{ type: 'list', label: 'Menu', sections: [{ title: 'x', rows: [] }] }] },
        ['/actions/0/sections/0/rows'],
      ],
      ['an unknown type', { actions: [{ type: 'poll', label: 'x' }] }, ['/actions/0/type']],
      [
        'a call to a bad number',
        { actions: [{ type: 'call', label: 'x', phoneNumber: '+254' }] },
        ['/actions/0/phoneNumber'],
      ],
    ])('refuses %s with the problem located', async (_, fields, paths) => {
      const response = await api.post('/api/v1/messages/interactive', {
        key: a.key,
        body: { to: '254711111111', text: 'x', ...fields },
      });
      expect(response.status).toBe(400);
      expect(['validation_error', 'invalid_phone']).toContain(response.body.error.code);
      expect(response.body.error.details.map((detail: { path: string }) => detail.path)).toEqual(
        expect.arrayContaining(paths),
      );
    });

    it.each([
      '+254711111111',
      '254 711 111111',
      'abc1234567',
      '123456',
      '1234567890123456',
      '254711111111@example.com',
    ])('refuses the recipient %j with invalid_phone', async (to) => {
      expectError(
        await api.post('/api/v1/messages/text', { key: a.key, body: { to, text: 'x' } }),
        400,
        'invalid_phone',
      );
    });

    it('refuses missing and wrong-typed fields and unknown fields', async () => {
      expectError(
        await api.post('/api/v1/messages/text', { key: a.key, body: { to: '254711111111' } }),
        400,
        'validation_error',
      );
      expectError(
        await api.post('/api/v1/messages/text', { key: a.key, body: { to: 254711111111, text: 'x' } }),
        400,
        'validation_error',
      );
      expectError(
        await api.post('/api/v1/messages/text', { key: a.key, body: { to: '254711111111', text: '' } }),
        400,
        'validation_error',
      );
      expectError(
        await api.post('/api/v1/messages/text', {
          key: a.key,
          body: { to: '254711111111', text: 'x', txt: 'y' },
        }),
        400,
        'validation_error',
      );
      expectError(
        await api.post('/api/v1/messages/text', {
          key: a.key,
          body: { to: '254711111111', text: 'x'.repeat(65_537) },
        }),
        400,
        'validation_error',
      );
    });

    it('logs every failed send, validation included, and counts sends and failures', async () => {
      const fresh = await account();
      await linkSession(api, fresh.key);
      await api.post('/api/v1/messages/text', { key: fresh.key, body: { to: '254711111111', text: 'ok' } });
      await api.post('/api/v1/messages/text', { key: fresh.key, body: { to: '+254', text: 'bad' } });
      await api.post('/api/v1/messages/text', {
        key: fresh.key,
        body: { sessionId: 'offline', to: '254711111111', text: 'x' },
      });
      const failures = await api.get('/api/v1/messages/failures', { key: fresh.key });
      expect(failures.status).toBe(200);
      expect(failures.body.data).toEqual([
        {
          id: expect.any(String),
          sessionId: 'offline',
          to: '254711111111',
          type: 'text',
          code: 'session_not_connected',
          message: expect.any(String),
          createdAt: expect.any(String),
        },
        {
          id: expect.any(String),
          sessionId: 'default',
          to: '+254',
          type: 'text',
          code: 'invalid_phone',
          message: expect.any(String),
          createdAt: expect.any(String),
        },
      ]);
      const offlineOnly = await api.get('/api/v1/messages/failures?sessionId=offline&limit=5', {
        key: fresh.key,
      });
      expect(offlineOnly.body.data).toHaveLength(1);
      const usage = await api.get('/api/v1/usage', { key: fresh.key });
      expect(usage.body.data).toMatchObject({ messagesSent: 1, sendFailures: 2 });
      expectError(
        await api.get('/api/v1/messages/failures?limit=0', { key: fresh.key }),
        400,
        'validation_error',
      );
    });

    it('honours Idempotency-Key: the same body sends once, another body conflicts', async () => {
      const body = { to: '254711111111', text: `once ${Date.now()}` };
      const headers = { 'idempotency-key': `order-${Date.now()}` };
      const first = await api.post('/api/v1/messages/text', { key: a.key, body, headers });
      const second = await other.post('/api/v1/messages/text', { key: a.key, body, headers });
      expect(second.status).toBe(200);
      expect(second.body).toEqual(first.body);
      const outbox = await api.get('/api/v1/sandbox/outbox?limit=5', { key: a.key });
      expect(
        outbox.body.data.filter((entry: { content: { text?: string } }) => entry.content.text === body.text),
      ).toHaveLength(1);
      expectError(
        await api.post('/api/v1/messages/text', {
          key: a.key,
          body: { ...body, text: 'different' },
          headers,
        }),
        409,
        'idempotency_conflict',
      );
    });
  });

  describe('sandbox inbound, scopes and isolation', () => {
    it('accepts a contact message of each kind for a connected session', async () => {
      const a = await account();
      await linkSession(api, a.key);
      for (const message of [
        { from: '254722222222', pushName: 'Amina', text: 'Hello' },
        { from: '254722222222', lid: true, text: 'via lid' },
        { from: '254722222222', group: { id: '120363040000000000@g.us' }, text: 'group hi' },
        { from: '254722222222', media: { type: 'image', caption: 'look' } },
        { from: '254722222222', interaction: { type: 'quick_reply', id: 'yes', label: 'Yes' } },
      ]) {
        const response = await api.post('/api/v1/sandbox/inbound', { key: a.key, body: message });
        expect(response.status).toBe(200);
        expect(response.body.data.id).toMatch(/^[0-9A-F]{8,}$/);
      }
      expectError(
        await api.post('/api/v1/sandbox/inbound', { key: a.key, body: { from: '+254', text: 'x' } }),
        400,
        'invalid_phone',
      );
      expectError(
        await api.post('/api/v1/sandbox/inbound', {
          key: a.key,
          body: { sessionId: 'nobody', from: '254722222222', text: 'x' },
        }),
        409,
        'session_not_connected',
      );
    });

    it('lets read keys list and read but not change anything', async () => {
      const reader = await account({ scope: 'read' });
      expect((await api.get('/api/v1/sessions', { key: reader.key })).status).toBe(200);
      expect((await api.get('/api/v1/session/status', { key: reader.key })).status).toBe(200);
      expectError(await api.post('/api/v1/session/start', { key: reader.key }), 403, 'forbidden');
      expectError(
        await api.post('/api/v1/messages/text', { key: reader.key, body: { to: '254711111111', text: 'x' } }),
        403,
        'forbidden',
      );
      // Scope is judged before the body.
      expectError(
        await api.post('/api/v1/messages/text', {
          key: reader.key,
          rawBody: '{bad',
          headers: { 'content-type': 'application/json' },
        }),
        403,
        'forbidden',
      );
    });

    it('judges the key before anything else about the request', async () => {
      expectError(
        await api.post('/api/v1/messages/text', {
          key: 'jmb_nope',
          rawBody: '{bad',
          headers: { 'content-type': 'text/plain' },
        }),
        401,
        'unauthorized',
      );
      expectError(
        await api.post('/api/v1/session/start', {
          rawBody: 'x'.repeat(2_000_000),
          headers: { 'content-type': 'application/json' },
        }),
        401,
        'unauthorized',
      );
      const a = await account();
      expectError(
        await api.post('/api/v1/session/start', {
          key: a.key,
          rawBody: JSON.stringify({ sessionId: 'x'.repeat(2_000_000) }),
          headers: { 'content-type': 'application/json' },
        }),
        413,
        'payload_too_large',
      );
    });

    it('keeps accounts apart: sessions, numbers of the same name, outboxes and failures', async () => {
      const a = await account();
      const b = await account();
      await linkSession(api, a.key, 'sales');
      await api.post('/api/v1/messages/text', {
        key: a.key,
        body: { sessionId: 'sales', to: '254711111111', text: 'secret' },
      });
      expect((await api.get('/api/v1/sessions', { key: b.key })).body.data).toEqual([]);
      expect((await api.get('/api/v1/session/status?sessionId=sales', { key: b.key })).body.data.state).toBe(
        'disconnected',
      );
      expect((await api.get('/api/v1/sandbox/outbox?sessionId=sales', { key: b.key })).body.data).toEqual([]);
      expectError(
        await api.post('/api/v1/messages/text', {
          key: b.key,
          body: { sessionId: 'sales', to: '254711111111', text: 'x' },
        }),
        409,
        'session_not_connected',
      );
      expect((await api.get('/api/v1/messages/failures', { key: a.key })).body.data).toEqual([]);
      // The same session name works independently in the other account.
      await linkSession(api, b.key, 'sales');
      expect((await api.get('/api/v1/session/status?sessionId=sales', { key: a.key })).body.data.state).toBe(
        'connected',
      );
    });
  });
}
