import { backoffDelay } from './backoff';
import { BoundedCache } from './bounded-cache';
import { decideAfterClose, type CloseFacts } from './disconnect-policy';
import { LaunchQueue } from './launch-queue';

describe('decideAfterClose (Baileys DisconnectReason → what the session does)', () => {
  const linked: CloseFacts = {
    statusCode: 408,
    message: '',
    linked: true,
    loginOffered: false,
    loginExpired: false,
    refusals: 0,
    maxRefusals: 5,
  };
  const login: CloseFacts = { ...linked, linked: false };

  it.each([
    [515, { action: 'reconnect_now' }],
    [408, { action: 'reconnect_later', refused: false }],
    [428, { action: 'reconnect_later', refused: false }],
    [500, { action: 'reconnect_later', refused: true }],
    [503, { action: 'reconnect_later', refused: true }],
    [405, { action: 'reconnect_later', refused: true }],
    [undefined, { action: 'reconnect_later', refused: false }],
    [401, { action: 'end', reason: 'logged_out', clearCredentials: true }],
    [440, { action: 'end', reason: 'connection_replaced', clearCredentials: false }],
    [403, { action: 'end', reason: 'forbidden', clearCredentials: false }],
    [411, { action: 'end', reason: 'multidevice_mismatch', clearCredentials: false }],
  ])('linked session, %s', (statusCode, decision) => {
    expect(decideAfterClose({ ...linked, statusCode })).toEqual(decision);
  });

  it.each([
    [402, 'network_refused'],
    [405, 'client_outdated'],
    [406, 'network_refused'],
    [500, 'bad_session'],
  ])(
    '%s is retried, and ends %s only past a limit the operator set, keeping credentials',
    (statusCode, reason) => {
      const retried = { action: 'reconnect_later', refused: true };
      expect(decideAfterClose({ ...linked, statusCode, refusals: 1_000, maxRefusals: Infinity })).toEqual(
        retried,
      );
      expect(decideAfterClose({ ...linked, statusCode, refusals: 4 })).toEqual(retried);
      expect(decideAfterClose({ ...linked, statusCode, refusals: 5 })).toEqual({
        action: 'end',
        reason,
        clearCredentials: false,
      });
    },
  );

  it('a QR that expired unscanned is qr_timeout; before any QR a failure is retried', () => {
    expect(decideAfterClose({ ...login, loginOffered: true, message: 'QR refs attempts ended' })).toEqual({
      action: 'end',
      reason: 'qr_timeout',
      clearCredentials: true,
    });
    expect(decideAfterClose({ ...login, statusCode: undefined })).toEqual({
      action: 'reconnect_later',
      refused: false,
    });
    expect(decideAfterClose({ ...login, statusCode: undefined, loginExpired: true })).toEqual({
      action: 'end',
      reason: 'network_error',
      clearCredentials: true,
    });
    expect(decideAfterClose({ ...login, statusCode: 515, loginOffered: true })).toEqual({
      action: 'reconnect_now',
    });
  });
});

describe('backoffDelay', () => {
  const policy = (random: number) => ({ baseMs: 1_000, maxMs: 60_000, random: () => random });

  it('doubles per attempt up to the cap, with jitter in the upper half', () => {
    expect([0, 1, 2, 3, 6, 7, 50].map((attempt) => backoffDelay(attempt, policy(0)))).toEqual([
      500, 1_000, 2_000, 4_000, 30_000, 30_000, 30_000,
    ]);
    expect(backoffDelay(2, policy(0.999999))).toBe(4_000);
    expect(backoffDelay(50, policy(0.999999))).toBe(60_000);
  });
});

describe('BoundedCache', () => {
  it('keeps at most max entries, least recently used out first, null values included', async () => {
    const cache = new BoundedCache({ max: 2 });
    cache.set('a', 1);
    cache.set('b', null);
    expect(cache.get('b')).toBeNull();
    cache.get('a');
    cache.set('c', 3);
    expect(cache.size).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(await cache.mget(['a', 'c'])).toEqual({ a: 1, c: 3 });
    await cache.mdel(['a']);
    cache.flushAll();
    expect(cache.size).toBe(0);
  });
  it('never keeps a pass-through key, and a set of one drops what was kept under it', () => {
    const cache = new BoundedCache({ max: 10, passThrough: (key) => key.startsWith('skip.') });
    cache.set('skip.1', 'x');
    cache.set('kept', 'y');
    expect(cache.get('skip.1')).toBeUndefined();
    expect(cache.get('kept')).toBe('y');
    expect(cache.size).toBe(1);
  });
});

describe('LaunchQueue', () => {
  it('starts in order, spaced out, and a cancelled start never runs', async () => {
    const queue = new LaunchQueue(20);
    const started: [string, number][] = [];
    const t0 = Date.now();
    queue.schedule(() => started.push(['a', Date.now() - t0]));
    const cancel = queue.schedule(() => started.push(['x', Date.now() - t0]));
    queue.schedule(() => started.push(['b', Date.now() - t0]));
    cancel();
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(started.map(([name]) => name)).toEqual(['a', 'b']);
    expect(started[1]![1]).toBeGreaterThanOrEqual(18);
  });
});
