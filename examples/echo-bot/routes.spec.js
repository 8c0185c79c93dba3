const { route, MENU_ACTIONS } = require('./routes');

/** A `message.received` body as Jumbe sends it, with `message` fields overridden. */
function received(message = {}, top = {}) {
  return {
    event: 'message.received',
    deliveryId: '6f1c0d2e-8a4b-4c7d-9e0f-1a2b3c4d5e6f',
    timestamp: '2026-01-02T03:04:05.678Z',
    customerId: 'acc_1',
    sessionId: 'nairobi_shop',
    message: {
      id: 'ABCDEF',
      from: '254700000001@s.whatsapp.net',
      replyTo: '254700000001@s.whatsapp.net',
      phoneNumber: '254700000001',
      chat: '123456789@lid',
      participant: null,
      rawFrom: '123456789@lid',
      rawChat: '123456789@lid',
      fromMe: false,
      pushName: 'Amina',
      type: 'conversation',
      text: 'hello',
      interaction: null,
      media: null,
      messageTimestamp: '2026-01-02T03:04:05.000Z',
      ...message,
    },
    ...top,
  };
}

describe('echo bot routing', () => {
  it('echoes text through the event session to message.replyTo', () => {
    expect(route(received({ text: 'Habari yako? 👋' }))).toEqual({
      path: '/messages/text',
      body: { sessionId: 'nairobi_shop', to: '254700000001@s.whatsapp.net', text: 'Habari yako? 👋' },
    });
  });

  it('replies to the group, not the participant, for a group message', () => {
    const event = received({
      replyTo: '120363000000000001@g.us',
      chat: '120363000000000001@g.us',
      participant: '254700000002@s.whatsapp.net',
      from: '254700000002@s.whatsapp.net',
      text: 'hi all',
    });
    expect(route(event).body).toEqual({
      sessionId: 'nairobi_shop',
      to: '120363000000000001@g.us',
      text: 'hi all',
    });
  });

  it("uses each event's own sessionId", () => {
    expect(route(received({}, { sessionId: 'sales' })).body.sessionId).toBe('sales');
    expect(route(received({}, { sessionId: 'support' })).body.sessionId).toBe('support');
  });

  it('answers "menu" (any case, spaces ignored) with reply buttons', () => {
    for (const text of ['menu', 'MENU', '  Menu \n']) {
      expect(route(received({ text }))).toEqual({
        path: '/messages/interactive',
        body: {
          sessionId: 'nairobi_shop',
          to: '254700000001@s.whatsapp.net',
          title: 'Menu',
          text: 'How can we help? Pick an option below.',
          footer: 'Jumbe echo bot',
          actions: MENU_ACTIONS,
        },
      });
    }
    expect(route(received({ text: 'menu please' })).path).toBe('/messages/text');
  });

  it('has a valid menu: 1 to 10 reply actions with unique ids and labels', () => {
    expect(MENU_ACTIONS.length).toBeGreaterThanOrEqual(1);
    expect(MENU_ACTIONS.length).toBeLessThanOrEqual(10);
    expect(new Set(MENU_ACTIONS.map((a) => a.id)).size).toBe(MENU_ACTIONS.length);
    for (const action of MENU_ACTIONS) {
      expect(action).toEqual({ type: 'reply', id: expect.any(String), label: expect.any(String) });
    }
  });

  it('answers a button reply according to message.interaction.id, not the label or text', () => {
    const answers = MENU_ACTIONS.map((action) =>
      route(
        received({
          type: 'interactiveResponseMessage',
          text: action.id,
          interaction: { type: 'quick_reply', id: action.id, label: 'menu' },
        }),
      ),
    );
    for (const answer of answers) {
      expect(answer.path).toBe('/messages/text');
      expect(answer.body.to).toBe('254700000001@s.whatsapp.net');
      expect(answer.body.sessionId).toBe('nairobi_shop');
    }
    expect(answers[0].body.text).toMatch(/Monday to Friday/);
    expect(new Set(answers.map((a) => a.body.text)).size).toBe(MENU_ACTIONS.length);
  });

  it('says so for an unknown button id, and does not treat prototype names as ids', () => {
    for (const id of ['menu.unknown', 'constructor', '__proto__']) {
      const answer = route(
        received({
          type: 'interactiveResponseMessage',
          text: id,
          interaction: { type: 'quick_reply', id, label: null },
        }),
      );
      expect(answer.body.text).toBe(
        `Sorry, I do not know the option "${id}". Send "menu" to see what I can do.`,
      );
    }
  });

  it('echoes a media caption, and ignores media without one', () => {
    const media = { type: 'image', mimetype: 'image/jpeg', fileName: null, caption: 'look', seconds: null };
    expect(route(received({ type: 'imageMessage', text: 'look', media })).body.text).toBe('look');
    expect(
      route(received({ type: 'imageMessage', text: '', media: { ...media, caption: null } })),
    ).toBeNull();
  });

  it('sends nothing for webhook.test, a missing reply target, or its own messages', () => {
    expect(
      route({ event: 'webhook.test', sessionId: 'default', customerId: 'acc_1', data: { message: 'test' } }),
    ).toBeNull();
    expect(route(received({ replyTo: null }))).toBeNull();
    expect(route(received({ fromMe: true }))).toBeNull();
    expect(route(null)).toBeNull();
  });
});
