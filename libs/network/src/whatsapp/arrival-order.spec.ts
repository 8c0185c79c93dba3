import { ArrivalOrder } from './arrival-order';

const WAIT_MS = 30_000;

describe('ArrivalOrder', () => {
  let releases: number;
  let order: ArrivalOrder;
  beforeEach(() => {
    jest.useFakeTimers({ now: new Date('2030-01-01T00:00:00Z') });
    releases = 0;
    order = new ArrivalOrder(0, () => void releases++, WAIT_MS);
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

  it('holds nothing of another socket, and nothing once its own socket is let go', () => {
    order.arrived('backlog', true);
    order.arrived('live', false);
    const live = order.keyOf('live');
    expect(order.publishable({ socket: order.socket - 1, position: live.position + 1 })).toBe(true);
    expect(publishable('live')).toBe(false);
    order.end();
    expect(order.publishable(live)).toBe(true);
  });

  it('keys each socket after the one before, even opened in the same millisecond', () => {
    const next = new ArrivalOrder(order.socket, () => undefined, WAIT_MS);
    expect(next.socket).toBeGreaterThan(order.socket);
    next.end();
  });
});
