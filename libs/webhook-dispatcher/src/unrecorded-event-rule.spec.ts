import type { StreamEvent } from '@jumbe/contracts';
import type { StreamDeliverable } from './stream-deliverable';
import { cannotBeRecordedYet, CLOCK_SKEW_MS } from './unrecorded-event-rule';

const HOUR = 3_600_000;
const sentAt = new Date('2030-01-01T12:00:00.000Z');

function event(
  storedAfterSentMs: number | null,
  { relayStamped = false, type = 'message.received' }: { relayStamped?: boolean; type?: string } = {},
): StreamDeliverable {
  const timestamp = relayStamped ? sentAt.toISOString() : new Date(sentAt.getTime() + 5).toISOString();
  return {
    eventId: 'acct:main:MSG1',
    subject: 'jumbe.v1.events.1.acct.main',
    payload: {
      event: type,
      timestamp,
      customerId: 'acct',
      sessionId: 'main',
      message: { id: 'MSG1', messageTimestamp: sentAt.toISOString() },
    } as unknown as StreamEvent,
    ...(storedAfterSentMs === null
      ? {}
      : {
          firstHandOut: {
            storedAt: new Date(sentAt.getTime() + storedAfterSentMs),
            duplicateWindowMs: HOUR,
          },
        }),
    ack: async () => undefined,
    working: async () => undefined,
  };
}

describe('cannotBeRecordedYet: which events skip the already-recorded check', () => {
  it('skips it for a first hand-out of a message stored well within the duplicate window of its sending', () => {
    expect(cannotBeRecordedYet(event(20))).toBe(true);
    expect(cannotBeRecordedYet(event(HOUR - CLOCK_SKEW_MS - 1))).toBe(true);
  });

  it('skips it for an event the log proved unrecorded when it stored it (all-in-one)', () => {
    expect(cannotBeRecordedYet({ ...event(null), unrecorded: true })).toBe(true);
  });

  it('checks an event any consumer may have been handed before (redelivered, or stored before the consumer)', () => {
    expect(cannotBeRecordedYet(event(null))).toBe(false);
  });

  it('checks a message stored so long after it was sent that an earlier copy may have left the duplicate window', () => {
    // Same message id published again past the window: stored anew, but possibly recorded already.
    expect(cannotBeRecordedYet(event(HOUR - CLOCK_SKEW_MS))).toBe(false);
    expect(cannotBeRecordedYet(event(3 * HOUR))).toBe(false);
  });

  it("checks a message whose time lies beyond the clock skew in the stream's future", () => {
    expect(cannotBeRecordedYet(event(-CLOCK_SKEW_MS))).toBe(false);
    expect(cannotBeRecordedYet(event(-1_000))).toBe(true);
  });

  it('checks a message whose time the relay filled in (the network gave none) and events without a sending time', () => {
    expect(cannotBeRecordedYet(event(20, { relayStamped: true }))).toBe(false);
    expect(cannotBeRecordedYet(event(20, { type: 'session.status' }))).toBe(false);
  });
});
