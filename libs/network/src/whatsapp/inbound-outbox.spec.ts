import { ArrivalOrder, isPending, PENDING_ARRIVALS } from './arrival-order';
import { ProcessInboundOutbox } from './inbound-outbox';

const REF = { accountId: 'acc', sessionId: 'sales' };
const T = 1_900_000_000;

describe('ProcessInboundOutbox', () => {
  beforeEach(() => jest.useFakeTimers({ now: new Date('2030-01-01T00:00:00Z') }));
  afterEach(() => jest.useRealTimers());

  /**
   * Issue 28 (chaos seed 5): B arrived live on a socket whose backlog (with A, sent before B) never
   * came; the socket ended; the next one's backlog has A, and C sent while the device was away
   * again. Keys made by ArrivalOrder, as the driver makes them.
   */
  async function acrossSockets() {
    const outbox = new ProcessInboundOutbox();
    const first = new ArrivalOrder(0, () => undefined, 30_000);
    first.arrived('B', false, T + 6);
    await outbox.add(REF, 'B', Buffer.from('B'), undefined, first.keyOf('B'));
    first.end();
    const second = new ArrivalOrder(first.socket, () => undefined, 30_000);
    second.arrived('A', true, T);
    second.arrived('C', true, T + 30);
    second.backlogArrived();
    second.arrived('D', false, T + 31);
    for (const id of ['D', 'C', 'A']) await outbox.add(REF, id, Buffer.from(id), undefined, second.keyOf(id));
    second.end();
    return { outbox, first, second };
  }

  it("reads an earlier socket's pending arrival among the current socket's backlog, by the server's second", async () => {
    const { outbox, first, second } = await acrossSockets();
    const ids = async (carriedTo?: number) =>
      (await outbox.oldest(REF, 10, carriedTo, PENDING_ARRIVALS)).map((entry) => entry.messageId);
    const stored = await outbox.oldest(REF, 10);
    expect(
      stored.filter((entry) => isPending(entry.arrival.position)).map((entry) => entry.messageId),
    ).toEqual(['B']);
    // No later socket yet (or an owner that reads none): where it arrived.
    expect(await ids()).toEqual(['B', 'A', 'C', 'D']);
    expect(await ids(first.socket)).toEqual(['B', 'A', 'C', 'D']);
    expect(await ids(second.socket)).toEqual(['A', 'B', 'C', 'D']);
  });

  it('settles it there once that backlog is complete: a later socket does not move it again', async () => {
    const { outbox, second } = await acrossSockets();
    await outbox.settlePending(REF, second.socket, PENDING_ARRIVALS);
    const third = second.socket + 1;
    const read = await outbox.oldest(REF, 10, third, PENDING_ARRIVALS);
    expect(read.map((entry) => entry.messageId)).toEqual(['A', 'B', 'C', 'D']);
    expect(read.some((entry) => isPending(entry.arrival.position))).toBe(false);
  });
});
