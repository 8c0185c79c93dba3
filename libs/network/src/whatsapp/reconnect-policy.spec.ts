import { ReconnectPolicy } from './reconnect-policy';
import { type WhatsAppNetworkOptions, whatsAppSettings } from './whatsapp-settings';

describe('ReconnectPolicy (when the next socket opens)', () => {
  let now = 1_000_000;
  const policy = () =>
    new ReconnectPolicy(
      {
        reconnectBaseMs: 1_000,
        reconnectMaxMs: 60_000,
        refusalBackoffBaseMs: 5_000,
        refusalBackoffMaxMs: 300_000,
        stableConnectionMs: 30_000,
        random: () => 0.5,
      },
      () => now,
    );
  const restart = { action: 'reconnect_now' } as const;
  const refused = { action: 'reconnect_later', refused: true } as const;
  const dropped = { action: 'reconnect_later', refused: false } as const;

  it('a restart request after a stable connection reconnects at once; restarts in a row back off', () => {
    const reconnects = policy();
    reconnects.opened();
    now += 60_000;
    expect(reconnects.delayAfter(restart)).toBe(0);
    // A server asking again right after every login (opened or not) no longer gets an instant loop.
    reconnects.opened();
    expect([1, 2, 3, 4].map(() => reconnects.delayAfter(restart))).toEqual([750, 1_500, 3_000, 6_000]);
    reconnects.opened();
    now += 30_000;
    expect(reconnects.delayAfter(restart)).toBe(0);
  });

  it('refusals back off up to minutes and never stop; a transient drop uses the short backoff', () => {
    const reconnects = policy();
    const waits = Array.from({ length: 10 }, () => reconnects.delayAfter(refused));
    expect(waits.slice(0, 3)).toEqual([3_750, 7_500, 15_000]);
    expect(waits.slice(-2)).toEqual([225_000, 225_000]);
    reconnects.opened();
    expect(reconnects.delayAfter(dropped)).toBe(750);
  });

  it('counts refusals in a row since the last open', () => {
    const reconnects = policy();
    [405, 500, 402].forEach((code) => reconnects.closed(code));
    expect(reconnects.refusals).toBe(3);
    reconnects.closed(408);
    expect(reconnects.refusals).toBe(0);
  });

  it('with the default settings a number is back within 40 s of a WhatsApp incident ending, however long it lasted', () => {
    // The worst draw of the jitter, after an hour of refusals: the wait still started before the
    // incident ended is the longest a number stays down once WhatsApp answers again.
    const defaults = whatsAppSettings({ random: () => 0.999_999 } as WhatsAppNetworkOptions);
    const reconnects = new ReconnectPolicy(defaults, () => now);
    const waits = Array.from({ length: 120 }, () => reconnects.delayAfter(refused));
    expect(Math.max(...waits)).toBeLessThanOrEqual(40_000);
    expect(waits[0]).toBeLessThanOrEqual(5_000);
  });
});
