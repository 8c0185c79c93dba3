import { applyLinkChange, type LinkFacts } from './link-transition';
import { neverStartedSession, sessionView } from './session-view';

const starting: LinkFacts = { state: 'starting', phoneNumber: null, reason: null };
const connected: LinkFacts = { state: 'connected', phoneNumber: '254700000001', reason: null };

describe('session state machine', () => {
  it('shows a QR, then connects with the linked number', () => {
    const qr = applyLinkChange(starting, { type: 'qr', qr: 'ref' });
    expect(qr).toEqual({ state: 'qr_ready', phoneNumber: null, reason: null });
    expect(applyLinkChange(qr!, { type: 'connected', phoneNumber: '254700000001' })).toEqual(connected);
  });

  it('offers a pairing code', () => {
    expect(applyLinkChange(starting, { type: 'pairing_code', code: 'ABCD-EFGH' })?.state).toBe(
      'pairing_code_ready',
    );
  });

  it('keeps the number while reconnecting', () => {
    expect(applyLinkChange(connected, { type: 'connecting' })).toEqual({ ...connected, state: 'connecting' });
  });

  it('frees the number on logout and records why', () => {
    expect(applyLinkChange(connected, { type: 'disconnected', reason: 'logged_out' })).toEqual({
      state: 'disconnected',
      phoneNumber: null,
      reason: 'logged_out',
    });
    expect(applyLinkChange(starting, { type: 'disconnected', reason: 'qr_timeout' })?.reason).toBe(
      'qr_timeout',
    );
  });

  it('keeps the number through closes that keep the link (a new start resumes without a scan)', () => {
    for (const reason of ['network_error', 'connection_replaced', 'forbidden', 'client_outdated']) {
      expect(applyLinkChange(connected, { type: 'disconnected', reason })).toEqual({
        state: 'disconnected',
        phoneNumber: '254700000001',
        reason,
      });
    }
    expect(
      applyLinkChange(connected, { type: 'disconnected', reason: 'number_in_use' })?.phoneNumber,
    ).toBeNull();
  });

  it('does not record a planned shutdown', () => {
    expect(applyLinkChange(connected, { type: 'disconnected', reason: 'shutdown' })).toBeNull();
  });
});

describe('session view', () => {
  it('derives connected from the state and formats time', () => {
    expect(
      sessionView({ sessionId: 's', ...connected, updatedAt: new Date('2026-01-02T03:04:05.678Z') }),
    ).toEqual({
      sessionId: 's',
      phoneNumber: '254700000001',
      connected: true,
      state: 'connected',
      updatedAt: '2026-01-02T03:04:05.678Z',
      reason: null,
    });
  });

  it('reads a never-started session as disconnected without a time', () => {
    expect(neverStartedSession('sales')).toEqual({
      sessionId: 'sales',
      phoneNumber: null,
      connected: false,
      state: 'disconnected',
      updatedAt: null,
      reason: null,
    });
  });
});
