import type { Session } from '../api';

/** The session the Send, Chats and Sandbox tabs act on, chosen from the account's sessions. */
export function SessionPicker(props: {
  sessions: Session[] | undefined;
  selected: string | null;
  onSelect: (sessionId: string) => void;
}) {
  const { sessions, selected } = props;
  if (!sessions) return null;
  if (sessions.length === 0)
    return (
      <p class="notice" data-testid="no-sessions">
        No sessions yet: start one on the Sessions tab.
      </p>
    );
  return (
    <div class="row picker">
      <label for="session-picker">Session</label>
      <select
        id="session-picker"
        value={selected ?? ''}
        onChange={(event) => props.onSelect(event.currentTarget.value)}
      >
        {sessions.map((session) => (
          <option key={session.sessionId} value={session.sessionId}>
            {session.sessionId} ({session.state}
            {session.phoneNumber ? `, ${session.phoneNumber}` : ''})
          </option>
        ))}
      </select>
    </div>
  );
}

/** The picked session if it still exists, else the first connected one, else the first. */
export function pickSession(sessions: Session[], wanted: string | null): string | null {
  if (wanted !== null && sessions.some((s) => s.sessionId === wanted)) return wanted;
  return (sessions.find((s) => s.connected) ?? sessions[0])?.sessionId ?? null;
}
