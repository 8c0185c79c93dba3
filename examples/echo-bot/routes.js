'use strict';
// The bot's whole behaviour as a pure function: one webhook event in, at most one Jumbe API request
// out. No I/O here, so it is tested without a network (routes.spec.js).

/** Reply-button ids of the menu. Route on ids, never on labels (spec: interactive messages, rule 1). */
const MENU_ACTIONS = [
  { type: 'reply', id: 'menu.hours', label: 'Opening hours' },
  { type: 'reply', id: 'menu.location', label: 'Where are you?' },
  { type: 'reply', id: 'menu.human', label: 'Talk to a person' },
];

const ANSWERS = {
  'menu.hours': 'We are open Monday to Friday, 08:00 to 18:00, and Saturday 09:00 to 13:00.',
  'menu.location': 'Find us at Moi Avenue 42, Nairobi, next to the bus stage.',
  'menu.human': 'A person from our team will reply here shortly.',
};

/**
 * What to send in answer to `event`, or `null` for nothing.
 *
 * - `message.received` with a reply-button or list selection: the answer for `message.interaction.id`;
 * - `message.received` with the text "menu" (any case, surrounding spaces ignored): the menu, an
 *   interactive message with reply buttons;
 * - `message.received` with any other text (or a media caption): the same text back;
 * - anything else (`webhook.test`, media without caption, no reply target): nothing.
 *
 * Every reply goes through the event's own session (`sessionId`) to `message.replyTo`: the direct
 * chat, or the group for group messages. Never built from `from`, `phoneNumber` or `chat`.
 *
 * @param {any} event the verified webhook body
 * @returns {{ path: string, body: Record<string, unknown> } | null}
 */
function route(event) {
  if (!event || event.event !== 'message.received') return null;
  const message = event.message;
  if (!message || message.fromMe || typeof message.replyTo !== 'string' || message.replyTo === '')
    return null;
  const target = { sessionId: event.sessionId, to: message.replyTo };

  const interactionId = message.interaction && message.interaction.id;
  if (typeof interactionId === 'string' && interactionId !== '') {
    const answer = Object.prototype.hasOwnProperty.call(ANSWERS, interactionId)
      ? ANSWERS[interactionId]
      : `Sorry, I do not know the option "${interactionId}". Send "menu" to see what I can do.`;
    return { path: '/messages/text', body: { ...target, text: answer } };
  }

  const text = typeof message.text === 'string' ? message.text : '';
  if (text.trim().toLowerCase() === 'menu') {
    return {
      path: '/messages/interactive',
      body: {
        ...target,
        title: 'Menu',
        text: 'How can we help? Pick an option below.',
        footer: 'Jumbe echo bot',
        actions: MENU_ACTIONS,
      },
    };
  }
  if (text.trim() === '') return null;
  return { path: '/messages/text', body: { ...target, text } };
}

module.exports = { route, MENU_ACTIONS, ANSWERS };
