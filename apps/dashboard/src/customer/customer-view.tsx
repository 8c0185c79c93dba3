import { useState } from 'preact/hooks';
import type { Identity } from '../app';
import { FailuresPanel } from './failures-panel';
import { KeysPanel } from './keys-panel';
import { SandboxPanel } from './sandbox-panel';
import { SendPanel } from './send-panel';
import { SessionsPanel } from './sessions-panel';
import { UsagePanel } from './usage-panel';
import { WebhookPanel } from './webhook-panel';

type Tab = 'sessions' | 'send' | 'failures' | 'webhook' | 'usage' | 'keys' | 'sandbox';

export function CustomerView({ identity }: { identity: Identity; onRefused: () => void }) {
  const tabs: Array<[Tab, string]> = [
    ['sessions', 'Sessions'],
    ...(identity.readOnly ? [] : ([['send', 'Send']] as Array<[Tab, string]>)),
    ['failures', 'Failed sends'],
    ['webhook', 'Webhook'],
    ['usage', 'Usage'],
    ...(identity.readOnly ? [] : ([['keys', 'API keys']] as Array<[Tab, string]>)),
    ...(identity.sandbox && !identity.readOnly ? ([['sandbox', 'Sandbox']] as Array<[Tab, string]>) : []),
  ];
  const [tab, setTab] = useState<Tab>('sessions');
  const { credential, readOnly } = identity;
  return (
    <>
      <nav aria-label="Dashboard sections" class="tabs">
        {tabs.map(([id, label]) => (
          <button
            type="button"
            key={id}
            aria-current={tab === id ? 'page' : undefined}
            onClick={() => setTab(id)}
          >
            {label}
          </button>
        ))}
      </nav>
      <main>
        {readOnly && <p class="notice">This is a read-only key: you can look, but not change anything.</p>}
        {tab === 'sessions' && <SessionsPanel credential={credential} readOnly={readOnly} />}
        {tab === 'send' && <SendPanel credential={credential} />}
        {tab === 'failures' && <FailuresPanel credential={credential} />}
        {tab === 'webhook' && <WebhookPanel credential={credential} readOnly={readOnly} />}
        {tab === 'usage' && <UsagePanel credential={credential} />}
        {tab === 'keys' && <KeysPanel credential={credential} />}
        {tab === 'sandbox' && <SandboxPanel credential={credential} />}
      </main>
    </>
  );
}
