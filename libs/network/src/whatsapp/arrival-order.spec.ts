import { ArrivalOrder, isPending, PENDING_ARRIVALS } from './arrival-order';
import { readAt } from './inbound-outbox';

const WAIT_MS = 30_000;
const RESEND_WAIT_MS = 10_000;

describe('ArrivalOrder', () => {
  let releases: number;
  let order: ArrivalOrder;
  beforeEach(() => {
    jest.useFakeTimers({ now: new Date('2030-01-01T00:00:00Z') });
    releases = 0;
    order = new ArrivalOrder(0, () => void releases++, WAIT_MS);
    // Logged in (what a socket stores before that is held: its own test below).
    order.opened();
  });
  afterEach(() => {
    order.end();
    jest.useRealTimers();
  });

  /** Whether the message `id`, stored with the key it was given, may be handed on now. */
  const publishable = (id: string) => order.publishable(order.keyOf(id));

  it('keys a live arrival after every backlog arrival, also one that comes in later', () => {
    order.arrived('backlog-1', true);
    order.arrived('live', false);
    order.arrived('backlog-2', true);
    const keys = ['backlog-1', 'backlog-2', 'live'].map((id) => order.keyOf(id).position);
    expect([...keys].sort((a, b) => a - b)).toEqual(keys);
  });

  it('holds a stored message back while one that arrived before it is not stored yet', () => {
    order.arrived('first', true);
    order.arrived('second', true);
    const second = order.keyOf('second');
    order.settled('second');
    expect(order.publishable(second)).toBe(false);
    order.settled('first');
    expect(order.publishable(second)).toBe(true);
  });

  it('holds live messages until the backlog is complete', () => {
    order.arrived('backlog', true);
    order.arrived('live', false);
    const backlog = order.keyOf('backlog');
    const live = order.keyOf('live');
    order.settled('backlog');
    order.settled('live');
    expect(order.publishable(backlog)).toBe(true);
    expect(order.publishable(live)).toBe(false);
    const before = releases;
    order.backlogArrived();
    expect(releases).toBeGreaterThan(before);
    expect(order.publishable(live)).toBe(true);
  });

  it('waits at most its limit for an arrival that never becomes a message, or a backlog that never ends', () => {
    order.arrived('never emitted', true);
    order.arrived('live', false);
    const live = order.keyOf('live');
    order.settled('live');
    jest.advanceTimersByTime(WAIT_MS - 1);
    expect(order.publishable(live)).toBe(false);
    const before = releases;
    jest.advanceTimersByTime(1);
    expect(releases).toBeGreaterThan(before);
    expect(order.publishable(live)).toBe(true);
  });

  it('lets no wait run out while PostgreSQL is away: the first message of an outage keeps its place however long it lasts', () => {
    // The fault schedule's seed 5: in a 50 s outage the first message of every chat waited on a key
    // write inside Baileys while the later ones came out first once PostgreSQL was back.
    let storeFailedAt = 0;
    const outage = new ArrivalOrder(
      0,
      () => void releases++,
      WAIT_MS,
      RESEND_WAIT_MS,
      () => storeFailedAt,
    );
    outage.opened();
    outage.backlogArrived();
    outage.arrived('first of the outage', false);
    outage.arrived('next', false);
    const next = outage.keyOf('next');
    outage.settled('next');
    for (let second = 0; second < 50; second += 1) {
      storeFailedAt = Date.now();
      jest.advanceTimersByTime(1_000);
    }
    // PostgreSQL is back: the usual limit counts from its last failure, not from the arrival.
    jest.advanceTimersByTime(WAIT_MS - 1_001);
    expect(outage.publishable(next)).toBe(false);
    const before = releases;
    jest.advanceTimersByTime(1);
    expect(releases).toBeGreaterThan(before);
    expect(outage.publishable(next)).toBe(true);
    outage.end();
  });

  it('lets a resend wait its limit after PostgreSQL is back, too', () => {
    let storeFailedAt = 0;
    const outage = new ArrivalOrder(
      0,
      () => void releases++,
      WAIT_MS,
      RESEND_WAIT_MS,
      () => storeFailedAt,
    );
    outage.opened();
    outage.backlogArrived();
    outage.arrived('unreadable', false);
    outage.arrived('next', false);
    const next = outage.keyOf('next');
    outage.settled('next');
    outage.awaitResend('unreadable');
    jest.advanceTimersByTime(RESEND_WAIT_MS - 1);
    storeFailedAt = Date.now();
    jest.advanceTimersByTime(RESEND_WAIT_MS - 1);
    expect(outage.publishable(next)).toBe(false);
    jest.advanceTimersByTime(1);
    expect(outage.publishable(next)).toBe(true);
    outage.end();
  });

  it('hands on nothing its socket stored before the login opened, then all of it', () => {
    // Baileys emits what arrives between `<success>` and its `open` (it awaits round trips there).
    const early = new ArrivalOrder(order.socket, () => void releases++, WAIT_MS);
    early.arrived('backlog', true);
    const backlog = early.keyOf('backlog');
    early.settled('backlog');
    expect(early.publishable(backlog)).toBe(false);
    expect(early.publishable({ socket: order.socket, position: 0 })).toBe(true);
    const before = releases;
    early.opened();
    expect(releases).toBeGreaterThan(before);
    expect(early.publishable(backlog)).toBe(true);
    early.end();
  });

  it('holds nothing of another socket, and nothing once its own socket is let go', () => {
    order.arrived('backlog', true);
    order.arrived('live', false);
    const live = order.keyOf('live');
    expect(order.publishable({ socket: order.socket - 1, position: live.position + 1 })).toBe(true);
    expect(publishable('live')).toBe(false);
    order.end();
    expect(order.publishable(live)).toBe(true);
  });

  it('keeps the place of a message asked for again: its resent copy is keyed as it, and what came after waits', () => {
    const resendWaiting = new ArrivalOrder(0, () => void releases++, WAIT_MS, RESEND_WAIT_MS);
    resendWaiting.opened();
    resendWaiting.backlogArrived();
    resendWaiting.arrived('unreadable', false);
    resendWaiting.arrived('next', false);
    const first = resendWaiting.keyOf('unreadable');
    const next = resendWaiting.keyOf('next');
    resendWaiting.awaitResend('unreadable');
    resendWaiting.settled('next');
    expect(resendWaiting.publishable(next)).toBe(false);

    // The sender's phone sends it again, with the same id, a round trip later.
    resendWaiting.arrived('unreadable', false);
    expect(resendWaiting.keyOf('unreadable')).toEqual(first);
    resendWaiting.settled('unreadable');
    expect(resendWaiting.publishable(first)).toBe(true);
    expect(resendWaiting.publishable(next)).toBe(true);
    resendWaiting.end();
  });

  it('waits for a resend at most its own limit from the retry, then lets later ones go', () => {
    const resendWaiting = new ArrivalOrder(0, () => void releases++, WAIT_MS, RESEND_WAIT_MS);
    resendWaiting.opened();
    resendWaiting.backlogArrived();
    resendWaiting.arrived('unreadable', false);
    resendWaiting.arrived('next', false);
    const next = resendWaiting.keyOf('next');
    resendWaiting.settled('next');
    jest.advanceTimersByTime(1_000);
    resendWaiting.awaitResend('unreadable');
    // Baileys asks again after the next failed copy: the first retry's limit stands.
    jest.advanceTimersByTime(RESEND_WAIT_MS - 1);
    resendWaiting.awaitResend('unreadable');
    expect(resendWaiting.publishable(next)).toBe(false);
    const before = releases;
    jest.advanceTimersByTime(1);
    expect(releases).toBeGreaterThan(before);
    expect(resendWaiting.publishable(next)).toBe(true);
    resendWaiting.end();
  });

  it('does not wait for a resend of a stub whose message was stored before it was emitted', () => {
    order.backlogArrived();
    order.arrived('resent', false);
    order.settled('resent');
    order.arrived('next', false);
    const next = order.keyOf('next');
    order.settled('next');
    // Baileys emits the first copy's stub after the resent copy was stored.
    order.keyOf('resent');
    order.awaitResend('resent');
    order.arrived('later', false);
    const later = order.keyOf('later');
    order.settled('later');
    expect(order.publishable(next)).toBe(true);
    expect(order.publishable(later)).toBe(true);
  });

  it('judges a read of the outbox by what was awaited as it started: one stored meanwhile is not in it', () => {
    order.backlogArrived();
    order.arrived('X', false);
    order.arrived('Y', false);
    const [x, y] = [order.keyOf('X'), order.keyOf('Y')];
    order.settled('Y');
    const atRead = order.awaitedNow();
    // X is stored while the read is under way: the read returned Y alone.
    order.settled('X');
    expect(order.publishable(y)).toBe(true);
    expect(order.publishable(y, atRead)).toBe(false);
    // The next read has X, and both go.
    const next = order.awaitedNow();
    expect(order.publishable(x, next)).toBe(true);
    expect(order.publishable(y, next)).toBe(true);
  });

  it('keys each socket after the one before, even opened in the same millisecond', () => {
    const next = new ArrivalOrder(order.socket, () => undefined, WAIT_MS);
    expect(next.socket).toBeGreaterThan(order.socket);
    next.end();
  });

  describe('across sockets (issue 28, chaos seed 5: a version bump ended the socket before its backlog)', () => {
    /** A server second: the stanza's `t`. */
    const T = 1_900_000_000;

    it('stores a live arrival that came before the backlog completed as pending, any after not', () => {
      order.arrived('backlog', true, T);
      order.arrived('early live', false, T + 5);
      order.arrived('still in Baileys', false, T + 5);
      expect(isPending(order.keyOf('early live').position)).toBe(true);
      order.backlogArrived();
      order.arrived('later live', false, T + 6);
      expect(isPending(order.keyOf('backlog').position)).toBe(false);
      // Stored after the backlog completed: where the outbox settles the pending ones (settlePending).
      const late = order.keyOf('still in Baileys');
      expect(isPending(late.position)).toBe(false);
      expect(readAt(late, order.socket, PENDING_ARRIVALS)).toEqual(late);
      expect(isPending(order.keyOf('later live').position)).toBe(false);
      const read = ['backlog', 'early live', 'still in Baileys', 'later live'].map(
        (id) => readAt(order.keyOf(id), order.socket, PENDING_ARRIVALS).position,
      );
      expect([...read].sort((x, y) => x - y)).toEqual(read);
    });

    it('places its own pending arrival by its second too (chaos seed 57: one the server took before a backlog stanza)', () => {
      // Taken by the server at T + 5, handed over live on this socket before its backlog's rest.
      order.arrived('A', true, T);
      order.arrived('L', false, T + 5);
      const l = order.keyOf('L');
      order.settled('A');
      order.settled('L');
      // Not yet: the backlog may still bring what the server took up to T + 5.
      expect(order.publishable(l)).toBe(false);
      order.arrived('C', true, T + 30);
      const c = order.keyOf('C');
      order.settled('C');
      // The outbox reads L before C (readAt), and both may go.
      expect(readAt(l, order.socket, PENDING_ARRIVALS).position).toBeLessThan(c.position);
      expect(order.publishable(l)).toBe(true);
      expect(order.publishable(c)).toBe(true);
    });

    it('holds the backlog after it while it is not stored yet', () => {
      order.arrived('A', true, T);
      order.arrived('L', false, T + 5);
      order.arrived('C', true, T + 30);
      const c = order.keyOf('C');
      order.settled('A');
      order.settled('C');
      expect(order.publishable(c)).toBe(false);
      order.settled('L');
      expect(order.publishable(c)).toBe(true);
    });

    it('keeps a message sent now after the whole backlog: its second is past every backlog stanza', () => {
      order.arrived('A', true, T);
      order.arrived('now', false, T + 600);
      order.arrived('B', true, T + 1);
      const [now, b] = [order.keyOf('now'), order.keyOf('B')];
      for (const id of ['A', 'now', 'B']) order.settled(id);
      expect(order.publishable(now)).toBe(false);
      order.backlogArrived();
      expect(order.publishable(now)).toBe(true);
      expect(readAt(now, order.socket, PENDING_ARRIVALS).position).toBeGreaterThan(b.position);
    });

    it("places an earlier socket's pending arrival by its second: after the backlog up to it, before the later backlog", () => {
      // Socket 1: the group message B arrives live, the backlog (with A, sent before it) never comes.
      order.arrived('B', false, T + 6);
      const b = order.keyOf('B');
      order.settled('B');
      order.end();
      // Socket 2: its backlog has A (sent at T) and C (sent while the device was away again).
      const next = new ArrivalOrder(order.socket, () => void releases++, WAIT_MS);
      next.opened();
      expect(next.placesCarried(b)).toBe(false);
      next.arrived('A', true, T);
      expect(next.placesCarried(b)).toBe(false);
      next.arrived('C', true, T + 30);
      expect(next.placesCarried(b)).toBe(true);
      // A is still inside Baileys: B waits for it; C waits for B (the outbox reads B before it).
      expect(next.carriedPublishable(b)).toBe(false);
      next.settled('A');
      expect(next.carriedPublishable(b)).toBe(true);
      next.end();
    });

    it('places it once the backlog completes, or has been awaited its limit from the open, and says so once', () => {
      order.arrived('B', false, T + 6);
      const b = order.keyOf('B');
      order.settled('B');
      order.end();
      let settled = 0;
      const complete = new ArrivalOrder(
        order.socket,
        () => undefined,
        WAIT_MS,
        RESEND_WAIT_MS,
        () => 0,
        () => {
          settled += 1;
        },
      );
      complete.opened();
      complete.backlogArrived();
      expect(complete.placesCarried(b)).toBe(true);
      expect(complete.carriedPublishable(b)).toBe(true);
      expect(settled).toBe(1);
      complete.end();

      const silent = new ArrivalOrder(
        complete.socket,
        () => void releases++,
        WAIT_MS,
        RESEND_WAIT_MS,
        () => 0,
        () => {
          settled += 1;
        },
      );
      expect(silent.placesCarried(b)).toBe(false);
      silent.opened();
      jest.advanceTimersByTime(WAIT_MS - 1);
      expect(silent.placesCarried(b)).toBe(false);
      const before = releases;
      jest.advanceTimersByTime(1);
      expect(releases).toBeGreaterThan(before);
      expect(silent.placesCarried(b)).toBe(true);
      expect(settled).toBe(2);
      silent.end();
    });

    it('holds its own pending arrivals until its backlog completes, as before', () => {
      order.opened();
      order.arrived('early live', false, T);
      const early = order.keyOf('early live');
      order.settled('early live');
      expect(order.publishable(early)).toBe(false);
      order.backlogArrived();
      expect(order.publishable(early)).toBe(true);
    });
  });
});
