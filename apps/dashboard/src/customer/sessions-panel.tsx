import { useState } from 'preact/hooks';
import { call, callText, type Credential, type Session, type Usage } from '../api';
import { ConfirmButton, LoadError, Outcome, Panel, useAction, useLoader, when, Table } from '../ui';

/**
 * The account's sessions (the list the whole view shares, polled by it), starting one, and the
 * picked session's detail: its QR or pairing code while it links, log out and delete.
 */
export function SessionsPanel(props: {
  credential: Credential;
  readOnly: boolean;
  sessions: { value: Session[] | undefined; error: string | null; reload: () => Promise<void> };
  selected: string | null;
  onSelect: (sessionId: string) => void;
}) {
  const { credential, readOnly, sessions } = props;
  const usage = useLoader(async () => (await call<Usage>(credential, 'GET', '/usage')).data, [credential]);
  const [newId, setNewId] = useState('default');
  const start = useAction();
  const [detailOpen, setDetailOpen] = useState(false);
  const selected = detailOpen ? props.selected : null;
  const setSelected = (sessionId: string | null) => {
    if (sessionId !== null) props.onSelect(sessionId);
    setDetailOpen(sessionId !== null);
  };
  const atCap = usage.value !== undefined && usage.value.sessions >= usage.value.sessionLimit;

  return (
    <>
      <Panel title="Sessions">
        <LoadError error={sessions.error} />
        {sessions.value && sessions.value.length === 0 && <p>No sessions yet. Start one below.</p>}
        {sessions.value && sessions.value.length > 0 && (
          <Table columns={['Session', 'State', 'Reason', 'Phone', 'Updated']} testId="sessions" actions>
            {sessions.value.map((session) => (
              <tr key={session.sessionId} data-session={session.sessionId}>
                <td>{session.sessionId}</td>
                <td>
                  <span class={`state state-${session.state}`} data-testid="session-state">
                    {session.state}
                  </span>
                </td>
                <td>{session.reason ?? '—'}</td>
                <td>{session.phoneNumber ?? '—'}</td>
                <td>{when(session.updatedAt)}</td>
                <td>
                  <button type="button" onClick={() => setSelected(session.sessionId)}>
                    Open {session.sessionId}
                  </button>
                </td>
              </tr>
            ))}
          </Table>
        )}
        {!readOnly && (
          <form
            class="row"
            onSubmit={(event) => {
              event.preventDefault();
              void start.run(async () => {
                const result = await call<Session>(credential, 'POST', '/session/start', {
                  sessionId: newId,
                });
                await Promise.all([sessions.reload(), usage.reload()]);
                setSelected(newId);
                return result.message;
              });
            }}
          >
            <label for="new-session">Session id</label>
            <input id="new-session" value={newId} required onInput={(e) => setNewId(e.currentTarget.value)} />
            <button type="submit" disabled={start.busy}>
              Start session
            </button>
            {usage.value && (
              <span class="hint" data-testid="session-cap">
                {usage.value.sessions} of {usage.value.sessionLimit} sessions on plan “{usage.value.plan}”
              </span>
            )}
          </form>
        )}
        {atCap && !readOnly && (
          <p class="notice">
            Your plan's session cap is reached: upgrade the plan (ask your operator) or delete a session to
            start another.
          </p>
        )}
        <Outcome outcome={start.outcome} />
      </Panel>
      {selected && (
        <SessionDetail
          key={selected}
          credential={credential}
          readOnly={readOnly}
          session={sessions.value?.find((s) => s.sessionId === selected) ?? null}
          sessionId={selected}
          onChanged={() => void Promise.all([sessions.reload(), usage.reload()])}
          onClose={() => setSelected(null)}
        />
      )}
    </>
  );
}

function SessionDetail(props: {
  credential: Credential;
  readOnly: boolean;
  sessionId: string;
  session: Session | null;
  onChanged: () => void;
  onClose: () => void;
}) {
  const { credential, sessionId, session } = props;
  const waiting =
    session?.state === 'qr_ready' || session?.state === 'starting' || session?.state === 'connecting';
  const qr = useLoader(
    async () => {
      if (!waiting) return null;
      const svg = await callText(
        credential,
        'GET',
        `/session/qr?sessionId=${encodeURIComponent(sessionId)}&format=svg`,
      );
      return { qr: svg };
    },
    [credential, sessionId, waiting],
    // A QR renews about every 20 s: every 5 s shows each one in time, within the dashboard's allowance.
    waiting ? 5_000 : undefined,
  );
  const action = useAction();
  const [phone, setPhone] = useState('');
  const [code, setCode] = useState<string | null>(null);
  const q = `sessionId=${encodeURIComponent(sessionId)}`;

  return (
    <Panel title={`Session ${sessionId}`}>
      <p>
        State: <strong data-testid="detail-state">{session?.state ?? 'unknown'}</strong>
        {session?.phoneNumber ? ` · ${session.phoneNumber}` : ''}
        {session?.reason ? ` · reason: ${session.reason}` : ''}
      </p>
      {waiting && (
        <div class="qr-box">
          <LoadError error={qr.error} />
          {qr.value?.qr ? (
            <img
              class="qr"
              data-testid="qr"
              alt={`QR code to link session ${sessionId}: scan it from WhatsApp, Linked devices`}
              src={`data:image/svg+xml;utf8,${encodeURIComponent(qr.value.qr)}`}
            />
          ) : (
            <p>Waiting for a QR code…</p>
          )}
          <p class="hint">
            On the phone: WhatsApp → Settings → Linked devices → Link a device. The QR renews itself.
          </p>
        </div>
      )}
      {!props.readOnly && (
        <>
          {waiting && (
            <form
              class="row"
              onSubmit={(event) => {
                event.preventDefault();
                void action.run(async () => {
                  const result = await call<{ pairingCode: string }>(
                    credential,
                    'POST',
                    '/session/pairing-code',
                    {
                      sessionId,
                      phoneNumber: phone.trim(),
                    },
                  );
                  setCode(result.data.pairingCode);
                  return result.message;
                });
              }}
            >
              <label for="pair-phone">Or link with a code: phone number</label>
              <input
                id="pair-phone"
                inputMode="tel"
                placeholder="2547…"
                value={phone}
                onInput={(e) => setPhone(e.currentTarget.value)}
              />
              <button type="submit" disabled={action.busy}>
                Get pairing code
              </button>
            </form>
          )}
          {code && (
            <p class="pairing-code" role="status">
              Pairing code: <strong>{code}</strong> — enter it on the phone under Linked devices → Link with
              phone number.
            </p>
          )}
          <div class="row">
            <ConfirmButton
              label="Log out"
              question={`Log out session ${sessionId}? The phone is unlinked and must scan again.`}
              disabled={action.busy}
              onConfirm={() =>
                void action.run(async () => {
                  const result = await call(credential, 'POST', '/session/logout', { sessionId });
                  props.onChanged();
                  return result.message ?? 'Logged out.';
                })
              }
            />
            <ConfirmButton
              label="Delete"
              question={`Delete session ${sessionId} and its credentials?`}
              disabled={action.busy}
              onConfirm={() =>
                void action.run(async () => {
                  const result = await call(credential, 'DELETE', `/session?${q}`);
                  props.onChanged();
                  return result.message ?? 'Deleted.';
                })
              }
            />
            <button type="button" onClick={props.onClose}>
              Close
            </button>
          </div>
        </>
      )}
      <Outcome outcome={action.outcome} />
    </Panel>
  );
}
