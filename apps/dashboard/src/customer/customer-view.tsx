import { useEffect, useMemo, useState } from 'preact/hooks';
import { call, type Session } from '../api';
import type { Identity } from '../identity';
import { usePageVisible } from '../page-visibility';
import { useLoader } from '../ui';
import { ChatsPanel } from './chats-panel';
import { EventFeed } from './event-feed';
import { FailuresPanel } from './failures-panel';
import { KeysPanel } from './keys-panel';
import { MonitorPanel } from './monitor-panel';
import { SandboxPanel } from './sandbox-panel';
import { SendPanel } from './send-panel';
import { SentLog } from './sent-log';
import { pickSession, SessionPicker } from './session-picker';
import { SessionsPanel } from './sessions-panel';
import { UsagePanel } from './usage-panel';
import { WebhookPanel } from './webhook-panel';

type Tab = 'sessions' | 'send' | 'chats' | 'events' | 'failures' | 'webhook' | 'usage' | 'keys' | 'sandbox';

/** The tabs that act on one session show the picker above them. */
const PICKER_TABS = new Set<Tab>(['send', 'chats', 'sandbox']);
const PICKED_KEY = 'jumbe.dashboard.session';
/** States in which a session changes by itself within seconds (a QR to scan, a reconnect). */
const LINKING = new Set(['starting', 'qr_ready', 'pairing_code_ready', 'connecting']);

export function CustomerView({ identity }: { identity: Identity; onRefused: () => void }) {
  const { credential, readOnly } = identity;
  const tabs: Array<[Tab, string]> = [
    ['sessions', 'Sessions'],
    ...(readOnly ? [] : ([['send', 'Send']] as Array<[Tab, string]>)),
    ['chats', 'Chats'],
    ['events', 'Live events'],
    ['failures', 'Failed sends'],
    ['webhook', 'Webhook'],
    ['usage', 'Usage'],
    ...(readOnly ? [] : ([['keys', 'API keys']] as Array<[Tab, string]>)),
    ...(identity.sandbox && !readOnly ? ([['sandbox', 'Sandbox']] as Array<[Tab, string]>) : []),
  ];
  const [tab, setTab] = useState<Tab>('sessions');
  const [linking, setLinking] = useState(false);
  // The list every tab shares: quick while the Sessions tab shows a session linking, slow elsewhere.
  const sessions = useLoader(
    async () => (await call<Session[]>(credential, 'GET', '/sessions')).data,
    [credential],
    tab === 'sessions' ? (linking ? 2_500 : 5_000) : 30_000,
  );
  useEffect(() => setLinking((sessions.value ?? []).some((s) => LINKING.has(s.state))), [sessions.value]);

  const [wanted, setWanted] = useState<string | null>(() => sessionStorage.getItem(PICKED_KEY));
  const picked = sessions.value ? pickSession(sessions.value, wanted) : wanted;
  const pick = (sessionId: string) => {
    sessionStorage.setItem(PICKED_KEY, sessionId);
    setWanted(sessionId);
  };

  const feed = useMemo(
    () => (credential.kind === 'dashboard' ? new EventFeed(credential) : null),
    [credential],
  );
  const sent = useMemo(() => new SentLog(), [credential]);
  const visible = usePageVisible();
  // The event stream is open while the tab is shown and one of its readers is.
  const streaming = visible && (tab === 'events' || tab === 'chats');
  useEffect(() => {
    if (!feed) return undefined;
    if (streaming) feed.resume();
    else feed.pause();
    return undefined;
  }, [feed, streaming]);
  useEffect(() => () => feed?.pause(), [feed]);

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
        {PICKER_TABS.has(tab) && (
          <SessionPicker sessions={sessions.value} selected={picked} onSelect={pick} />
        )}
        {tab === 'sessions' && (
          <SessionsPanel
            credential={credential}
            readOnly={readOnly}
            sessions={sessions}
            selected={picked}
            onSelect={pick}
          />
        )}
        {tab === 'send' && picked && <SendPanel credential={credential} sessionId={picked} sent={sent} />}
        {tab === 'chats' && feed && picked && (
          <ChatsPanel
            credential={credential}
            sessionId={picked}
            feed={feed}
            sent={sent}
            readOnly={readOnly}
            sandbox={identity.sandbox}
          />
        )}
        {tab === 'events' && feed && <MonitorPanel feed={feed} />}
        {tab === 'failures' && <FailuresPanel credential={credential} sessions={sessions.value} />}
        {tab === 'webhook' && <WebhookPanel credential={credential} readOnly={readOnly} />}
        {tab === 'usage' && <UsagePanel credential={credential} />}
        {tab === 'keys' && <KeysPanel credential={credential} />}
        {tab === 'sandbox' && picked && (
          <SandboxPanel credential={credential} sessionId={picked} onLinked={() => void sessions.reload()} />
        )}
      </main>
    </>
  );
}
