import { DELIVERY_ID_NAMESPACE, deliveryIdForEvent, newDeliveryId } from './delivery-id';

// Fixed vectors, computed independently when this test was written:
//   { printf '%s' 'ed11a6c80f3248e4af3de76a68259a1a' | xxd -r -p; printf '%s' 'evt-1'; } | openssl dgst -sha256
//     → 39b7660f1f9f963f2facdbea80282665bfa79d52efa4170f49b12e236e49050f
//   first 16 bytes, byte 6 = (b6 & 0x0f) | 0x50 (0x96 → 0x56), byte 8 = (b8 & 0x3f) | 0x80 (0x2f → 0xaf)
//     → 39b7660f-1f9f-563f-afac-dbea80282665
//   same for '01JH8Z3Q4W5E6R7T8Y9U0I1O2P':
//     → fc4b6f75c047d673a1a64cc8253d01c1066210478152e49a99b2eec56db01aa5 → fc4b6f75-c047-5673-a1a6-4cc8253d01c1
const UUID_V5_LAYOUT = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('deliveryIdForEvent', () => {
  it('is pinned to the vectors, because changing it would defeat de-duplication across upgrades', () => {
    expect(DELIVERY_ID_NAMESPACE).toBe('ed11a6c8-0f32-48e4-af3d-e76a68259a1a');
    expect(deliveryIdForEvent('evt-1')).toBe('39b7660f-1f9f-563f-afac-dbea80282665');
    expect(deliveryIdForEvent('01JH8Z3Q4W5E6R7T8Y9U0I1O2P')).toBe('fc4b6f75-c047-5673-a1a6-4cc8253d01c1');
  });

  it('is deterministic, distinct per event, and has the UUID v5 layout', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const id = deliveryIdForEvent(`event-${i}`);
      expect(id).toMatch(UUID_V5_LAYOUT);
      expect(deliveryIdForEvent(`event-${i}`)).toBe(id);
      ids.add(id);
    }
    expect(ids.size).toBe(1000);
  });

  it('refuses an empty event id', () => {
    expect(() => deliveryIdForEvent('')).toThrow();
  });
});

describe('newDeliveryId', () => {
  it('is a random UUID v4', () => {
    const a = newDeliveryId();
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(newDeliveryId()).not.toBe(a);
  });
});
