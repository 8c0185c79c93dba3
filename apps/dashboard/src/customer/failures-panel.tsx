import { useState } from 'preact/hooks';
import { call, type Credential, type SendFailure, type Session } from '../api';
import { LoadError, Panel, useLoader, when, Table } from '../ui';

/** The failed-send log, newest first, filtered by session (server side) and error code. */
export function FailuresPanel({
  credential,
  sessions,
}: {
  credential: Credential;
  sessions: Session[] | undefined;
}) {
  const [sessionId, setSessionId] = useState('');
  const [code, setCode] = useState('');
  const failures = useLoader(
    async () => {
      const query = sessionId.trim() ? `&sessionId=${encodeURIComponent(sessionId.trim())}` : '';
      return (await call<SendFailure[]>(credential, 'GET', `/messages/failures?limit=500${query}`)).data;
    },
    [credential, sessionId],
    10_000,
  );
  const codes = [...new Set((failures.value ?? []).map((f) => f.code))].sort();
  const shown = (failures.value ?? []).filter((f) => !code || f.code === code);
  return (
    <Panel title="Failed sends">
      <div class="row">
        <label for="failures-session">Session</label>
        <select id="failures-session" value={sessionId} onChange={(e) => setSessionId(e.currentTarget.value)}>
          <option value="">all sessions</option>
          {(sessions ?? []).map((s) => (
            <option key={s.sessionId} value={s.sessionId}>
              {s.sessionId}
            </option>
          ))}
        </select>
        <label for="failures-code">Error code</label>
        <select id="failures-code" value={code} onChange={(e) => setCode(e.currentTarget.value)}>
          <option value="">all codes</option>
          {codes.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </div>
      <LoadError error={failures.error} />
      {failures.value && shown.length === 0 && <p>No failed sends{code || sessionId ? ' match' : ''}.</p>}
      {shown.length > 0 && (
        <Table columns={['When', 'Session', 'To', 'Type', 'Code', 'Message']} testId="failures">
          {shown.map((f) => (
            <tr key={f.id}>
              <td>{when(f.createdAt)}</td>
              <td>{f.sessionId}</td>
              <td>{f.to ?? '—'}</td>
              <td>{f.type}</td>
              <td>
                <code>{f.code}</code>
              </td>
              <td>{f.message}</td>
            </tr>
          ))}
        </Table>
      )}
    </Panel>
  );
}
