import { useEffect, useState } from 'preact/hooks';
import {
  ApiFailure,
  call,
  type Credential,
  describeError,
  signInAsOperator,
  signInWithKey,
  signOutSession,
  whenSessionEnds,
} from './api';
import { CustomerView } from './customer/customer-view';
import type { Identity } from './identity';
import { OperatorView } from './operator/operator-view';

/** Where the tab keeps who is signed in: a dashboard session token, never the key or admin token. */
const STORAGE_KEY = 'jumbe.dashboard.credential';

function stored(): Identity | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    return raw ? (JSON.parse(raw) as Identity) : null;
  } catch {
    return null;
  }
}

/**
 * Signs in: the admin token or an API key is exchanged for a dashboard session token and then
 * forgotten (a key's scope says whether the view is read-only). The sandbox routes answer 404
 * unless JUMBE_NETWORK=sandbox.
 */
async function identify(kind: 'key' | 'admin', secret: string): Promise<Identity> {
  if (kind === 'admin') {
    const credential: Credential = { kind: 'admin', token: await signInAsOperator(secret) };
    return { credential, readOnly: false, sandbox: false };
  }
  const session = await signInWithKey(secret);
  const credential: Credential = { kind: 'dashboard', token: session.token };
  let sandbox = true;
  try {
    await call(credential, 'GET', '/sandbox/outbox?sessionId=default&limit=1');
  } catch (error) {
    if (error instanceof ApiFailure && error.status === 404 && error.code === 'not_found') sandbox = false;
  }
  return { credential, readOnly: session.scope === 'read', sandbox };
}

export function App() {
  const [identity, setIdentity] = useState<Identity | null>(stored);
  const [ended, setEnded] = useState(false);
  const forget = () => {
    sessionStorage.removeItem(STORAGE_KEY);
    setIdentity(null);
  };
  // The gateway refused the session (expired, signed out elsewhere, key revoked): sign in again.
  useEffect(
    () =>
      whenSessionEnds(() => {
        forget();
        setEnded(true);
      }),
    [],
  );
  const signOut = () => {
    if (identity) void signOutSession(identity.credential);
    forget();
  };
  if (!identity) {
    return (
      <SignIn
        ended={ended}
        onSignedIn={(who) => {
          sessionStorage.setItem(STORAGE_KEY, JSON.stringify(who));
          setEnded(false);
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

function SignIn({ ended, onSignedIn }: { ended: boolean; onSignedIn: (identity: Identity) => void }) {
  const [kind, setKind] = useState<'key' | 'admin'>('key');
  const [secret, setSecret] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await identify(kind, secret.trim()));
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
        {ended && (
          <p class="hint" role="status">
            Your dashboard session has ended (signed out, 12 hours old, or its key or the admin token
            changed). Sign in again.
          </p>
        )}
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
          The key is sent once, to this gateway, for a dashboard session of 12 hours whose token this tab
          keeps (sessionStorage); the key itself is not kept, and what the dashboard does costs no API hits.
          Get a key with <code>npx jumbe quickstart</code>.
        </p>
      </form>
    </main>
  );
}
