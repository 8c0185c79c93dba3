import {
  decideAfterClose,
  isRefusal,
  QR_REFS_ENDED,
  type CloseDecision,
  type CloseFacts,
} from './disconnect-policy';

/**
 * Every close code WhatsApp (through Baileys) reports, for a linked session and for a login in each
 * of its states: what users see is whether the session comes back by itself, ends with which
 * reason, and whether it must be linked again (credentials cleared).
 */
describe('decideAfterClose: every close code, linked and while logging in', () => {
  const base: CloseFacts = {
    statusCode: undefined,
    message: 'Connection Failure',
    linked: true,
    loginOffered: false,
    loginExpired: false,
    refusals: 1,
    maxRefusals: Infinity,
  };
  const retry: CloseDecision = { action: 'reconnect_later', refused: false };
  const backOff: CloseDecision = { action: 'reconnect_later', refused: true };
  const now: CloseDecision = { action: 'reconnect_now' };
  const end = (reason: string, clearCredentials: boolean): CloseDecision =>
    ({ action: 'end', reason, clearCredentials }) as CloseDecision;

  /** The states of a session when its socket closes. */
  const states = {
    linked: {},
    /** Logging in, no QR or code shown yet, time left. */
    connecting: { linked: false },
    /** Logging in, a QR shown, time left. */
    showingQr: { linked: false, loginOffered: true },
    /** Logging in, a QR shown, its time used up. */
    qrExpired: { linked: false, loginOffered: true, loginExpired: true },
    /** Logging in, no QR ever shown (no connection), its time used up. */
    neverReached: { linked: false, loginExpired: true },
  } satisfies Record<string, Partial<CloseFacts>>;

  const qrTimeout = end('qr_timeout', true);
  const table: [number | undefined, string, Record<keyof typeof states, CloseDecision>][] = [
    [
      515,
      'restart required',
      { linked: now, connecting: now, showingQr: now, qrExpired: now, neverReached: now },
    ],
    [
      401,
      'logged out',
      {
        linked: end('logged_out', true),
        connecting: end('logged_out', true),
        showingQr: end('logged_out', true),
        qrExpired: end('logged_out', true),
        neverReached: end('logged_out', true),
      },
    ],
    [
      440,
      'replaced',
      {
        linked: end('connection_replaced', false),
        connecting: end('connection_replaced', false),
        showingQr: end('connection_replaced', false),
        qrExpired: end('connection_replaced', false),
        neverReached: end('connection_replaced', false),
      },
    ],
    [
      403,
      'forbidden',
      {
        linked: end('forbidden', false),
        connecting: end('forbidden', false),
        showingQr: end('forbidden', false),
        qrExpired: end('forbidden', false),
        neverReached: end('forbidden', false),
      },
    ],
    [
      411,
      'multi-device mismatch',
      {
        linked: end('multidevice_mismatch', false),
        connecting: end('multidevice_mismatch', false),
        showingQr: end('multidevice_mismatch', false),
        qrExpired: end('multidevice_mismatch', false),
        neverReached: end('multidevice_mismatch', false),
      },
    ],
    // 408 while a QR is shown is the QR timing out; otherwise the connection was lost.
    [
      408,
      'timed out / lost',
      {
        linked: retry,
        connecting: retry,
        showingQr: qrTimeout,
        qrExpired: qrTimeout,
        neverReached: end('network_error', true),
      },
    ],
    [
      428,
      'closed',
      {
        linked: retry,
        connecting: retry,
        showingQr: retry,
        qrExpired: qrTimeout,
        neverReached: end('network_error', true),
      },
    ],
    [
      undefined,
      'socket error',
      {
        linked: retry,
        connecting: retry,
        showingQr: retry,
        qrExpired: qrTimeout,
        neverReached: end('network_error', true),
      },
    ],
    [
      503,
      'service unavailable',
      {
        linked: backOff,
        connecting: backOff,
        showingQr: backOff,
        qrExpired: qrTimeout,
        neverReached: end('network_error', true),
      },
    ],
    [
      402,
      'payment required',
      {
        linked: backOff,
        connecting: backOff,
        showingQr: backOff,
        qrExpired: qrTimeout,
        neverReached: end('network_error', true),
      },
    ],
    [
      405,
      'client outdated',
      {
        linked: backOff,
        connecting: backOff,
        showingQr: backOff,
        qrExpired: qrTimeout,
        neverReached: end('network_error', true),
      },
    ],
    [
      406,
      'not acceptable',
      {
        linked: backOff,
        connecting: backOff,
        showingQr: backOff,
        qrExpired: qrTimeout,
        neverReached: end('network_error', true),
      },
    ],
    [
      500,
      'bad session / unknown stream error',
      {
        linked: backOff,
        connecting: backOff,
        showingQr: backOff,
        qrExpired: qrTimeout,
        neverReached: end('network_error', true),
      },
    ],
    // A code this table does not know is a transient failure, never a reason to drop the link.
    [
      999,
      'unknown',
      {
        linked: retry,
        connecting: retry,
        showingQr: retry,
        qrExpired: qrTimeout,
        neverReached: end('network_error', true),
      },
    ],
  ];

  describe.each(table)('%s (%s)', (statusCode, _name, expected) => {
    it.each(Object.keys(states) as (keyof typeof states)[])('%s', (state) => {
      expect(decideAfterClose({ ...base, ...states[state], statusCode })).toEqual(expected[state]);
    });
  });

  it('a login whose QR refs ran out ends qr_timeout whatever the code, and only once a QR was shown', () => {
    const refsEnded = { ...base, linked: false, statusCode: 428, message: `Error: ${QR_REFS_ENDED}` };
    expect(decideAfterClose({ ...refsEnded, loginOffered: true })).toEqual(qrTimeout);
    expect(decideAfterClose({ ...refsEnded, loginOffered: false })).toEqual(retry);
    // Once linked, the QR is history: the same words do not end the session.
    expect(decideAfterClose({ ...refsEnded, linked: true, loginOffered: true })).toEqual(retry);
  });

  it('a linked session whose login time ran out long ago is not ended by it', () => {
    expect(decideAfterClose({ ...base, statusCode: 408, loginOffered: true, loginExpired: true })).toEqual(
      retry,
    );
  });

  it.each([
    [402, 'network_refused'],
    [405, 'client_outdated'],
    [406, 'network_refused'],
    [500, 'bad_session'],
  ])(
    'refusals (%s) end the session as %s at the limit, linked or not, credentials kept',
    (statusCode, reason) => {
      for (const state of Object.values(states)) {
        const facts = { ...base, ...state, statusCode, maxRefusals: 3 };
        expect(decideAfterClose({ ...facts, refusals: 2 })).not.toEqual(end(reason, false));
        expect(decideAfterClose({ ...facts, refusals: 3 })).toEqual(end(reason, false));
        expect(decideAfterClose({ ...facts, refusals: 4 })).toEqual(end(reason, false));
      }
    },
  );

  it('503 and transient closes never end a session by the refusal limit', () => {
    for (const statusCode of [503, 408, 428, undefined]) {
      expect(decideAfterClose({ ...base, statusCode, refusals: 50, maxRefusals: 3 }).action).toBe(
        'reconnect_later',
      );
    }
  });
});

describe('isRefusal: which closes count towards the operator’s refusal limit', () => {
  it.each([
    [402, true],
    [405, true],
    [406, true],
    [500, true],
    [503, false],
    [408, false],
    [428, false],
    [401, false],
    [440, false],
    [515, false],
    [undefined, false],
  ])('%s → %s', (statusCode, expected) => {
    expect(isRefusal(statusCode)).toBe(expected);
  });
});
