import { useEffect, useRef, useState } from 'preact/hooks';
import { call, type Credential, EVENT_TYPES, type WebhookState } from '../api';
import { LoadError, Outcome, Panel, ShownOnce, useAction, useLoader, when, Table } from '../ui';

/**
 * The webhook: destination, on/off, event types, retries, secret rotation, a test event, and the
 * 20 latest deliveries with the receiver's answers.
 */
export function WebhookPanel({ credential, readOnly }: { credential: Credential; readOnly: boolean }) {
  const state = useLoader(
    async () => (await call<WebhookState>(credential, 'GET', '/webhook')).data,
    [credential],
    10_000,
  );
  const [url, setUrl] = useState('');
  const [enabled, setEnabled] = useState(true);
  const [events, setEvents] = useState<string[]>(['message.received']);
  const [retries, setRetries] = useState(0);
  const [secret, setSecret] = useState<string | null>(null);
  const action = useAction();
  const loaded = state.value !== undefined;
  const edited = useRef(false);
  useEffect(() => {
    // Fill the form from the server once, unless the user was quicker.
    if (state.value && !edited.current) {
      setUrl(state.value.url ?? '');
      // A webhook not set up yet is enabled by saving its URL.
      setEnabled(state.value.url ? state.value.enabled : true);
      setEvents(state.value.events);
      setRetries(state.value.retry?.attempts ?? 0);
    }
  }, [loaded]);

  const save = (rotateSecret: boolean) =>
    void action.run(async () => {
      const body = rotateSecret
        ? { rotateSecret: true }
        : { url: url.trim(), enabled, events, retry: retries > 0 ? { attempts: retries } : null };
      const result = await call<WebhookState>(credential, 'PATCH', '/webhook', body);
      if (result.secret) setSecret(result.secret);
      await state.reload();
      return result.message ?? 'Webhook saved.';
    });

  return (
    <Panel title="Webhook">
      <LoadError error={state.error} />
      <form
        class="stack"
        onSubmit={(event) => {
          event.preventDefault();
          save(false);
        }}
      >
        <label for="webhook-url">Webhook URL</label>
        <input
          id="webhook-url"
          type="url"
          required
          disabled={readOnly}
          placeholder="https://example.com/jumbe"
          value={url}
          onInput={(e) => {
            edited.current = true;
            setUrl(e.currentTarget.value);
          }}
        />
        <label class="inline">
          <input
            type="checkbox"
            disabled={readOnly}
            checked={enabled}
            onChange={(e) => {
              edited.current = true;
              setEnabled(e.currentTarget.checked);
            }}
          />{' '}
          Enabled
        </label>
        <fieldset>
          <legend>Events to deliver (webhook.test always is)</legend>
          {EVENT_TYPES.map((type) => (
            <label key={type} class="inline">
              <input
                type="checkbox"
                disabled={readOnly}
                checked={events.includes(type)}
                onChange={(e) => {
                  edited.current = true;
                  const on = e.currentTarget.checked;
                  setEvents((now) => (on ? [...now, type] : now.filter((t) => t !== type)));
                }}
              />{' '}
              {type}
            </label>
          ))}
        </fieldset>
        <label for="webhook-retries">Automatic retries of a failed delivery</label>
        <select
          id="webhook-retries"
          disabled={readOnly}
          value={String(retries)}
          onChange={(e) => {
            edited.current = true;
            setRetries(Number(e.currentTarget.value));
          }}
        >
          <option value="0">none (the default)</option>
          {[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => (
            <option key={n} value={String(n)}>
              up to {n} more, within 24 hours
            </option>
          ))}
        </select>
        {!readOnly && (
          <div class="row">
            <button type="submit" disabled={action.busy}>
              Save webhook
            </button>
            <button type="button" disabled={action.busy} onClick={() => save(true)}>
              Rotate secret
            </button>
            <button
              type="button"
              disabled={action.busy}
              onClick={() =>
                void action.run(async () => {
                  const result = await call(credential, 'POST', '/webhook/test');
                  await state.reload();
                  return result.message ?? 'Test event sent.';
                })
              }
            >
              Send test event
            </button>
          </div>
        )}
      </form>
      {state.value && <p class="hint">Signing secret: {state.value.hasSecret ? 'set' : 'not set yet'}</p>}
      {secret && <ShownOnce label="New signing secret" value={secret} />}
      <Outcome outcome={action.outcome} />
      <h3>Latest deliveries</h3>
      <p class="hint">
        Each row is one attempt, with the first 1 KiB of what your receiver answered. The events themselves
        are not kept for reading: watch them arrive under Live events.
      </p>
      {state.value && state.value.deliveries.length === 0 && <p>No deliveries yet.</p>}
      {state.value && state.value.deliveries.length > 0 && (
        <Table
          columns={['When', 'Event', 'Status', 'Error', 'Duration', 'Receiver answered']}
          testId="deliveries"
          actions
        >
          {state.value.deliveries.map((d) => (
            // A retried event's attempts share its delivery id.
            <tr key={`${d.id}/${d.attempt}`}>
              <td>{when(d.attemptedAt)}</td>
              <td>{d.event}</td>
              <td>
                <span class={`delivery-${d.status}`}>
                  {d.status}
                  {d.statusCode !== null ? ` (${d.statusCode})` : ''}
                </span>
                {d.attempt > 1 ? ` · attempt ${d.attempt}` : ''}
              </td>
              <td>{d.error ?? '—'}</td>
              <td>{d.durationMs} ms</td>
              <td>
                {d.response ? (
                  <details>
                    <summary>{d.response.length > 40 ? `${d.response.slice(0, 40)}…` : d.response}</summary>
                    <pre class="payload">{d.response}</pre>
                  </details>
                ) : (
                  '—'
                )}
              </td>
              <td>
                {!readOnly && (
                  <button
                    type="button"
                    onClick={() =>
                      void action.run(async () => {
                        const result = await call(
                          credential,
                          'POST',
                          `/webhook/deliveries/${d.id}/redeliver`,
                        );
                        await state.reload();
                        return result.message ?? 'Redelivered.';
                      })
                    }
                  >
                    Redeliver
                  </button>
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
    </Panel>
  );
}
