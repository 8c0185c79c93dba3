import { useState } from 'preact/hooks';
import { type ApiKey, call, type Credential } from '../api';
import {
  ConfirmButton,
  LoadError,
  Outcome,
  Panel,
  ShownOnce,
  useAction,
  useLoader,
  when,
  Table,
} from '../ui';

/** The account's API keys: list, create (shown once), revoke. */
export function KeysPanel({ credential }: { credential: Credential }) {
  const keys = useLoader(async () => (await call<ApiKey[]>(credential, 'GET', '/keys')).data, [credential]);
  return (
    <Panel title="API keys">
      <LoadError error={keys.error} />
      <KeyTable
        keys={keys.value}
        onRevoke={(id) => call(credential, 'DELETE', `/keys/${id}`)}
        reload={keys.reload}
      />
      <CreateKey create={(body) => call<ApiKey>(credential, 'POST', '/keys', body)} reload={keys.reload} />
    </Panel>
  );
}

export function KeyTable(props: {
  keys: ApiKey[] | undefined;
  onRevoke: (id: string) => Promise<{ message?: string }>;
  reload: () => Promise<void>;
}) {
  const action = useAction();
  if (!props.keys) return null;
  return (
    <>
      <Table columns={['Prefix', 'Name', 'Scope', 'Created', 'Last used', 'Revoked']} testId="keys" actions>
        {props.keys.map((key) => (
          <tr key={key.id} data-key={key.prefix}>
            <td>
              <code>{key.prefix}…</code>
            </td>
            <td>{key.name ?? '—'}</td>
            <td>{key.scope}</td>
            <td>{when(key.createdAt)}</td>
            <td>{key.lastUsedAt ? when(key.lastUsedAt) : 'never'}</td>
            <td>{key.revokedAt ? when(key.revokedAt) : '—'}</td>
            <td>
              {!key.revokedAt && (
                <ConfirmButton
                  label={`Revoke ${key.prefix}`}
                  question={`Revoke key ${key.prefix}…? Requests with it are refused at once.`}
                  onConfirm={() =>
                    void action.run(async () => {
                      const result = await props.onRevoke(key.id);
                      await props.reload();
                      return result.message ?? 'Key revoked.';
                    })
                  }
                />
              )}
            </td>
          </tr>
        ))}
      </Table>
      <Outcome outcome={action.outcome} />
    </>
  );
}

export function CreateKey(props: {
  create: (body: { name?: string; scope: 'full' | 'read' }) => Promise<{ key?: string; message?: string }>;
  reload: () => Promise<void>;
}) {
  const [name, setName] = useState('');
  const [scope, setScope] = useState<'full' | 'read'>('full');
  const [shown, setShown] = useState<string | null>(null);
  const action = useAction();
  return (
    <>
      <form
        class="row"
        onSubmit={(event) => {
          event.preventDefault();
          void action.run(async () => {
            const result = await props.create({ ...(name.trim() ? { name: name.trim() } : {}), scope });
            setShown(result.key ?? null);
            await props.reload();
            return undefined;
          });
        }}
      >
        <label for="key-name">New key name</label>
        <input id="key-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <label for="key-scope">Scope</label>
        <select
          id="key-scope"
          value={scope}
          onChange={(e) => setScope(e.currentTarget.value as 'full' | 'read')}
        >
          <option value="full">full</option>
          <option value="read">read</option>
        </select>
        <button type="submit" disabled={action.busy}>
          Create key
        </button>
      </form>
      {shown && <ShownOnce label="New API key" value={shown} />}
      <Outcome outcome={action.outcome} />
    </>
  );
}
