import { FairSlots } from './fair-slots';

/**
 * Admission order only: each request is a label pushed when it is admitted, so the tests read
 * who got a slot and in what order, never how long anything took.
 */
describe('FairSlots', () => {
  function slots(capacity: number, perDestination: number) {
    const fair = new FairSlots(capacity, perDestination);
    const admitted: string[] = [];
    let counter = 0;
    /** Asks for a slot for `destination`; the label (`A1`, `A2`, …) is recorded when admitted. */
    const request = (destination: string): string => {
      const label = `${destination}${++counter}`;
      fair.take(destination, () => admitted.push(label));
      return label;
    };
    return { fair, admitted, request };
  }

  it('admits up to its capacity at once, and the next in line as each slot is freed', () => {
    const { fair, admitted, request } = slots(2, 2);
    request('A');
    request('B');
    request('C');
    expect(admitted).toEqual(['A1', 'B2']);
    fair.give('A');
    expect(admitted).toEqual(['A1', 'B2', 'C3']);
    fair.give('B');
    fair.give('C');
    expect([fair.heldBy('A'), fair.heldBy('B'), fair.heldBy('C')]).toEqual([0, 0, 0]);
  });

  it('never gives one destination more than its share: the rest stays open to the others', () => {
    const { fair, admitted, request } = slots(5, 2);
    for (let i = 0; i < 10; i += 1) request('A');
    expect(admitted).toEqual(['A1', 'A2']);
    expect(fair.heldBy('A')).toBe(2);
    // A hangs on to its two slots; B comes after A's backlog of eight and is admitted at once.
    request('B');
    request('B');
    expect(admitted).toEqual(['A1', 'A2', 'B11', 'B12']);
  });

  it('never lets a destination hold as many slots as are left free, so several hung ones leave one open', () => {
    const { fair, admitted, request } = slots(8, 8);
    for (let i = 0; i < 8; i += 1) request('A'); // A hangs: takes half, 4
    for (let i = 0; i < 8; i += 1) request('B'); // B hangs too: half of what A left, 2
    for (let i = 0; i < 8; i += 1) request('C'); // and C: 1
    expect([fair.heldBy('A'), fair.heldBy('B'), fair.heldBy('C')]).toEqual([4, 2, 1]);
    request('D'); // a live account still finds the last slot free
    expect(admitted.at(-1)).toBe('D25');
    expect(fair.heldBy('D')).toBe(1);
  });

  it('lets a destination at its share wait while slots are free, and admits it as one of its own ends', () => {
    const { fair, admitted, request } = slots(8, 2);
    request('A');
    request('A');
    request('A');
    expect(admitted).toEqual(['A1', 'A2']);
    fair.give('A');
    expect(admitted).toEqual(['A1', 'A2', 'A3']);
    expect(fair.heldBy('A')).toBe(2);
  });

  it('gives a freed slot to the destination holding the fewest, ahead of a busier one that waited longer', () => {
    const { fair, admitted, request } = slots(3, 3);
    for (let i = 0; i < 5; i += 1) request('A'); // A1, A2 admitted (A never holds as many as are free); A3–A5 wait
    request('B'); // B6 admitted: the last free slot
    request('B'); // B7 waits (B holds 1)
    request('C'); // C8 waits (C holds 0)
    expect(admitted).toEqual(['A1', 'A2', 'B6']);
    fair.give('A'); // C holds none: its turn, though A3 and B7 came first
    fair.give('A'); // A now holds 0, B 1: A3 waited longest, and only A may take it
    fair.give('B'); // A holds 1, B 0, C 1: B7
    expect(admitted).toEqual(['A1', 'A2', 'B6', 'C8', 'A3', 'B7']);
    fair.give('C'); // one slot free: A holds 1, as many as are free, so A4 waits
    expect(admitted.at(-1)).toBe('B7');
    fair.give('B'); // two free: A4
    expect(admitted.at(-1)).toBe('A4');
  });

  it("admits one destination's waiters in their order of arrival", () => {
    const { fair, admitted, request } = slots(1, 1);
    const order = ['A', 'A', 'A', 'A'].map(request);
    for (let i = 0; i < 3; i += 1) fair.give('A');
    expect(admitted).toEqual(order);
  });

  it('frees several slots to several destinations in turn, each within its share', () => {
    const { fair, admitted, request } = slots(6, 3);
    for (let i = 0; i < 6; i += 1) request('A'); // A1–A3 admitted (its share)
    for (let i = 0; i < 6; i += 1) request('B'); // B7, B8 admitted (as many as A left free, less one)
    request('C'); // C13 takes the last free slot
    request('D'); // waits: all six slots held
    expect(admitted).toHaveLength(6);
    fair.give('A');
    fair.give('B');
    fair.give('C');
    // D first (holds none); then, with two free, B (holds 1) but not A (holds 2, as many as are free).
    expect(admitted.slice(6)).toEqual(['D14', 'B9']);
  });

  it('passes over a waiter withdrawn before its turn, and cannot withdraw one already admitted', () => {
    const fair = new FairSlots(1, 1);
    const admitted: string[] = [];
    const first = fair.take('A', () => admitted.push('A1'));
    const second = fair.take('A', () => admitted.push('A2'));
    fair.take('B', () => admitted.push('B3'));
    expect(second()).toBe(true);
    expect(second()).toBe(false);
    fair.give('A');
    expect(admitted).toEqual(['A1', 'B3']);
    expect(first()).toBe(false);
    fair.give('B');
    expect([fair.heldBy('A'), fair.heldBy('B')]).toEqual([0, 0]);
  });

  it('gives a lone destination at most half the slots, whatever its share', () => {
    const { admitted, request } = slots(4, 5);
    for (let i = 0; i < 4; i += 1) request('A');
    expect(admitted).toEqual(['A1', 'A2']);
  });

  it('refuses to free a slot that is not held, and to be built without slots', () => {
    const { fair } = slots(2, 1);
    expect(() => fair.give('A')).toThrow('no slot held for A');
    expect(() => new FairSlots(0, 1)).toThrow(RangeError);
    expect(() => new FairSlots(1, 0)).toThrow(RangeError);
  });

  describe('run', () => {
    /** A task that settles when the test says so. */
    function gate() {
      let open: (value: string) => void = () => undefined;
      let fail: (error: Error) => void = () => undefined;
      const promise = new Promise<string>((resolve, reject) => {
        open = resolve;
        fail = reject;
      });
      return { promise, open, fail };
    }
    const settled = () => new Promise((resolve) => setImmediate(resolve));

    it('frees the slot of a task that fails, so the next waiter of the same destination runs', async () => {
      const fair = new FairSlots(1, 1);
      const first = gate();
      const started: string[] = [];
      const failing = fair.run('A', () => {
        started.push('first');
        return first.promise;
      });
      const next = fair.run('A', async () => {
        started.push('second');
        return 'delivered';
      });
      await settled();
      expect(started).toEqual(['first']);
      first.fail(new Error('receiver reset'));
      await expect(failing).rejects.toThrow('receiver reset');
      await expect(next).resolves.toBe('delivered');
      expect(started).toEqual(['first', 'second']);
      expect(fair.heldBy('A')).toBe(0);
    });

    it('never runs a task withdrawn while it waits, and frees no slot for it', async () => {
      const fair = new FairSlots(1, 1);
      const hung = gate();
      const started: string[] = [];
      const running = fair.run('A', () => {
        started.push('in hand');
        return hung.promise;
      });
      const forgotten = new AbortController();
      const waiting = fair.run(
        'A',
        async () => {
          started.push('forgotten');
          return 'sent';
        },
        forgotten.signal,
      );
      const later = fair.run('A', async () => {
        started.push('later');
        return 'later';
      });
      forgotten.abort(new Error('shard let go'));
      await expect(waiting).rejects.toThrow('shard let go');
      const alreadyForgotten = fair.run('A', async () => 'never', forgotten.signal);
      await expect(alreadyForgotten).rejects.toThrow('shard let go');
      hung.open('answered');
      await expect(running).resolves.toBe('answered');
      await expect(later).resolves.toBe('later');
      expect(started).toEqual(['in hand', 'later']);
      expect(fair.heldBy('A')).toBe(0);
    });

    it("runs another destination's task while one destination's tasks hang in their whole share", async () => {
      const fair = new FairSlots(4, 2);
      const hung = gate();
      const started: string[] = [];
      for (let i = 0; i < 6; i += 1)
        void fair.run('A', () => {
          started.push('A');
          return hung.promise;
        });
      const b = fair.run('B', async () => {
        started.push('B');
        return 'b';
      });
      await expect(b).resolves.toBe('b');
      expect(started).toEqual(['A', 'A', 'B']);
      hung.open('late');
      await settled();
      expect(started).toEqual(['A', 'A', 'B', 'A', 'A', 'A', 'A']);
    });
  });
});
