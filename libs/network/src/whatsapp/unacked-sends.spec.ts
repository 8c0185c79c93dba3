import { LATE_SEND_HOLD_MS, MAX_UNACKED_RESENDS, UnackedSends } from './unacked-sends';

const text = (conversation: string) => ({ conversation });

describe('UnackedSends', () => {
  const first = { socket: 1 };
  const next = { socket: 2 };

  it('sends what an earlier socket never got acknowledged again, in send order, up to its limit', () => {
    const sends = new UnackedSends();
    sends.record('A', 'to', text('a'), first);
    sends.record('B', 'to', text('b'), first);
    sends.acked('B');
    expect(sends.dueOn(first).resend).toEqual([]);
    for (let attempt = 1; attempt <= MAX_UNACKED_RESENDS; attempt += 1) {
      const { resend } = sends.dueOn(next);
      expect(resend.map((send) => send.id)).toEqual(['A']);
      resend[0]!.resends += 1;
    }
    expect(sends.dueOn(next).giveUp.map((send) => send.id)).toEqual(['A']);
    expect(sends.size).toBe(0);
  });

  it('holds one answered after its deadline until a retry learns it; then it goes out like any other', () => {
    const sends = new UnackedSends();
    sends.record('LATE', 'to', text('late'), first, undefined, false);
    expect(sends.dueOn(next)).toEqual({ resend: [], giveUp: [] });
    expect(sends.learned('LATE')).toBe(true);
    expect(sends.dueOn(next).resend.map((send) => send.id)).toEqual(['LATE']);
  });

  it('gives up one held that no retry learned, and says so to a retry that comes after', () => {
    const sends = new UnackedSends();
    const recordedAt = Date.now();
    sends.record('LATE', 'to', text('late'), first, undefined, false);
    expect(sends.dueOn(next, recordedAt + LATE_SEND_HOLD_MS - 1_000).giveUp).toEqual([]);
    expect(sends.dueOn(next, recordedAt + LATE_SEND_HOLD_MS + 1_000).giveUp.map((send) => send.id)).toEqual([
      'LATE',
    ]);
    expect(sends.learned('LATE')).toBe(false);
    // Acknowledged, or never recorded here: nothing is held, the id stands.
    expect(sends.learned('OTHER')).toBe(true);
  });
});
