import type { ShardLease } from '@jumbe/coordination';
import { ApiError, type CommandResult, type SessionCommand } from '@jumbe/contracts';
import {
  isActiveState,
  isResumableEnd,
  neverStartedSession,
  type SessionRecord,
  type SessionView,
  sessionView,
  shardOf,
} from '@jumbe/domain';
import {
  type NetworkDriver,
  NetworkSendError,
  type NetworkSendErrorCode,
  NotReadyError,
  NumberInUseError,
  SandboxNetworkDriver,
  type SandboxControl,
  type SessionRef,
} from '@jumbe/network';
import { CallAnswerer } from './call-answerer';
import { ConnectedSessionCommands } from './connected-session-commands';
import { SendReplays } from './send-replays';
import { LiveSession, type LiveSessionDeps } from './live-session';
import type { CallSettingsStore } from './ports/call-settings-store';
import type { MediaFetcher } from './media-fetcher';
import { SessionLocks } from './session-locks';
import { type PendingRestore, RestoreQueue } from './restore-queue';
import { ShardMovingError } from './shard-moving-error';

type Command<T extends SessionCommand['type']> = Extract<SessionCommand, { type: T }>;

export type SessionHostDeps = LiveSessionDeps & {
  /** Sessions' calls settings; without it calls are neither answered nor reported. */
  callSettings?: CallSettingsStore;
};

export interface SessionHostOptions {
  /** Sessions restored at once when shards are adopted (JUMBE_RESTORE_CONCURRENCY). */
  restoreConcurrency: number;
  /** How long a command for a session still being restored waits before `session_restoring`. */
  restoreWaitMs: number;
  /**
   * How long a restored session may be `connecting` before that is recorded and announced: one
   * connected again by then was connected before and after, and costs no write and no event.
   */
  quietReconnectMs: number;
  /**
   * First wait before a failed restore is tried again (doubling, at most a minute): a restore that
   * failed (the database's pool exhausted, the network unreachable) must not end a linked session.
   */
  restoreRetryMs: number;
}

export const DEFAULT_SESSION_HOST_OPTIONS: SessionHostOptions = {
  restoreConcurrency: 32,
  restoreWaitMs: 5_000,
  quietReconnectMs: 2_000,
  restoreRetryMs: 2_000,
};

const RESTORE_RETRY_MAX_MS = 60_000;

/**
 * A 440 (connection replaced) while this worker holds the session's shard comes from a stale
 * worker that still believed it owned it: the session re-checks and reconnects rather than end
 * `connection_replaced` for good, after this pause (the stale twin meanwhile learns it is fenced),
 * at most REPLACED_REOPENS times in REPLACED_WINDOW_MS (never an endless fight for the socket).
 */
const REPLACED_REOPEN_DELAY_MS = 1_000;
const REPLACED_REOPENS = 3;
const REPLACED_WINDOW_MS = 10 * 60 * 1000;

const refKey = (ref: SessionRef) => `${ref.accountId}/${ref.sessionId}`;

/** A session being restored: its place in the restore queue (done once it is back for commands). */
interface Restoring {
  pending: PendingRestore;
}

/**
 * The sessions of the shards this worker owns: restores them when a shard is adopted, closes them
 * when it is dropped, and carries out the gateway's commands on them.
 *
 * Longer than our ~400 lines on purpose, for now: the live sessions, the shard tokens they run
 * under, the per-session locks and the restores in flight are one state whose invariants (no
 * session open without its shard's token, no command overlapping a restore or a hand-over of the
 * same session) every method here reads and changes; split across classes they would each need
 * all of it. What only runs on a connected session (chat actions, profiles, calls settings, groups,
 * media) is ConnectedSessionCommands'.
 */
export class SessionHost {
  private readonly live = new Map<string, LiveSession>();
  private readonly shardTokens = new Map<number, number>();
  /** Per shard held, its lease as the keeper sees it (absent: held until dropped). */
  private readonly shardLeases = new Map<number, ShardLease>();
  /** Per session, when a 440 was taken for a stale twin's and the session reopened (see REPLACED_REOPENS). */
  private readonly replacedReopens = new Map<string, number[]>();
  private readonly locks = new SessionLocks();
  /** Sends made under an Idempotency-Key's send id, for a retry whose first answer was lost. */
  private readonly replays = new SendReplays();
  /** Shards adopted whose sessions are still being listed: their commands wait for the list. */
  private readonly listing = new Map<number, Promise<unknown>>();
  /** Sessions of adopted shards not restored yet: their commands wait for them (bounded). */
  private readonly restoring = new Map<string, Restoring>();
  private readonly restores: RestoreQueue;
  /** What each live session runs on: the host's deps, with calls answered (CallAnswerer). */
  private readonly liveDeps: LiveSessionDeps;
  /** Chat actions, profiles, calls settings, groups and media on a connected session. */
  private readonly connected: ConnectedSessionCommands;

  constructor(
    private readonly driver: NetworkDriver,
    private readonly deps: SessionHostDeps,
    private readonly options: SessionHostOptions = DEFAULT_SESSION_HOST_OPTIONS,
    /** Serves `media.fetch`; a host without one answers it 503. */
    media: MediaFetcher | null = null,
  ) {
    this.restores = new RestoreQueue(options.restoreConcurrency);
    this.connected = new ConnectedSessionCommands({
      liveOf: (ref) => this.live.get(refKey(ref)),
      callSettings: deps.callSettings,
      media,
    });
    this.liveDeps = deps;
    const settings = deps.callSettings;
    if (settings) {
      const answerer = new CallAnswerer({
        settings,
        statuses: deps.statuses,
        logger: deps.logger,
        reject: (ref, call) => this.connected.onConnection(ref, (network) => network.rejectCall(call)),
        execute: (command) => this.execute(command),
      });
      this.liveDeps = {
        ...deps,
        onCall: (ref, call) =>
          void answerer
            .answer(ref, call)
            .catch((error: unknown) => deps.logger.error({ err: error, ...ref }, 'a call was not answered')),
      };
    }
  }

  ownsShard(shard: number): boolean {
    return this.shardTokens.has(shard);
  }

  /** How many live sessions this worker holds, by state (for the metrics). */
  countByState(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const session of this.live.values()) counts.set(session.state, (counts.get(session.state) ?? 0) + 1);
    return counts;
  }

  /** True while this worker serves `shard` under the lease granted with `token`. */
  holdsShard(shard: number, token: number): boolean {
    return this.shardTokens.get(shard) === token;
  }

  /**
   * Takes a shard over: its active sessions are taken in PostgreSQL (one statement, which fences
   * the previous owner before anything is read) and reconnect here from their stored state,
   * `restoreConcurrency` at a time over all shards. The shard serves commands from the moment this
   * is called: a command for a session not yet restored waits for it (see `untilRestored`).
   * Resolves when every session of the shard has been restored or has failed to.
   */
  async adoptShard(shard: number, token: number, lease?: ShardLease): Promise<void> {
    this.shardTokens.set(shard, token);
    if (lease) this.shardLeases.set(shard, lease);
    else this.shardLeases.delete(shard);
    const listed = this.deps.sessions.takeOverShard(shard, token);
    this.listing.set(shard, listed);
    let records: SessionRecord[];
    try {
      records = await listed;
    } finally {
      if (this.listing.get(shard) === listed) this.listing.delete(shard);
    }
    if (!this.holdsShard(shard, token)) return;
    const pending = records
      .filter((record) => !this.live.has(refKey(record)))
      .map((record) => {
        const key = refKey(record);
        const restoring: Restoring = {
          pending: this.restores.add(() => this.restoreInTurn(record, token)),
        };
        this.restoring.set(key, restoring);
        void restoring.pending.done.then(() => {
          if (this.restoring.get(key) === restoring) this.restoring.delete(key);
        });
        return restoring.pending.done;
      });
    await Promise.all(pending);
  }

  /**
   * The shard is no longer this worker's (its lease lost, or given up): at once, and synchronously,
   * its token goes (no reconnect, restore or fenced write under it starts any more) and its
   * sessions start closing, which stops every reconnect and backoff timer they have. `dropShard`
   * then waits for them to close.
   */
  forsakeShard(shard: number): void {
    this.shardTokens.delete(shard);
    this.shardLeases.delete(shard);
    this.listing.delete(shard);
    for (const session of this.live.values()) {
      if (session.shard !== shard) continue;
      session
        .close()
        .catch((error: unknown) =>
          this.deps.logger.warn({ err: error, ...session.ref }, 'closing a session of a lost shard failed'),
        );
    }
  }

  /** Gives a shard up: its sessions close without a state change, for the next owner to restore. */
  async dropShard(shard: number): Promise<void> {
    this.shardTokens.delete(shard);
    this.shardLeases.delete(shard);
    this.listing.delete(shard);
    const leaving = [...this.live.values()].filter((session) => session.shard === shard);
    await Promise.all(
      leaving.map((session) => this.locks.exclusive(refKey(session.ref), () => session.close())),
    );
  }

  /**
   * Carries out one command. A command for a session still being restored waits for it first
   * (outside the lock: the restore itself holds the session); then commands of one session never
   * overlap a lifecycle change of it (see SessionLocks); reads take no lock. `replyBy`: when the
   * caller stops waiting (ms since the epoch); a send lets nothing leave after it.
   */
  async execute(
    command: SessionCommand,
    { replyBy }: { replyBy?: number | undefined } = {},
  ): Promise<CommandResult<SessionCommand['type']>> {
    // The shard may have moved on while the command waited: the next owner must run it.
    if ((await this.untilRestored(command)) && !this.ownsShard(shardOf(command.accountId, command.sessionId)))
      throw notOwner();
    const key = refKey(command);
    switch (LOCKING[command.type]) {
      case 'exclusive':
        return this.locks.exclusive(key, () => this.run(command, replyBy));
      case 'shared':
        return this.locks.shared(key, () => this.run(command, replyBy));
      case 'none':
        return this.run(command, replyBy);
    }
  }

  private async run(
    command: SessionCommand,
    replyBy: number | undefined,
  ): Promise<CommandResult<SessionCommand['type']>> {
    switch (command.type) {
      case 'session.start':
        return (await this.start(command, command.maxSessions)).view();
      case 'session.status':
        return this.status(command);
      case 'session.qr':
        return this.qr(command);
      case 'session.pairing_code':
        return this.pairingCode(command);
      case 'session.logout':
        return this.logout(command);
      case 'session.delete':
        return this.remove(command);
      case 'session.reconnect':
        return this.reconnect(command);
      case 'message.send':
        return this.send(command, replyBy);
      case 'sandbox.call':
        return this.sandbox()
          .call(command, { from: command.from, video: command.video })
          .catch(mapNetworkError);
      case 'sandbox.scan':
        return this.sandboxScan(command);
      case 'sandbox.inbound':
        return this.sandbox().inbound(command, command.contact).catch(mapNetworkError);
      case 'sandbox.outbox':
        return this.sandbox().outbox(command, command.limit);
      case 'sandbox.disconnect':
        return this.sandboxDisconnect(command);
      case 'sandbox.status':
        return this.sandboxStatus(command);
      default:
        return this.connected.run(command);
    }
  }

  private async start(ref: SessionRef, maxSessions: number): Promise<LiveSession> {
    const existing = this.live.get(refKey(ref));
    if (existing && isActiveState(existing.state)) return existing;
    const shard = shardOf(ref.accountId, ref.sessionId);
    const claim = await this.deps.sessions.claimStart(ref, shard, this.tokenOf(shard), maxSessions);
    if (claim.outcome === 'limit_reached') {
      throw new ApiError(
        'instance_limit_reached',
        `Your plan allows ${maxSessions} active session${maxSessions === 1 ? '' : 's'} and ${claim.active} are active. Upgrade the plan before adding another number, or log out a session you no longer need.`,
      );
    }
    if (claim.outcome === 'fenced') throw notOwner();
    return this.connect(claim.session, false);
  }

  private async status(ref: SessionRef): Promise<SessionView> {
    const live = this.live.get(refKey(ref));
    if (live) return live.view();
    const record = await this.deps.sessions.find(ref);
    return record ? viewOf(record) : neverStartedSession(ref.sessionId);
  }

  private async qr(ref: SessionRef) {
    const live = this.live.get(refKey(ref));
    if (live) return live.qrView();
    const record = await this.deps.sessions.find(ref);
    return { sessionId: ref.sessionId, state: record?.state ?? 'disconnected', qr: '' };
  }

  private async pairingCode(command: Command<'session.pairing_code'>) {
    const current = this.live.get(refKey(command));
    if (current && (current.state === 'connected' || current.state === 'connecting')) {
      throw new ApiError(
        'conflict',
        `Session "${command.sessionId}" is already linked. Log it out before linking another number.`,
      );
    }
    const live = await this.start(command, command.maxSessions);
    const pairingCode = await live.requestPairingCode(command.phoneNumber).catch(mapNetworkError);
    await live.settled();
    return { sessionId: command.sessionId, state: 'pairing_code_ready' as const, pairingCode };
  }

  private async logout(ref: SessionRef): Promise<SessionView> {
    await this.live.get(refKey(ref))?.logout();
    const record = await this.deps.sessions.find(ref);
    if (!record) return neverStartedSession(ref.sessionId);
    const token = this.tokenOf(record.shard);
    if (record.state !== 'disconnected' || record.reason === null) {
      const result = await this.deps.sessions.saveState(ref, token, {
        state: 'disconnected',
        phoneNumber: null,
        reason: 'logged_out',
      });
      if (result === 'fenced') throw notOwner();
    }
    // Fenced too: a worker that lost the shard must never delete the new owner's credentials.
    if ((await this.deps.credentials.clear(ref, token)) === 'fenced') throw notOwner();
    const after = await this.deps.sessions.find(ref);
    return after ? viewOf(after) : neverStartedSession(ref.sessionId);
  }

  private async remove(ref: SessionRef): Promise<SessionView> {
    const record = await this.deps.sessions.find(ref);
    if (!record) throw new ApiError('not_found', `No session "${ref.sessionId}" on this account.`);
    const loggedOut = await this.logout(ref);
    await this.deps.sessions.delete(ref, this.tokenOf(record.shard));
    return loggedOut;
  }

  /**
   * Reopens a linked session that is open here (its proxy changed): the planned close keeps what
   * is stored, and the new connection reads the session's settings afresh. A session that is not
   * linked and open here is left as it is (its next connection reads them anyway). A new
   * connection that cannot be opened ends the session `network_error`, like a start.
   */
  private async reconnect(ref: SessionRef): Promise<SessionView> {
    const key = refKey(ref);
    const live = this.live.get(key);
    if (!live || (live.state !== 'connected' && live.state !== 'connecting')) return this.status(ref);
    await live.close();
    if (this.live.get(key) === live) this.live.delete(key);
    const record = await this.deps.sessions.find(ref);
    if (!record || record.phoneNumber === null) return this.status(ref);
    return (await this.connect(record, true)).view();
  }

  private async send(command: Command<'message.send'>, replyBy: number | undefined) {
    const live = this.live.get(refKey(command));
    // The gateway logs every failed send, these included (CONTRACT §5): one place, one record.
    const failed = (code: NetworkSendErrorCode, message: string) => new ApiError(code, message);
    const sendId = 'sendId' in command ? command.sendId : undefined; // v1 has none
    const made = await this.replays
      .made(refKey(command), sendId)
      // The first try failed (nothing left, or WhatsApp said no): this one is tried anew below.
      ?.catch(() => undefined);
    // Answered in time, this retry tells the caller the id: a first try answered too late (held
    // back from going out again) now goes out like any other. One given up is sent anew.
    if (made && (replyBy === undefined || Date.now() < replyBy) && live?.sendLearned(made.id) === false)
      this.replays.forget(refKey(command), sendId);
    else if (made) return { key: made };
    if (!live || live.state !== 'connected') {
      const state = live?.state ?? (await this.deps.sessions.find(command))?.state ?? 'disconnected';
      // Stored as linked but not open here although this worker owns the shard: its restore has not
      // happened yet (or failed, e.g. while PostgreSQL restarted). It is coming back: retry shortly.
      const owned = this.ownsShard(shardOf(command.accountId, command.sessionId));
      if (!live && owned && (state === 'connected' || state === 'connecting')) throw restoringError(command);
      throw failed(
        'session_not_connected',
        `Session "${command.sessionId}" is not connected (state: ${state}); the message was not sent and is not queued. Start the session and link a phone first.`,
      );
    }
    try {
      // Under the caller's deadline: a send still waiting when it passes (the key store down, say)
      // is answered "not sent" and never leaves, rather than leave after the gateway's 504.
      const send = () => live.send(command.message, { replyBy });
      return { key: await this.replays.once(refKey(command), sendId, send) };
    } catch (error) {
      if (error instanceof NetworkSendError) throw failed(error.code, error.message);
      throw failed('network_error', `The network did not accept the message: ${(error as Error).message}`);
    }
  }

  private async sandboxScan(command: Command<'sandbox.scan'>): Promise<SessionView> {
    await this.sandbox().scan(command, command.phoneNumber).catch(mapNetworkError);
    const live = this.live.get(refKey(command));
    await live?.settled();
    return this.status(command);
  }

  private async sandboxDisconnect(command: Command<'sandbox.disconnect'>): Promise<SessionView> {
    const live = this.live.get(refKey(command));
    if (!live)
      throw new ApiError(
        'session_not_connected',
        `Session "${command.sessionId}" has no open connection to drop.`,
      );
    await this.sandbox().disconnect(command, command.reason).catch(mapNetworkError);
    await live.settled();
    return this.status(command);
  }

  private async sandboxStatus(command: Command<'sandbox.status'>) {
    const marked = await this.sandbox()
      .markStatus(command, command.messageId, command.status)
      .catch(mapNetworkError);
    if (marked === null)
      throw new ApiError('not_found', `Session "${command.sessionId}" sent no message ${command.messageId}.`);
    return marked;
  }

  /**
   * Waits, at most `restoreWaitMs`, until the session is restored if its shard was just adopted;
   * its restore jumps the queue. A session already restored (or not active) never waits.
   * True if the command waited.
   */
  private async untilRestored(ref: SessionRef): Promise<boolean> {
    const deadline = Date.now() + this.options.restoreWaitMs;
    const listed = this.listing.get(shardOf(ref.accountId, ref.sessionId));
    if (listed && !(await settlesWithin(listed, deadline))) throw restoringError(ref);
    const restoring = this.restoring.get(refKey(ref));
    if (!restoring) return listed !== undefined;
    this.restores.hurry(restoring.pending);
    if (!(await settlesWithin(restoring.pending.done, deadline))) throw restoringError(ref);
    return true;
  }

  /**
   * One queued restore: skipped if the shard has moved on meanwhile, undone if it moved during it.
   * Restored means reconnected (or given up after `restoreWaitMs`), not merely reopened: a send
   * let in must find it connected, and the turn bounds how many reconnect at once.
   */
  private async restoreInTurn(record: SessionRecord, token: number, attempt = 1): Promise<void> {
    if (!this.holdsShard(record.shard, token)) return;
    const key = refKey(record);
    try {
      await this.locks.exclusive(key, () => this.restore(record, token));
      await this.live.get(key)?.untilNotConnecting(this.options.restoreWaitMs);
    } catch (error) {
      const retryInMs = Math.min(this.options.restoreRetryMs * 2 ** (attempt - 1), RESTORE_RETRY_MAX_MS);
      this.deps.logger.warn(
        { err: error, accountId: record.accountId, sessionId: record.sessionId, attempt, retryInMs },
        'restore failed; trying again',
      );
      this.restoreLater(record, token, attempt + 1, retryInMs);
      return;
    }
    const session = this.live.get(key);
    if (!this.holdsShard(record.shard, token) && session) {
      await this.locks.exclusive(key, () => session.close());
    }
  }

  /**
   * Queues another restore of a session whose restore failed, while this worker still holds its
   * shard. The session keeps its stored state meanwhile (a send gets `session_restoring`), and the
   * retry reads it afresh: a logout or delete in between is not undone.
   */
  private restoreLater(record: SessionRecord, token: number, attempt: number, delayMs: number): void {
    const key = refKey(record);
    const timer = setTimeout(() => {
      if (!this.holdsShard(record.shard, token) || this.live.has(key)) return;
      const restoring: Restoring = {
        pending: this.restores.add(async () => {
          const current = await this.deps.sessions.find(record);
          if (current === null || (current.state === 'disconnected' && !isResumableEnd(current))) return;
          await this.restoreInTurn(current, token, attempt);
        }),
      };
      this.restoring.set(key, restoring);
      void restoring.pending.done.then(() => {
        if (this.restoring.get(key) === restoring) this.restoring.delete(key);
      });
    }, delayMs);
    timer.unref();
  }

  /** `record` was taken over under `token` (takeOverShard): the previous owner is fenced already. */
  private async restore(record: SessionRecord, token: number): Promise<void> {
    if (this.live.has(refKey(record))) return;
    if (this.shardTokens.get(record.shard) !== token) return;
    // A session a transient WhatsApp problem ended resumes from its credentials, as a linked one.
    const linked =
      record.phoneNumber !== null &&
      (record.state === 'connected' || record.state === 'connecting' || isResumableEnd(record));
    await this.connect(record, linked, { restoring: true });
  }

  private async connect(
    record: SessionRecord,
    linked: boolean,
    { restoring = false } = {},
  ): Promise<LiveSession> {
    const token = this.tokenOf(record.shard);
    const facts = { state: record.state, phoneNumber: record.phoneNumber, reason: record.reason };
    const session = new LiveSession(
      // The ref alone: the record's state, token and dates go stale at once (and into every log line).
      { accountId: record.accountId, sessionId: record.sessionId },
      record.shard,
      token,
      facts,
      record.updatedAt,
      this.liveDeps,
      (ended) => {
        if (this.live.get(refKey(ended.ref)) === ended) this.live.delete(refKey(ended.ref));
      },
      (replaced) => this.reopenIfStillOwner(replaced, token),
    );
    this.live.set(refKey(record), session);
    try {
      await session.open(this.driver, {
        linked,
        stillOwned: () => this.stillOwns(record.shard, token),
        ...(linked ? { quietReconnectMs: this.options.quietReconnectMs } : {}),
      });
    } catch (error) {
      this.live.delete(refKey(record));
      // A restore that failed is tried again (restoreInTurn); the session keeps its stored state.
      if (restoring) throw error;
      const message = `Could not reach the messaging network: ${(error as Error).message}`;
      // Not reached is not unlinked: a linked session keeps its number, as after any dropped link.
      await this.deps.sessions.saveState(record, token, {
        state: 'disconnected',
        phoneNumber: linked ? record.phoneNumber : null,
        reason: 'network_error',
      });
      throw new ApiError('network_error', message);
    }
    // Let the driver's first event (a QR, or "connecting") land before answering.
    await new Promise((resolve) => setImmediate(resolve));
    await session.settled();
    return session;
  }

  /**
   * Asked before every reconnect: the token is still this shard's here and its lease is valid by
   * the clock. After an event-loop stall the due backoff timers run before the keeper's guard
   * has noticed anything; the lease's renewal time tells the truth already.
   */
  private stillOwns(shard: number, token: number): boolean {
    return this.shardTokens.get(shard) === token && (this.shardLeases.get(shard)?.valid() ?? true);
  }

  /**
   * A session got 440 (another socket logged in with its credentials) while this worker still
   * owns its shard: the other socket can only be a stale worker's that has not noticed the shard
   * moved here. True if the session is reopened here (after a pause, once its ownership is
   * confirmed in PostgreSQL) instead of ending `connection_replaced`; false after
   * REPLACED_REOPENS such reopens in REPLACED_WINDOW_MS, or when the shard is not ours.
   */
  private reopenIfStillOwner(session: LiveSession, token: number): boolean {
    if (!this.stillOwns(session.shard, token)) return false;
    const key = refKey(session.ref);
    const now = Date.now();
    const recent = (this.replacedReopens.get(key) ?? []).filter((at) => at > now - REPLACED_WINDOW_MS);
    if (recent.length >= REPLACED_REOPENS) return false;
    this.replacedReopens.set(key, [...recent, now]);
    this.deps.logger.warn(
      { ...session.ref },
      'connection replaced while this worker owns the session; reopening',
    );
    const timer = setTimeout(() => {
      void this.locks
        .exclusive(key, () => this.reopen(session, token))
        .catch((error: unknown) =>
          this.deps.logger.warn({ err: error, ...session.ref }, 'reopening a replaced session failed'),
        );
    }, REPLACED_REOPEN_DELAY_MS);
    timer.unref();
    return true;
  }

  private async reopen(replaced: LiveSession, token: number): Promise<void> {
    if (this.live.has(refKey(replaced.ref)) || !this.stillOwns(replaced.shard, token)) return;
    const record = await this.deps.sessions.find(replaced.ref);
    // Gone, ended meanwhile (a logout), or a newer owner's now: nothing to reopen here.
    if (!record || record.ownerToken !== token || record.state === 'disconnected') return;
    await this.connect(record, record.phoneNumber !== null, { restoring: true });
  }

  private tokenOf(shard: number): number {
    const token = this.shardTokens.get(shard);
    if (token === undefined) throw notOwner();
    return token;
  }

  private sandbox(): SandboxControl {
    if (!(this.driver instanceof SandboxNetworkDriver)) {
      throw new ApiError(
        'not_found',
        'The sandbox network is off. Start Jumbe with JUMBE_NETWORK=sandbox to use /sandbox routes.',
      );
    }
    return this.driver.control();
  }
}

/** How each command holds its session: lifecycle changes alone, sends side by side, reads freely. */
const LOCKING: Record<SessionCommand['type'], 'exclusive' | 'shared' | 'none'> = {
  'session.start': 'exclusive',
  'session.pairing_code': 'exclusive',
  'session.logout': 'exclusive',
  'session.delete': 'exclusive',
  'session.reconnect': 'exclusive',
  'sandbox.scan': 'exclusive',
  'sandbox.disconnect': 'exclusive',
  'message.send': 'shared',
  'chat.read': 'shared',
  'chat.presence': 'shared',
  'contact.check': 'shared',
  group: 'shared',
  'profile.read': 'shared',
  'profile.update': 'shared',
  'contact.profile': 'shared',
  'contact.block': 'shared',
  'calls.settings.read': 'none',
  'calls.settings.update': 'none',
  'sandbox.call': 'none',
  // A file is fetched by its descriptor, whatever the connection does meanwhile.
  'media.fetch': 'none',
  'session.status': 'none',
  'session.qr': 'none',
  'sandbox.inbound': 'none',
  'sandbox.outbox': 'none',
  'sandbox.status': 'none',
};

const viewOf = (record: SessionRecord): SessionView => sessionView({ ...record });

/** Resolves true if `promise` settles before `deadline` (ms since the epoch), false otherwise. */
async function settlesWithin(promise: Promise<unknown>, deadline: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
  });
  const settled = promise.then(
    () => true,
    () => true,
  );
  try {
    return await Promise.race([settled, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The session's shard was just taken over here and the session is still reconnecting. */
const restoringError = (ref: SessionRef) =>
  new ApiError(
    'session_restoring',
    `Session "${ref.sessionId}" is being restored after moving to another worker. Retry in a moment.`,
    undefined,
    { 'Retry-After': '1' },
  );

/** This worker no longer owns the session's shard (it is moving): the client retries shortly. */
const notOwner = () => new ShardMovingError();

const LINK_WHILE_WAITING =
  'start the session, then scan its QR code or enter its pairing code while it shows one.';

function mapNetworkError(error: unknown): never {
  if (error instanceof NotReadyError) {
    // The network's reason, then what to do: said once, in words for a person, no route names.
    const reason = error.message.charAt(0).toUpperCase() + error.message.slice(1);
    throw new ApiError('session_not_ready', `${reason}: ${LINK_WHILE_WAITING}`);
  }
  if (error instanceof NumberInUseError) {
    throw new ApiError('number_in_use', `${error.message}. Log out the other session or use another number.`);
  }
  if (error instanceof NetworkSendError) throw new ApiError(error.code, error.message);
  throw error;
}
