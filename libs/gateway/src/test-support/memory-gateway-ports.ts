import { loadConfig } from '@jumbe/config';
import { MemoryInvalidationBus, MemoryRateLimiter, MemoryUsageCounterStore } from '@jumbe/coordination';
import type { DeliveryRecord } from '@jumbe/contracts';
import {
  type Account,
  type ActiveKey,
  type DailyHits,
  generateApiKey,
  hashApiKey,
  type KeyScope,
  type NewSendFailure,
  type Plan,
  type SendFailure,
  type SessionRecord,
  type StoredWebhook,
  type UsageCounters,
  SessionProxyVault,
  WebhookVault,
  ZERO_USAGE,
} from '@jumbe/domain';
import { DataDirMediaStore, InProcessMessageBus, MemoryLiveEventLog } from '@jumbe/messaging';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OperatorService } from '@jumbe/operator';
import { Readable } from 'node:stream';
import pino from 'pino';
import type { GatewayPorts } from '../ports/gateway-ports';
import type { StoredSessionProxy } from '../ports/session-proxy-store';
import { MemoryDashboardSessionStore } from './memory-dashboard-session-store';
import { MemoryOperatorSessionStore } from './memory-operator-session-store';
import { MemoryIdempotencyStore } from './memory-idempotency-store';

/**
 * The gateway's ports on plain memory, for in-process tests of its HTTP layer (guards, the
 * exception filter, controllers' error paths) without PostgreSQL or other processes. Each store
 * keeps only what those tests read back (the idempotency store keeps the PostgreSQL one's rules,
 * so the gateway's request hashing runs here); the real ones are tested against PostgreSQL.
 */
export class MemoryGatewayWorld {
  readonly accounts = new Map<string, { account: Account; plan: Plan }>();
  readonly keys = new Map<string, ActiveKey>();
  readonly failures: SendFailure[] = [];
  readonly sessions: SessionRecord[] = [];
  readonly webhooks = new Map<string, StoredWebhook>();
  /** Sessions' proxies by `accountId/sessionId`. */
  readonly sessionProxies = new Map<string, StoredSessionProxy>();
  readonly bus = new InProcessMessageBus();
  /** Idempotency-Key records with the PostgreSQL store's rules, shared by every ports() call. */
  readonly idempotency = new MemoryIdempotencyStore();
  /** Dashboard sign-ins; a session of a key removed from `keys` no longer works. */
  readonly dashboardSessions = new MemoryDashboardSessionStore(this.keys);
  /** The operator's dashboard sign-ins, shared by every gateway built from this world. */
  readonly operatorSessions = new MemoryOperatorSessionStore();
  /** The media store's files by object name, as a worker would have put them. */
  readonly mediaFiles = new Map<string, { mimetype: string; fileName: string | null; data: Buffer }>();
  /** Uploaded files (multipart media sends): a real folder store, as in the all-in-one. */
  readonly uploadDir = mkdtempSync(join(tmpdir(), 'jumbe-uploads-'));
  readonly uploads = new DataDirMediaStore(this.uploadDir, 60 * 60 * 1000);
  private nextId = 1;

  /** An account on a plan, with one key of the given scope; returns the key. */
  addCustomer(options: { monthlyApiHits?: number; suspended?: boolean; scope?: KeyScope } = {}): {
    accountId: string;
    key: string;
  } {
    const accountId = `00000000-0000-4000-8000-${String(this.nextId++).padStart(12, '0')}`;
    const plan: Plan = {
      id: `plan-${accountId}`,
      name: 'test',
      monthlyApiHits: options.monthlyApiHits ?? 1_000,
      maxSessions: 5,
      createdAt: new Date(),
    };
    const account: Account = {
      id: accountId,
      name: `customer ${accountId}`,
      planId: plan.id,
      suspended: options.suspended ?? false,
      createdAt: new Date(),
    };
    this.accounts.set(accountId, { account, plan });
    const key = generateApiKey();
    this.keys.set(hashApiKey(key), {
      id: `key-${accountId}`,
      accountId,
      scope: options.scope ?? 'full',
      revokesAt: null,
    });
    return { accountId, key };
  }

  ports(overrides: Partial<GatewayPorts> = {}): GatewayPorts {
    const config = {
      ...loadConfig({ JUMBE_NETWORK: 'sandbox', JUMBE_ADMIN_TOKEN: 'admin-token-for-tests-0123456789' }),
      // Short, so "no worker answers" is a quick 503 here, not the production hand-over wait.
      commandTimeoutMs: 300,
    };
    const usage = new Map<string, UsageCounters>();
    return {
      config,
      logger: pino({ level: 'silent' }),
      health: { version: 'test', startedAt: new Date(), probes: { database: ok, bus: ok, coordination: ok } },
      apiKeys: {
        findActiveByHash: async (hash) => this.keys.get(hash) ?? null,
        markUsed: async () => undefined,
      },
      accounts: { findWithPlan: async (id) => this.accounts.get(id) ?? null },
      usageLedger: {
        load: async (accountId, period) => usage.get(`${accountId}/${period}`) ?? ZERO_USAGE,
        saveManyAtLeast: async (rows) => {
          for (const row of rows) usage.set(`${row.accountId}/${row.periodStart}`, row.counters);
        },
      },
      dailyUsage: {
        addHits: async (_rows: readonly DailyHits[]) => undefined,
        hitsBetween: async () => new Map(),
      },
      sessions: {
        list: async (accountId) => this.sessions.filter((s) => s.accountId === accountId),
        listPage: async (accountId, after, limit) =>
          this.sessions
            .filter((s) => s.accountId === accountId && (after === null || s.sessionId > after))
            .sort((a, b) => (a.sessionId < b.sessionId ? -1 : 1))
            .slice(0, limit),
        countActive: async (accountId) =>
          this.sessions.filter((s) => s.accountId === accountId && s.state !== 'disconnected').length,
      },
      sendFailures: {
        record: async (failure: NewSendFailure) =>
          void this.failures.unshift({
            ...failure,
            id: `f${this.failures.length + 1}`,
            createdAt: new Date(),
          }),
        list: async (accountId, { limit }) =>
          this.failures.filter((f) => f.accountId === accountId).slice(0, limit),
      },
      idempotency: this.idempotency,
      webhooks: {
        find: async (accountId) => this.webhooks.get(accountId) ?? null,
        save: async (webhook) =>
          void this.webhooks.set(webhook.accountId, { ...webhook, updatedAt: new Date() }),
        delete: async (accountId) => void this.webhooks.delete(accountId),
      },
      deliveries: { latest: async (): Promise<DeliveryRecord[]> => [] },
      webhookSecrets: new WebhookVault('0'.repeat(64)),
      sessionProxies: {
        find: async (accountId, sessionId) => this.sessionProxies.get(`${accountId}/${sessionId}`) ?? null,
        save: async (accountId, sessionId, proxy) => {
          const stored = { ...proxy, updatedAt: new Date() };
          this.sessionProxies.set(`${accountId}/${sessionId}`, stored);
          return stored;
        },
        delete: async (accountId, sessionId) => this.sessionProxies.delete(`${accountId}/${sessionId}`),
      },
      sessionProxyVault: new SessionProxyVault('0'.repeat(64)),
      // The admin routes' operations need PostgreSQL: the end-to-end suites cover them.
      operator: {} as OperatorService,
      uploads: this.uploads,
      mediaFiles: {
        open: async (name) => {
          const file = this.mediaFiles.get(name);
          if (!file) return null;
          const info = {
            mimetype: file.mimetype,
            fileName: file.fileName,
            size: file.data.length,
            storedAt: new Date(),
          };
          return { info, data: Readable.from([file.data]) };
        },
      },
      bus: this.bus,
      usageCounters: new MemoryUsageCounterStore(),
      invalidations: new MemoryInvalidationBus(),
      rateLimiter: new MemoryRateLimiter(),
      liveEvents: new MemoryLiveEventLog(),
      dashboardSessions: this.dashboardSessions,
      operatorSessions: this.operatorSessions,
      ...overrides,
    };
  }
}

const ok = async () => undefined;
