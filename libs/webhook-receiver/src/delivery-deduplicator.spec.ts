import { signWebhook } from '@jumbe/domain';
import { DeliveryDeduplicator } from './delivery-deduplicator';
import { verifyDelivery } from './verify-delivery';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('DeliveryDeduplicator', () => {
  it('says false the first time and true for every repeat', () => {
    const dedupe = new DeliveryDeduplicator();
    expect(dedupe.seen('a')).toBe(false);
    expect(dedupe.seen('a')).toBe(true);
    expect(dedupe.seen('a')).toBe(true);
    expect(dedupe.seen('b')).toBe(false);
    expect(dedupe.size).toBe(2);
  });

  it('is bounded by count, evicting the least recently seen id', () => {
    const dedupe = new DeliveryDeduplicator({ maxEntries: 3 });
    for (const id of ['a', 'b', 'c']) dedupe.seen(id);
    expect(dedupe.seen('a')).toBe(true); // a is now the most recent
    expect(dedupe.seen('d')).toBe(false); // evicts b, the least recent
    expect(dedupe.size).toBe(3);
    expect(dedupe.has('b')).toBe(false);
    expect(dedupe.has('a')).toBe(true);
    expect(dedupe.has('c')).toBe(true);
    expect(dedupe.seen('b')).toBe(false);
  });

  it('stays bounded under many ids', () => {
    const dedupe = new DeliveryDeduplicator({ maxEntries: 100 });
    for (let i = 0; i < 10_000; i++) dedupe.seen(`id-${i}`);
    expect(dedupe.size).toBe(100);
    expect(dedupe.has('id-9999')).toBe(true);
    expect(dedupe.has('id-9899')).toBe(false);
  });

  it('forgets an id maxAgeSeconds after it was last seen', () => {
    const time = clock();
    const dedupe = new DeliveryDeduplicator({ maxAgeSeconds: 60, now: time.now });
    dedupe.seen('a');
    time.advance(30_000);
    dedupe.seen('b');
    time.advance(29_999);
    expect(dedupe.has('a')).toBe(true);
    time.advance(1);
    expect(dedupe.has('a')).toBe(false);
    expect(dedupe.has('b')).toBe(true);
    expect(dedupe.size).toBe(1);
    time.advance(30_000);
    expect(dedupe.seen('b')).toBe(false);
  });

  it('has() does not record, forget() lets an id through again, clear() forgets all', () => {
    const dedupe = new DeliveryDeduplicator();
    expect(dedupe.has('a')).toBe(false);
    expect(dedupe.seen('a')).toBe(false);
    expect(dedupe.forget('a')).toBe(true);
    expect(dedupe.forget('a')).toBe(false);
    expect(dedupe.seen('a')).toBe(false);
    dedupe.clear();
    expect(dedupe.size).toBe(0);
  });

  it('refuses nonsensical bounds', () => {
    expect(() => new DeliveryDeduplicator({ maxEntries: 0 })).toThrow(TypeError);
    expect(() => new DeliveryDeduplicator({ maxEntries: 1.5 })).toThrow(TypeError);
    expect(() => new DeliveryDeduplicator({ maxAgeSeconds: 0 })).toThrow(TypeError);
  });

  it('with verifyDelivery: the same delivery arriving twice is handled once', () => {
    const secret = 'whsec_JOsmAir4/OVdXIyrwFj67fwhCnEavtEWPMvnj7ugDmg=';
    const body = JSON.stringify({ event: 'message.received', deliveryId: 'dup-1', sessionId: 'default' });
    const headers = {
      'x-service-event': 'message.received',
      'x-service-delivery': 'dup-1',
      ...signWebhook({ secret, deliveryId: 'dup-1', timestamp: new Date(), body }),
    };
    const dedupe = new DeliveryDeduplicator();
    const handled: string[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const { deliveryId } = verifyDelivery({ body, headers, secret });
      if (!dedupe.seen(deliveryId)) handled.push(deliveryId);
    }
    expect(handled).toEqual(['dup-1']);
  });

  it("with Jumbe's opt-in retries: a retry (same id, new timestamp and signature) after a failed handling is handled, after a success is not", () => {
    const secret = 'whsec_JOsmAir4/OVdXIyrwFj67fwhCnEavtEWPMvnj7ugDmg=';
    const body = JSON.stringify({ event: 'message.received', deliveryId: 'retried-1', sessionId: 'default' });
    const attempt = (secondsLater: number) => ({
      'x-service-event': 'message.received',
      'x-service-delivery': 'retried-1',
      ...signWebhook({
        secret,
        deliveryId: 'retried-1',
        timestamp: new Date(Date.now() + secondsLater * 1_000),
        body,
      }),
    });
    const dedupe = new DeliveryDeduplicator();
    const outcomes: string[] = [];
    let databaseUp = false;
    // The receiver's own store is down for the first attempt: it forgets the id and answers 503.
    for (const headers of [attempt(0), attempt(30), attempt(120)]) {
      const { deliveryId } = verifyDelivery({ body, headers, secret });
      if (dedupe.seen(deliveryId)) {
        outcomes.push('duplicate');
      } else if (!databaseUp) {
        dedupe.forget(deliveryId);
        outcomes.push('failed');
        databaseUp = true;
      } else outcomes.push('handled');
    }
    expect(outcomes).toEqual(['failed', 'handled', 'duplicate']);
  });
});
