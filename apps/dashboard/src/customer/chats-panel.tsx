import { useState } from 'preact/hooks';
import { call, type Credential, type OutboxEntry } from '../api';
import { LoadError, Outcome, Panel, useAction, useLoader } from '../ui';
import { type EventFeed, type FeedEvent, useEventFeed } from './event-feed';
import { StreamState } from './monitor-panel';
import type { SentLog, SentMessage } from './sent-log';

interface ChatMessage {
  id: string;
  chat: string;
  direction: 'in' | 'out';
  text: string;
  at: number;
  status?: string;
}

/**
 * The picked session's recent messages, by chat. No API route lists a session's past messages, so
 * the view is made of what the event stream brought since this tab opened it (received messages
 * and, when the stream sends them, statuses, reactions, edits and deletions), the messages sent
 * from this tab, and on the sandbox network everything the session sent (its outbox).
 */
export function ChatsPanel(props: {
  credential: Credential;
  sessionId: string;
  feed: EventFeed;
  sent: SentLog;
  readOnly: boolean;
  sandbox: boolean;
}) {
  const { credential, sessionId } = props;
  const { events, state } = useEventFeed(props.feed);
  const outbox = useLoader(
    async () =>
      props.sandbox
        ? (
            await call<OutboxEntry[]>(
              credential,
              'GET',
              `/sandbox/outbox?sessionId=${encodeURIComponent(sessionId)}&limit=100`,
            )
          ).data
        : [],
    [credential, sessionId, props.sandbox],
    props.sandbox ? 10_000 : undefined,
  );
  const messages = chatMessages(sessionId, events, props.sent.of(sessionId), outbox.value ?? []);
  const chats = [...new Set(messages.map((m) => m.chat))];
  const [open, setOpen] = useState<string | null>(null);
  const chat = open !== null && chats.includes(open) ? open : (chats[0] ?? null);
  const shown = messages.filter((m) => m.chat === chat).reverse();

  return (
    <Panel title={`Chats of ${sessionId}`}>
      <StreamState state={state} />
      <LoadError error={outbox.error} />
      <p class="hint">
        Messages received since this tab opened the event stream, and those sent from this tab
        {props.sandbox ? ' (on the sandbox, everything the session sent)' : ''}.
      </p>
      {chats.length === 0 && <p data-testid="no-chats">No messages yet.</p>}
      {chats.length > 0 && (
        <div class="chats">
          <ul class="chat-list" aria-label="Chats">
            {chats.map((c) => (
              <li key={c}>
                <button
                  type="button"
                  aria-current={c === chat ? 'true' : undefined}
                  onClick={() => setOpen(c)}
                >
                  {display(c)}
                </button>
              </li>
            ))}
          </ul>
          {chat && (
            <div class="chat" data-testid="chat">
              <h3>{display(chat)}</h3>
              <ol class="bubbles">
                {shown.map((m) => (
                  <li
                    key={`${m.direction}/${m.id}`}
                    class={`bubble ${m.direction}`}
                    data-direction={m.direction}
                  >
                    <span class="bubble-text">{m.text}</span>
                    <small>
                      {new Date(m.at).toLocaleTimeString()}
                      {m.status ? ` · ${m.status}` : ''}
                    </small>
                  </li>
                ))}
              </ol>
              {!props.readOnly && (
                <Reply
                  credential={credential}
                  sessionId={sessionId}
                  chat={chat}
                  sent={props.sent}
                  onSent={() => void outbox.reload()}
                />
              )}
            </div>
          )}
        </div>
      )}
    </Panel>
  );
}

function Reply(props: {
  credential: Credential;
  sessionId: string;
  chat: string;
  sent: SentLog;
  onSent: () => void;
}) {
  const [text, setText] = useState('');
  const action = useAction();
  return (
    <form
      class="row"
      onSubmit={(event) => {
        event.preventDefault();
        void action.run(async () => {
          const result = await call<{ key: { id: string; remoteJid: string } }>(
            props.credential,
            'POST',
            '/messages/text',
            { sessionId: props.sessionId, to: props.chat, text },
          );
          props.sent.add({
            sessionId: props.sessionId,
            chat: result.data.key.remoteJid,
            id: result.data.key.id,
            text,
            at: Date.now(),
          });
          setText('');
          props.onSent();
          return undefined;
        });
      }}
    >
      <label for="reply-text" class="sr-only">
        Reply
      </label>
      <input
        id="reply-text"
        required
        placeholder="Reply…"
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
      />
      <button type="submit" disabled={action.busy}>
        Send reply
      </button>
      <Outcome outcome={action.outcome} />
    </form>
  );
}

/** A chat id as a person reads it: the number of a one-to-one chat, else the id. */
const display = (chat: string) => chat.replace(/@s\.whatsapp\.net$/, '');

/** The session's messages from every source, newest first, one entry per message. */
export function chatMessages(
  sessionId: string,
  events: FeedEvent[],
  sent: SentMessage[],
  outbox: OutboxEntry[],
): ChatMessage[] {
  const byId = new Map<string, ChatMessage>();
  const statuses = new Map<string, string>();
  const edits = new Map<string, string>();
  const deleted = new Set<string>();
  for (const entry of outbox) {
    const text = entry.content['text'];
    const label = entry.content['caption'] ?? entry.content['name'];
    byId.set(`out/${entry.id}`, {
      id: entry.id,
      chat: entry.to,
      direction: 'out',
      text:
        typeof text === 'string' ? text : `[${entry.type}]${typeof label === 'string' ? ` ${label}` : ''}`,
      at: Date.parse(entry.createdAt),
    });
  }
  for (const entry of sent) {
    if (!byId.has(`out/${entry.id}`))
      byId.set(`out/${entry.id}`, {
        id: entry.id,
        chat: entry.chat,
        direction: 'out',
        text: entry.text,
        at: entry.at,
      });
  }
  // Events arrive newest first: the oldest status of a message is overwritten by newer ones.
  for (const { envelope } of [...events].reverse()) {
    if (envelope.sessionId !== sessionId) continue;
    switch (envelope.event) {
      case 'message.received': {
        const m = envelope.message;
        if (m.id === null) break;
        byId.set(`in/${m.id}`, {
          id: m.id,
          chat: m.replyTo ?? m.chat ?? m.from ?? 'unknown',
          direction: 'in',
          text: m.text || (m.media ? `[${m.media.type}] ${m.media.caption ?? ''}`.trim() : `[${m.type}]`),
          at: Date.parse(envelope.timestamp) || Date.now(),
        });
        break;
      }
      case 'message.status':
        statuses.set(envelope.message.id, envelope.message.status);
        break;
      case 'message.edited':
        edits.set(envelope.edited.messageId, envelope.edited.text);
        break;
      case 'message.revoked':
        deleted.add(envelope.revoked.messageId);
        break;
      default:
        break;
    }
  }
  return [...byId.values()]
    .map((message) => ({
      ...message,
      text: deleted.has(message.id) ? '(deleted)' : (edits.get(message.id) ?? message.text),
      ...(statuses.has(message.id) ? { status: statuses.get(message.id) } : {}),
    }))
    .sort((a, b) => b.at - a.at);
}
