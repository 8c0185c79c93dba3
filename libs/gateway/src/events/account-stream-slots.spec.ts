import { AccountStreamSlots } from './account-stream-slots';

describe('AccountStreamSlots', () => {
  it('gives each account its own bounded number of slots, each returned once', () => {
    const slots = new AccountStreamSlots(2);
    const first = slots.take('a');
    const second = slots.take('a');
    expect(first).not.toBeNull();
    expect(second).not.toBeNull();
    expect(slots.take('a')).toBeNull();
    expect(slots.take('b')).not.toBeNull();
    first?.();
    first?.();
    expect(slots.held('a')).toBe(1);
    expect(slots.take('a')).not.toBeNull();
    expect(slots.take('a')).toBeNull();
  });
});
