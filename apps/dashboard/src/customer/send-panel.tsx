import { useState } from 'preact/hooks';
import { call, type Credential } from '../api';
import { Outcome, Panel, useAction } from '../ui';

/** Sends a test message: plain text, or an interactive message with up to three reply buttons. */
export function SendPanel({ credential }: { credential: Credential }) {
  const [sessionId, setSessionId] = useState('default');
  const [to, setTo] = useState('');
  const [text, setText] = useState('Habari from the Jumbe dashboard');
  const [kind, setKind] = useState<'text' | 'buttons'>('text');
  const [buttons, setButtons] = useState('Yes, No');
  const send = useAction();

  const submit = (event: Event) => {
    event.preventDefault();
    void send.run(async () => {
      const base = { sessionId: sessionId.trim(), to: to.trim(), text };
      const result =
        kind === 'text'
          ? await call<{ key: { id: string } }>(credential, 'POST', '/messages/text', base)
          : await call<{ key: { id: string } }>(credential, 'POST', '/messages/interactive', {
              ...base,
              actions: buttons
                .split(',')
                .map((label) => label.trim())
                .filter(Boolean)
                .map((label, index) => ({ type: 'reply', id: `b${index + 1}`, label })),
            });
      return `${result.message ?? 'Sent'} (message id ${result.data.key.id})`;
    });
  };

  return (
    <Panel title="Send a test message">
      <form class="stack" onSubmit={submit}>
        <label for="send-session">From session</label>
        <input
          id="send-session"
          required
          value={sessionId}
          onInput={(e) => setSessionId(e.currentTarget.value)}
        />
        <label for="send-to">To (phone number)</label>
        <input
          id="send-to"
          inputMode="tel"
          required
          placeholder="2547…"
          value={to}
          onInput={(e) => setTo(e.currentTarget.value)}
        />
        <fieldset>
          <legend>Kind</legend>
          <label>
            <input type="radio" name="send-kind" checked={kind === 'text'} onChange={() => setKind('text')} />{' '}
            Text
          </label>
          <label>
            <input
              type="radio"
              name="send-kind"
              checked={kind === 'buttons'}
              onChange={() => setKind('buttons')}
            />{' '}
            Reply buttons
          </label>
        </fieldset>
        <label for="send-text">Text</label>
        <textarea
          id="send-text"
          required
          rows={3}
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
        />
        {kind === 'buttons' && (
          <>
            <label for="send-buttons">Button labels (comma-separated, up to 3)</label>
            <input id="send-buttons" value={buttons} onInput={(e) => setButtons(e.currentTarget.value)} />
          </>
        )}
        <button type="submit" disabled={send.busy}>
          Send message
        </button>
      </form>
      <Outcome outcome={send.outcome} />
    </Panel>
  );
}
