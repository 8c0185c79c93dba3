import type Redis from 'ioredis';
import type { InboundNetworkMessage } from '@jumbe/domain';
import { withRedisFailuresTranslated } from '@jumbe/coordination';
import { sessionRefKey, type SessionRef } from '../session-ref';
import { CallBatcher } from './call-batcher';
import { RedisSandboxGroupBook } from './redis-sandbox-group-book';
import type { SandboxGroupBook } from './sandbox-group-book';
import { inboundMessageFromJson, inboundMessageToJson } from './inbound-message-json';
import {
  SANDBOX_MEDIA_FILES_PER_SESSION,
  SANDBOX_OUTBOX_CAPACITY,
  type SandboxLoginOutcome,
  type SandboxMediaFile,
  type SandboxOutboxEntry,
  type SandboxPendingLogin,
  SANDBOX_RECEIVED_CAPACITY,
  SANDBOX_RECEIVED_TTL_MS,
  type SandboxReceivedEntry,
  type SandboxStore,
} from './sandbox-store';

export const SANDBOX_KEY_PREFIX = 'jumbe:sandbox:';

// Over our ~400 lines: the Lua scripts below are the store's atomic operations (a login, a scan, an
// unlink each touch several keys at once), and they are read beside the key layout they keep.

// Layout, under `<prefix>{sandbox}:` (S = sessionRefKey):
//   login:S         JSON pending login, with a TTL        link:S    linked number
//   online:S        '1' while some worker holds it        number:N  S of the session linked to N
//   outbox:S        list of JSON entries, newest first
//   inbound:S       list of pending message ids (order)   inbound-data:S  hash id → JSON message
//   received:S      list of JSON received entries (quotable), newest first, expiring a week after the newest
//   media:S:ID      JSON { mimetype, fileName, data (base64) } of a received file, with a TTL
//   media-ids:S     list of the session's media:S:ID keys, newest first (bounds them)
// Logging in touches the number registry and other sessions' keys, so every sandbox key shares
// one `{sandbox}` hash tag: one cluster slot, scripts stay legal. The sandbox is a test network,
// not a throughput path, so giving up sharding costs nothing.

// KEYS[1] login:S, KEYS[2] link:S, KEYS[3] online:S, KEYS[4] number:N; ARGV[1] S, ARGV[2] N,
// ARGV[3] key base (for the other session's keys, which are only known once number:N is read).
const COMPLETE_LOGIN_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 'not_ready' end
local holder = redis.call('GET', KEYS[4])
if holder and holder ~= ARGV[1] then
  if redis.call('EXISTS', ARGV[3] .. 'online:' .. holder) == 1 then return 'number_in_use' end
  redis.call('DEL', ARGV[3] .. 'link:' .. holder)
end
local previous = redis.call('GET', KEYS[2])
if previous and previous ~= ARGV[2] and redis.call('GET', ARGV[3] .. 'number:' .. previous) == ARGV[1] then
  redis.call('DEL', ARGV[3] .. 'number:' .. previous)
end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('SET', KEYS[4], ARGV[1])
redis.call('SET', KEYS[3], '1')
redis.call('DEL', KEYS[1])
return 'linked'
`;

// KEYS: link:S, online:S of each session → per session its number, or nil when not linked.
// Many sessions in one call: a worker taking shards over reconnects thousands at once.
const GO_ONLINE_SCRIPT = `
local numbers = {}
for i = 1, #KEYS, 2 do
  local number = redis.call('GET', KEYS[i])
  if number then redis.call('SET', KEYS[i + 1], '1') end
  numbers[#numbers + 1] = number
end
return numbers
`;

// KEYS[1] link:S, KEYS[2] online:S, KEYS[3] number:N; ARGV[1] S, ARGV[2] N → the linked number,
// or nil when another session holds N.
const RESUME_LINK_SCRIPT = `
local linked = redis.call('GET', KEYS[1])
if not linked then
  local holder = redis.call('GET', KEYS[3])
  if holder and holder ~= ARGV[1] then return false end
  redis.call('SET', KEYS[1], ARGV[2])
  redis.call('SET', KEYS[3], ARGV[1])
  linked = ARGV[2]
end
redis.call('SET', KEYS[2], '1')
return linked
`;

// KEYS: inbound:S, inbound-data:S of each session → per session its pending messages' JSON, in
// order (an id whose data is gone is skipped). Many sessions in one call, as above.
const PENDING_INBOUND_SCRIPT = `
local pending = {}
for i = 1, #KEYS, 2 do
  local found = {}
  for _, id in ipairs(redis.call('LRANGE', KEYS[i], 0, -1)) do
    local json = redis.call('HGET', KEYS[i + 1], id)
    if json then found[#found + 1] = json end
  end
  pending[#pending + 1] = found
end
return pending
`;

// KEYS[1] link:S, KEYS[2] online:S, KEYS[3] login:S, KEYS[4] inbound:S, KEYS[5] inbound-data:S;
// ARGV[1] S, ARGV[2] key base
const UNLINK_SCRIPT = `
local number = redis.call('GET', KEYS[1])
if number and redis.call('GET', ARGV[2] .. 'number:' .. number) == ARGV[1] then
  redis.call('DEL', ARGV[2] .. 'number:' .. number)
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
return 1
`;

// KEYS outbox:S of each entry (a session may repeat); ARGV[1] last index kept, ARGV[i + 1] the
// JSON entry for KEYS[i]. One script for every send of a batch: each send was an EVALSHA of its
// own, the worker's largest cost on the send path after its socket writes (BENCHMARKS.md).
const APPEND_OUTBOX_SCRIPT = `
for i, key in ipairs(KEYS) do
  redis.call('LPUSH', key, ARGV[i + 1])
end
local trimmed = {}
for _, key in ipairs(KEYS) do
  if not trimmed[key] then
    redis.call('LTRIM', key, 0, ARGV[1])
    trimmed[key] = true
  end
end
return #KEYS
`;

// KEYS[1] media:S:ID, KEYS[2] media-ids:S; ARGV[1] JSON file, ARGV[2] TTL ms, ARGV[3] files kept.
// The list holds full key names (KEYS carry the client's prefix), newest first; the oldest files
// beyond the cap are deleted, so a session's files are bounded however many it is sent.
const PUT_MEDIA_FILE_SCRIPT = `
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('LREM', KEYS[2], 0, KEYS[1])
redis.call('LPUSH', KEYS[2], KEYS[1])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
while redis.call('LLEN', KEYS[2]) > tonumber(ARGV[3]) do
  redis.call('DEL', redis.call('RPOP', KEYS[2]))
end
return 1
`;

// KEYS[1] received:S; ARGV[1] JSON entry, ARGV[2] last index kept, ARGV[3] time to live (ms).
const REMEMBER_RECEIVED_SCRIPT = `
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], 0, ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

// KEYS[1] inbound:S, KEYS[2] inbound-data:S, KEYS[3] received:S; ARGV[1] message id, ARGV[2] JSON
// message, ARGV[3] JSON received entry or '' (nothing to quote), ARGV[4] last index kept, ARGV[5]
// time to live (ms), as REMEMBER_RECEIVED_SCRIPT. Scripts, not MULTI, here and below: the store's
// client is auto-pipelined (createRedisClient), where a MULTI would overtake the commands still
// waiting for the turn's flush. Re-adding an id keeps one copy in the order list, as the memory
// store's Map does. One command for both: each contact message is one Redis round trip fewer.
const ADD_PENDING_INBOUND_SCRIPT = `
if ARGV[3] ~= '' then
  redis.call('LPUSH', KEYS[3], ARGV[3])
  redis.call('LTRIM', KEYS[3], 0, ARGV[4])
  redis.call('PEXPIRE', KEYS[3], ARGV[5])
end
redis.call('LREM', KEYS[1], 0, ARGV[1])
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 1
`;

// KEYS[1] inbound:S, KEYS[2] inbound-data:S; ARGV[1] message id.
const ACKNOWLEDGE_INBOUND_SCRIPT = `
redis.call('LREM', KEYS[1], 0, ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
`;

const RECEIVED_LAST_INDEX = String(SANDBOX_RECEIVED_CAPACITY - 1);
const RECEIVED_TTL_MS = String(SANDBOX_RECEIVED_TTL_MS);

// Prefixed names: other libs define their own scripts on the same shared client.
interface SandboxScripts {
  jumbeSandboxAddPendingInbound(
    order: string,
    data: string,
    received: string,
    id: string,
    json: string,
    receivedEntry: string,
    receivedLastIndex: string,
    receivedTtlMs: string,
  ): Promise<number>;
  jumbeSandboxAcknowledgeInbound(order: string, data: string, id: string): Promise<number>;
  jumbeSandboxRememberReceived(
    received: string,
    entry: string,
    lastIndex: string,
    ttlMs: string,
  ): Promise<number>;
  jumbeSandboxCompleteLogin(
    login: string,
    link: string,
    online: string,
    number: string,
    session: string,
    phoneNumber: string,
    base: string,
  ): Promise<SandboxLoginOutcome>;
  jumbeSandboxResumeLink(
    link: string,
    online: string,
    number: string,
    session: string,
    phoneNumber: string,
  ): Promise<string | null>;
  /** Key counts vary: ioredis takes the count as the first argument. */
  jumbeSandboxGoOnline(keyCount: number, ...keys: string[]): Promise<(string | null)[]>;
  jumbeSandboxPendingInbound(keyCount: number, ...keys: string[]): Promise<string[][]>;
  /** The outbox keys, the last index kept, then one entry per key. */
  jumbeSandboxAppendOutboxes(keyCount: number, ...keysThenArgs: string[]): Promise<number>;
  jumbeSandboxPutMediaFile(
    file: string,
    ids: string,
    json: string,
    ttlMs: string,
    kept: string,
  ): Promise<number>;
  jumbeSandboxUnlink(
    link: string,
    online: string,
    login: string,
    inbound: string,
    inboundData: string,
    session: string,
    base: string,
  ): Promise<number>;
}

/** SandboxStore in Redis: the simulated network of a distributed deployment, seen alike by every worker. */
export class RedisSandboxStore implements SandboxStore {
  private readonly scripts: SandboxScripts;
  private readonly base: string;
  /**
   * The base as the scripts must see it: keys they build themselves from ARGV do not get the
   * client's `keyPrefix` (a deployment namespace) the way KEYS do, so it is added here.
   */
  private readonly scriptBase: string;
  /** Reconnects and inbound checks of many sessions, batched (see CallBatcher). */
  private readonly onlineCalls: CallBatcher<SessionRef, string | null>;
  private readonly pendingCalls: CallBatcher<SessionRef, string[]>;
  /**
   * Sends of every session, batched: one script per batch instead of one per message. A send
   * made while a batch is on its way waits for it, so against a Redis that stops answering it
   * fails after two command timeouts (4 s), three at worst if that batch itself waited behind
   * another of the client's auto-pipelined writes; the gateway waits 15 s.
   */
  private readonly outboxCalls: CallBatcher<{ key: string; json: string }, void>;

  /** `keyPrefix` lets tests use a namespace of their own on a shared Redis. */
  constructor(
    private readonly redis: Redis,
    keyPrefix: string = SANDBOX_KEY_PREFIX,
  ) {
    this.base = `${keyPrefix}{sandbox}:`;
    this.scriptBase = `${redis.options.keyPrefix ?? ''}${this.base}`;
    // defineCommand runs EVALSHA and falls back to EVAL after a Redis restart (NOSCRIPT).
    redis.defineCommand('jumbeSandboxCompleteLogin', { numberOfKeys: 4, lua: COMPLETE_LOGIN_SCRIPT });
    redis.defineCommand('jumbeSandboxGoOnline', { lua: GO_ONLINE_SCRIPT });
    redis.defineCommand('jumbeSandboxResumeLink', { numberOfKeys: 3, lua: RESUME_LINK_SCRIPT });
    redis.defineCommand('jumbeSandboxPendingInbound', { lua: PENDING_INBOUND_SCRIPT });
    redis.defineCommand('jumbeSandboxUnlink', { numberOfKeys: 5, lua: UNLINK_SCRIPT });
    redis.defineCommand('jumbeSandboxAppendOutboxes', { lua: APPEND_OUTBOX_SCRIPT });
    redis.defineCommand('jumbeSandboxPutMediaFile', { numberOfKeys: 2, lua: PUT_MEDIA_FILE_SCRIPT });
    redis.defineCommand('jumbeSandboxRememberReceived', { numberOfKeys: 1, lua: REMEMBER_RECEIVED_SCRIPT });
    redis.defineCommand('jumbeSandboxAddPendingInbound', {
      numberOfKeys: 3,
      lua: ADD_PENDING_INBOUND_SCRIPT,
    });
    redis.defineCommand('jumbeSandboxAcknowledgeInbound', {
      numberOfKeys: 2,
      lua: ACKNOWLEDGE_INBOUND_SCRIPT,
    });
    this.scripts = redis as unknown as SandboxScripts;
    this.onlineCalls = new CallBatcher((refs) => {
      const keys = refs.flatMap((ref) => [this.key('link', ref), this.key('online', ref)]);
      return this.run('goOnline', () => this.scripts.jumbeSandboxGoOnline(keys.length, ...keys));
    });
    this.pendingCalls = new CallBatcher((refs) => {
      const keys = refs.flatMap((ref) => [this.key('inbound', ref), this.key('inbound-data', ref)]);
      return this.run('pendingInbound', () => this.scripts.jumbeSandboxPendingInbound(keys.length, ...keys));
    });
    this.outboxCalls = new CallBatcher(async (appends) => {
      await this.run('appendOutbox', () =>
        this.scripts.jumbeSandboxAppendOutboxes(
          appends.length,
          ...appends.map(({ key }) => key),
          String(SANDBOX_OUTBOX_CAPACITY - 1),
          ...appends.map(({ json }) => json),
        ),
      );
      return appends.map(() => undefined);
    });
  }

  async setPendingLogin(ref: SessionRef, login: SandboxPendingLogin, ttlMs: number): Promise<void> {
    const ttl = Math.max(1, Math.ceil(ttlMs));
    await this.run('setPendingLogin', () =>
      this.redis.set(this.key('login', ref), JSON.stringify(login), 'PX', ttl),
    );
  }

  async pendingLogin(ref: SessionRef): Promise<SandboxPendingLogin | null> {
    const json = await this.run('pendingLogin', () => this.redis.get(this.key('login', ref)));
    return json === null ? null : (JSON.parse(json) as SandboxPendingLogin);
  }

  async clearPendingLogin(ref: SessionRef): Promise<void> {
    await this.run('clearPendingLogin', () => this.redis.del(this.key('login', ref)));
  }

  async completeLogin(ref: SessionRef, phoneNumber: string): Promise<SandboxLoginOutcome> {
    return this.run('completeLogin', () =>
      this.scripts.jumbeSandboxCompleteLogin(
        this.key('login', ref),
        this.key('link', ref),
        this.key('online', ref),
        `${this.base}number:${phoneNumber}`,
        sessionRefKey(ref),
        phoneNumber,
        this.scriptBase,
      ),
    );
  }

  async goOnline(ref: SessionRef): Promise<string | null> {
    return this.onlineCalls.call(ref);
  }

  async resumeLink(ref: SessionRef, phoneNumber: string): Promise<string | null> {
    return this.run('resumeLink', () =>
      this.scripts.jumbeSandboxResumeLink(
        this.key('link', ref),
        this.key('online', ref),
        `${this.base}number:${phoneNumber}`,
        sessionRefKey(ref),
        phoneNumber,
      ),
    );
  }

  async goOffline(ref: SessionRef): Promise<void> {
    await this.run('goOffline', () => this.redis.del(this.key('online', ref)));
  }

  async linkedNumber(ref: SessionRef): Promise<string | null> {
    return this.run('linkedNumber', () => this.redis.get(this.key('link', ref)));
  }

  async unlink(ref: SessionRef): Promise<void> {
    await this.run('unlink', () =>
      this.scripts.jumbeSandboxUnlink(
        this.key('link', ref),
        this.key('online', ref),
        this.key('login', ref),
        this.key('inbound', ref),
        this.key('inbound-data', ref),
        sessionRefKey(ref),
        this.scriptBase,
      ),
    );
  }

  async appendOutbox(ref: SessionRef, entry: SandboxOutboxEntry): Promise<void> {
    // Serialised now: the entry as it was sent, whatever its sender does with it while it waits.
    await this.outboxCalls.call({ key: this.key('outbox', ref), json: JSON.stringify(entry) });
  }

  async outbox(ref: SessionRef, limit: number): Promise<SandboxOutboxEntry[]> {
    const count = Math.min(Math.floor(limit), SANDBOX_OUTBOX_CAPACITY);
    if (!(count > 0)) return [];
    const entries = await this.run('outbox', () => this.redis.lrange(this.key('outbox', ref), 0, count - 1));
    return entries.map((json) => JSON.parse(json) as SandboxOutboxEntry);
  }

  async addPendingInbound(
    ref: SessionRef,
    message: InboundNetworkMessage,
    quotable?: SandboxReceivedEntry,
  ): Promise<void> {
    await this.run('addPendingInbound', () =>
      this.scripts.jumbeSandboxAddPendingInbound(
        this.key('inbound', ref),
        this.key('inbound-data', ref),
        this.key('received', ref),
        message.id,
        inboundMessageToJson(message),
        quotable ? JSON.stringify(quotable) : '',
        RECEIVED_LAST_INDEX,
        RECEIVED_TTL_MS,
      ),
    );
  }

  async pendingInbound(ref: SessionRef): Promise<InboundNetworkMessage[]> {
    return (await this.pendingCalls.call(ref)).map(inboundMessageFromJson);
  }

  async acknowledgeInbound(ref: SessionRef, messageId: string): Promise<void> {
    await this.run('acknowledgeInbound', () =>
      this.scripts.jumbeSandboxAcknowledgeInbound(
        this.key('inbound', ref),
        this.key('inbound-data', ref),
        messageId,
      ),
    );
  }

  async rememberReceived(ref: SessionRef, entry: SandboxReceivedEntry): Promise<void> {
    await this.run('rememberReceived', () =>
      this.scripts.jumbeSandboxRememberReceived(
        this.key('received', ref),
        JSON.stringify(entry),
        RECEIVED_LAST_INDEX,
        RECEIVED_TTL_MS,
      ),
    );
  }

  async received(ref: SessionRef): Promise<SandboxReceivedEntry[]> {
    const since = Date.now() - SANDBOX_RECEIVED_TTL_MS;
    const entries = await this.run('received', () => this.redis.lrange(this.key('received', ref), 0, -1));
    return entries
      .map((json) => JSON.parse(json) as SandboxReceivedEntry)
      .filter((entry) => Date.parse(entry.createdAt) > since);
  }

  async putMediaFile(
    ref: SessionRef,
    messageId: string,
    file: SandboxMediaFile,
    ttlMs: number,
  ): Promise<void> {
    const json = JSON.stringify({ ...file, data: file.data.toString('base64') });
    await this.run('putMediaFile', () =>
      this.scripts.jumbeSandboxPutMediaFile(
        this.mediaKey(ref, messageId),
        this.key('media-ids', ref),
        json,
        String(Math.max(1, Math.ceil(ttlMs))),
        String(SANDBOX_MEDIA_FILES_PER_SESSION),
      ),
    );
  }

  async mediaFile(ref: SessionRef, messageId: string): Promise<SandboxMediaFile | null> {
    const json = await this.run('mediaFile', () => this.redis.get(this.mediaKey(ref, messageId)));
    if (json === null) return null;
    const stored = JSON.parse(json) as { mimetype: string; fileName: string | null; data: string };
    return { mimetype: stored.mimetype, fileName: stored.fileName, data: Buffer.from(stored.data, 'base64') };
  }

  groupBook(): SandboxGroupBook {
    return new RedisSandboxGroupBook(this.redis, this.base);
  }

  private mediaKey(ref: SessionRef, messageId: string): string {
    return `${this.base}media:${sessionRefKey(ref)}:${messageId}`;
  }

  private key(
    kind: 'login' | 'link' | 'online' | 'outbox' | 'inbound' | 'inbound-data' | 'media-ids' | 'received',
    ref: SessionRef,
  ): string {
    return `${this.base}${kind}:${sessionRefKey(ref)}`;
  }

  private run<T>(operation: string, command: () => Promise<T>): Promise<T> {
    return withRedisFailuresTranslated(`sandbox ${operation}`, command);
  }
}
