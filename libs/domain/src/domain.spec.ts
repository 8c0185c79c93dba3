import { createHash } from 'node:crypto';
import {
  billingCycleAt,
  displayPrefix,
  generateApiKey,
  hashApiKey,
  isValidRecipient,
  isValidSessionId,
  looksLikeApiKey,
  recipientJid,
  scopeAllows,
} from './index';

describe('billing cycle', () => {
  it('is the calendar month in UTC, end exclusive', () => {
    const cycle = billingCycleAt(new Date('2026-12-31T23:59:59.999Z'));
    expect(cycle.id).toBe('2026-12-01');
    expect(cycle.start.toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(cycle.end.toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(billingCycleAt(new Date('2027-01-01T00:00:00.000Z')).id).toBe('2027-01-01');
  });
});

describe('API keys', () => {
  it('are jmb_-prefixed, unique, and recognisable by shape', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(a).toMatch(/^jmb_/);
    expect(a).not.toBe(b);
    expect(looksLikeApiKey(a)).toBe(true);
    expect(looksLikeApiKey('jmb_short')).toBe(false);
    expect(looksLikeApiKey(a.replace('jmb_', 'sk_x'))).toBe(false);
  });

  it('hash to a stable sha256 hex digest and display only a prefix', () => {
    expect(hashApiKey('jmb_x')).toBe(hashApiKey('jmb_x'));
    expect(hashApiKey('jmb_x')).toMatch(/^[0-9a-f]{64}$/);
    // The stored form of every key ever issued: the digest must never change with the code.
    expect(hashApiKey('jmb_x')).toBe('921dd65eeea9a2f4239653d1d7e0929a9e6444b97116efd75ea286d9745da55d');
    const key = generateApiKey();
    expect(hashApiKey(key)).toBe(createHash('sha256').update(key, 'utf8').digest('hex'));
    expect(hashApiKey('jmb_ü€')).toBe(createHash('sha256').update('jmb_ü€', 'utf8').digest('hex'));
    expect(displayPrefix('jmb_abcdefghijkl')).toBe('jmb_abcdefgh');
  });
});

describe('scopes', () => {
  it('lets read keys use GET only', () => {
    expect(scopeAllows('read', 'GET')).toBe(true);
    expect(scopeAllows('read', 'POST')).toBe(false);
    expect(scopeAllows('full', 'DELETE')).toBe(true);
  });
});

describe('session ids', () => {
  it.each(['default', 'nairobi_shop', 'a-1', 'x'.repeat(64)])('accepts %s', (id) => {
    expect(isValidSessionId(id)).toBe(true);
  });
  it.each(['', '../x', 'x'.repeat(65), 'café', 'a b', 'a/b'])('rejects %j', (id) => {
    expect(isValidSessionId(id)).toBe(false);
  });
});

describe('recipients', () => {
  it.each([
    '254712345678',
    '1234567',
    '123456789012345',
    '120363040000000000@g.us',
    '12345@lid',
    '254712345678@s.whatsapp.net',
  ])('accepts %s', (to) => expect(isValidRecipient(to)).toBe(true));
  it.each(['+254712345678', '254 712 345678', '123456', '1234567890123456', 'abc', '123@example.com', ''])(
    'rejects %j',
    (to) => expect(isValidRecipient(to)).toBe(false),
  );
  it('turns digits into a user JID and keeps JIDs', () => {
    expect(recipientJid('254712345678')).toBe('254712345678@s.whatsapp.net');
    expect(recipientJid('1203@g.us')).toBe('1203@g.us');
  });
});
