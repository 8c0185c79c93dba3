import { changeRefusal, EDIT_WINDOW_MS, REVOKE_WINDOW_MS } from './change-window';

describe('changeRefusal', () => {
  const sentAt = new Date('2030-01-01T00:00:00Z');
  const after = (ms: number) => new Date(sentAt.getTime() + ms);

  it('lets an edit through for 15 minutes, then says why not', () => {
    expect(changeRefusal('edit', sentAt, after(EDIT_WINDOW_MS))).toBeNull();
    expect(changeRefusal('edit', sentAt, after(EDIT_WINDOW_MS + 1))).toContain('edited for 15 minutes');
  });

  it('lets a delete for everyone through for 60 hours, then says why not', () => {
    expect(changeRefusal('revoke', sentAt, after(REVOKE_WINDOW_MS))).toBeNull();
    expect(changeRefusal('revoke', sentAt, after(REVOKE_WINDOW_MS + 1))).toContain('60 hours');
  });
});
