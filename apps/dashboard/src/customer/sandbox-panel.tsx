import { useState } from 'preact/hooks';
import { call, type Credential } from '../api';
import { LoadError, Outcome, Panel, useAction, useLoader } from '../ui';

type Inbound = 'text' | 'button' | 'list' | 'media';

/**
 * The simulated phone and contacts of the sandbox network (JUMBE_NETWORK=sandbox): link a session
 * as a phone number, send inbound messages, and watch what the network received.
 */
export function SandboxPanel(props: { credential: Credential; sessionId: string; onLinked: () => void }) {
  const { credential, sessionId } = props;
  const [phone, setPhone] = useState('254700000001');
  const [from, setFrom] = useState('254711111111');
  const [kind, setKind] = useState<Inbound>('text');
  const [text, setText] = useState('Hello from the sandbox');
  const [choice, setChoice] = useState('b1');
  const action = useAction();
  const outbox = useLoader(
    async () =>
      (
        await call<unknown[]>(
          credential,
          'GET',
          `/sandbox/outbox?sessionId=${encodeURIComponent(sessionId)}&limit=20`,
        )
      ).data,
    [credential, sessionId],
    5_000,
  );

  const inbound = () => {
    const base = { sessionId, from: from.trim() };
    if (kind === 'text') return { ...base, text };
    if (kind === 'button')
      return { ...base, text, interaction: { type: 'button_reply', id: choice, label: text } };
    if (kind === 'list')
      return { ...base, text, interaction: { type: 'list_reply', id: choice, label: text } };
    return { ...base, media: { type: 'image', mimetype: 'image/jpeg', caption: text } };
  };

  return (
    <Panel title={`Sandbox network: session ${sessionId}`}>
      <form
        class="row"
        onSubmit={(event) => {
          event.preventDefault();
          void action.run(async () => {
            const result = await call<{ state: string }>(credential, 'POST', '/sandbox/scan', {
              sessionId,
              phoneNumber: phone.trim(),
            });
            props.onLinked();
            return `${result.message ?? 'Scanned'} — session ${sessionId} is ${result.data.state}`;
          });
        }}
      >
        <label for="sandbox-phone">Scan the QR as phone number</label>
        <input
          id="sandbox-phone"
          inputMode="tel"
          value={phone}
          onInput={(e) => setPhone(e.currentTarget.value)}
        />
        <button type="submit" disabled={action.busy}>
          Scan QR
        </button>
      </form>
      <form
        class="stack"
        onSubmit={(event) => {
          event.preventDefault();
          void action.run(async () => {
            const result = await call(credential, 'POST', '/sandbox/inbound', inbound());
            return result.message ?? 'Inbound message delivered to the session.';
          });
        }}
      >
        <h3>Inbound message</h3>
        <label for="sandbox-from">From (contact's number)</label>
        <input
          id="sandbox-from"
          inputMode="tel"
          value={from}
          onInput={(e) => setFrom(e.currentTarget.value)}
        />
        <label for="sandbox-kind">Kind</label>
        <select id="sandbox-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as Inbound)}>
          <option value="text">text</option>
          <option value="button">reply-button press</option>
          <option value="list">list selection</option>
          <option value="media">media (image)</option>
        </select>
        <label for="sandbox-text">{kind === 'media' ? 'Caption' : kind === 'text' ? 'Text' : 'Label'}</label>
        <input id="sandbox-text" value={text} onInput={(e) => setText(e.currentTarget.value)} />
        {(kind === 'button' || kind === 'list') && (
          <>
            <label for="sandbox-choice">Button or row id</label>
            <input id="sandbox-choice" value={choice} onInput={(e) => setChoice(e.currentTarget.value)} />
          </>
        )}
        <button type="submit" disabled={action.busy}>
          Send inbound
        </button>
      </form>
      <Outcome outcome={action.outcome} />
      <h3>Outbox (what the network received from {sessionId})</h3>
      <LoadError error={outbox.error} />
      <pre class="outbox" data-testid="outbox" tabIndex={0}>
        {outbox.value ? JSON.stringify(outbox.value, null, 2) : '…'}
      </pre>
    </Panel>
  );
}
