import { useState } from 'preact/hooks';
import { ApiFailure, call, type Credential, describeError } from './api';
import { CustomerView } from './customer/customer-view';
import { OperatorView } from './operator/operator-view';

const STORAGE_KEY = 'jumbe.dashboard.credential';

/** What the signed-in person may do, found out from the API itself. */
export interface Identity {
  credential: Credential;
  readOnly: boolean;
  sandbox: boolean;
}

function stored(): Identity | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    return raw ? (JSON.parse(raw) as Identity) : null;
  } catch {
    return null;
  }
}

/**
 * Checks a key against the API: a key that can read usage is valid; one refused on the key list
 * with 403 is a `read` key; the sandbox routes answer 404 unless JUMBE_NETWORK=sandbox.
 */
async function identify(credential: Credential): Promise<Identity> {
  if (credential.kind === 'admin') {
    await call(credential, 'GET', '/admin/plans');
    return { credential, readOnly: false, sandbox: false };
  }
  await call(credential, 'GET', '/usage');
  let readOnly = false;
  try {
    await call(credential, 'GET', '/keys');
  } catch (error) {
    if (error instanceof ApiFailure && error.status === 403) readOnly = true;
    else throw error;
  }
  let sandbox = true;
  try {
    await call(credential, 'GET', '/sandbox/outbox?sessionId=default&limit=1');
  } catch (error) {
    if (error instanceof ApiFailure && error.status === 404 && error.code === 'not_found') sandbox = false;
  }
  return { credential, readOnly, sandbox };
}

export function App() {
  const [identity, setIdentity] = useState<Identity | null>(stored);
  const signOut = () => {
    sessionStorage.removeItem(STORAGE_KEY);
    setIdentity(null);
  };
  if (!identity) {
    return (
      <SignIn
        onSignedIn={(who) => {
          sessionStorage.setItem(STORAGE_KEY, JSON.stringify(who));
          setIdentity(who);
        }}
      />
    );
  }
  return (
    <div class="shell">
      <header class="top">
        <h1>Jumbe</h1>
        <span class="who">
          {identity.credential.kind === 'admin'
            ? 'Operator'
            : identity.readOnly
              ? 'Read-only key'
              : 'Full key'}
          {identity.sandbox ? ' · sandbox network' : ''}
        </span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      {identity.credential.kind === 'admin' ? (
        <OperatorView credential={identity.credential} />
      ) : (
        <CustomerView identity={identity} onRefused={signOut} />
      )}
    </div>
  );
}

function SignIn({ onSignedIn }: { onSignedIn: (identity: Identity) => void }) {
  const [kind, setKind] = useState<'key' | 'admin'>('key');
  const [secret, setSecret] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const value = secret.trim();
      onSignedIn(await identify(kind === 'key' ? { kind, key: value } : { kind, token: value }));
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in">
      <h1>Jumbe dashboard</h1>
      <form onSubmit={submit}>
        <fieldset>
          <legend>Sign in as</legend>
          <label>
            <input type="radio" name="kind" checked={kind === 'key'} onChange={() => setKind('key')} />{' '}
            Customer (API key)
          </label>
          <label>
            <input type="radio" name="kind" checked={kind === 'admin'} onChange={() => setKind('admin')} />{' '}
            Operator (admin token)
          </label>
        </fieldset>
        <label for="secret">{kind === 'key' ? 'API key' : 'Admin token'}</label>
        <input
          id="secret"
          type="password"
          autoComplete="off"
          required
          value={secret}
          onInput={(event) => setSecret(event.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <p class="hint">
          The key is kept in this tab only (sessionStorage) and sent only to this gateway's API. Get one with{' '}
          <code>npx jumbe quickstart</code>.
        </p>
      </form>
    </main>
  );
}
