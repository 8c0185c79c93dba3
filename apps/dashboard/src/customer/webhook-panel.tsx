import { useEffect, useRef, useState } from 'preact/hooks';
import { call, type Credential, type WebhookState } from '../api';
import { LoadError, Outcome, Panel, ShownOnce, useAction, useLoader, when, Table } from '../ui';

/** The webhook: destination, on/off, secret rotation, a test event, and the 20 latest deliveries. */
export function WebhookPanel({ credential, readOnly }: { credential: Credential; readOnly: boolean }) {
  const state = useLoader(
    async () => (await call<WebhookState>(credential, 'GET', '/webhook')).data,
    [credential],
    5_000,
  );
  const [url, setUrl] = useState('');
  const [enabled, setEnabled] = useState(true);
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
    }
  }, [loaded]);

  const save = (rotateSecret: boolean) =>
    void action.run(async () => {
      const body = rotateSecret ? { rotateSecret: true } : { url: url.trim(), enabled };
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
      {state.value && state.value.deliveries.length === 0 && <p>No deliveries yet.</p>}
      {state.value && state.value.deliveries.length > 0 && (
        <Table columns={['When', 'Event', 'Status', 'Error', 'Duration']} testId="deliveries" actions>
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
