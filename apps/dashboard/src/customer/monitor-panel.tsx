import { useState } from 'preact/hooks';
import { EVENT_TYPES, type EventEnvelope } from '../api';
import { Panel } from '../ui';
import { type EventFeed, type FeedState, useEventFeed } from './event-feed';

/** The account's events as they happen (`GET /api/v1/events`), newest first, with their JSON. */
export function MonitorPanel({ feed }: { feed: EventFeed }) {
  const { events, state } = useEventFeed(feed);
  const [hidden, setHidden] = useState<string[]>([]);
  const shown = events.filter((e) => !hidden.includes(e.type)).slice(0, 100);
  return (
    <Panel title="Live events">
      <StreamState state={state} />
      <fieldset>
        <legend>Show</legend>
        {EVENT_TYPES.map((type) => (
          <label key={type} class="inline">
            <input
              type="checkbox"
              checked={!hidden.includes(type)}
              onChange={(e) => {
                const on = e.currentTarget.checked;
                setHidden((now) => (on ? now.filter((t) => t !== type) : [...now, type]));
              }}
            />{' '}
            {type}
          </label>
        ))}
      </fieldset>
      <div class="row">
        <button type="button" onClick={() => feed.clear()}>
          Clear
        </button>
        <span class="hint">
          {events.length} received in this tab{hidden.length > 0 ? `, ${shown.length} shown` : ''}
        </span>
      </div>
      <ol class="events" data-testid="events" aria-live="polite">
        {shown.map((e) => (
          <li key={`${e.id ?? ''}/${e.receivedAt}`} data-event={e.type}>
            <details>
              <summary>
                <time>{new Date(e.envelope.timestamp ?? e.receivedAt).toLocaleTimeString()}</time>{' '}
                <code>{e.type}</code> {e.envelope.sessionId ?? ''} {summarise(e.envelope)}
              </summary>
              <pre class="payload">{JSON.stringify(e.envelope, null, 2)}</pre>
            </details>
          </li>
        ))}
      </ol>
      {shown.length === 0 && state.kind === 'live' && (
        <p>Listening. Events appear here as they happen (try an inbound message from the Sandbox tab).</p>
      )}
    </Panel>
  );
}

export function StreamState({ state }: { state: FeedState }) {
  if (state.kind === 'live')
    return (
      <p class="notice" data-testid="stream-state">
        ● Live: connected to the event stream.
      </p>
    );
  if (state.kind === 'connecting') return <p data-testid="stream-state">Connecting to the event stream…</p>;
  if (state.kind === 'paused') return <p data-testid="stream-state">Paused while this tab is hidden.</p>;
  return (
    <p class="error" role="alert" data-testid="stream-state">
      Event stream unavailable: {state.reason} Trying again in {state.retryInS} s.
    </p>
  );
}

/** One line about an event: who, and what. */
function summarise(envelope: EventEnvelope): string {
  switch (envelope.event) {
    case 'message.received': {
      const m = envelope.message;
      return `from ${m.pushName ?? m.from ?? '?'}: ${m.text || (m.media ? `[${m.media.type}]` : '')}`;
    }
    case 'message.status':
      return `${envelope.message.id} → ${envelope.message.status}`;
    case 'session.status':
      return `${envelope.session.state}${envelope.session.reason ? ` (${envelope.session.reason})` : ''}`;
    case 'message.reaction':
      return `${envelope.reaction.emoji || 'reaction removed'} on ${envelope.reaction.messageId}`;
    case 'message.edited':
      return `edited ${envelope.edited.messageId}: ${envelope.edited.text}`;
    case 'message.revoked':
      return `deleted ${envelope.revoked.messageId}`;
    case 'message.poll_vote': {
      const { vote } = envelope;
      return `${vote.from} voted ${vote.selectedOptions.join(', ') || '(vote taken back)'} on ${vote.pollId}`;
    }
    case 'group.participants':
      return `${envelope.group.action} ${envelope.group.participants.join(', ')} in ${envelope.group.id}`;
    case 'group.updated': {
      const changed = Object.keys(envelope.group).filter((key) => key !== 'id' && key !== 'author');
      return `${envelope.group.id}: ${changed.join(', ')} changed`;
    }
    case 'call.received': {
      const { call } = envelope;
      return `${call.video ? 'video' : 'voice'} call from ${call.from}${call.rejected ? ' (rejected)' : ''}`;
    }
    default:
      return '';
  }
}
