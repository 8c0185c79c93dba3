import { createHash } from 'node:crypto';
import { generateDashboardToken, hashDashboardToken, presentedDashboardTokenHash } from './dashboard-token';

/**
 * Which requests present a dashboard session's token (CONTRACT §11): only `Authorization: Bearer
 * jds_…` of the exact form, and only without an `x-api-key` beside it. Anything else goes to the key
 * path, which refuses what is not a key.
 */
describe('dashboard session tokens', () => {
  const TOKEN = `jds_${'a1_-B'.repeat(8)}xyz`; // 43 characters after the prefix
  const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

  it('are 256 random bits after jds_, a new one each time, stored as their SHA-256', () => {
    const tokens = new Set(Array.from({ length: 50 }, () => generateDashboardToken()));
    expect(tokens.size).toBe(50);
    for (const token of tokens) {
      expect(token).toMatch(/^jds_[A-Za-z0-9_-]{43}$/);
      expect(hashDashboardToken(token)).toBe(sha256(token));
    }
  });

  it.each([
    ['Bearer', `Bearer ${TOKEN}`],
    ['lower-case bearer', `bearer ${TOKEN}`],
    ['spaces around the token', `Bearer   ${TOKEN}  `],
  ])('is read from Authorization with %s', (_label, authorization) => {
    expect(presentedDashboardTokenHash({ authorization })).toBe(sha256(TOKEN));
  });

  it.each([
    [
      'an x-api-key beside it (two credentials: the key path refuses them)',
      { 'x-api-key': 'jmb_x', authorization: `Bearer ${TOKEN}` },
    ],
    ['an empty x-api-key beside it', { 'x-api-key': '', authorization: `Bearer ${TOKEN}` }],
    ['no Authorization', {}],
    ['an API key as the bearer', { authorization: `Bearer jmb_${'k'.repeat(43)}` }],
    ['a token one character short', { authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
    ['a token one character long', { authorization: `Bearer ${TOKEN}a` }],
    ['a character outside base64url', { authorization: `Bearer ${TOKEN.slice(0, -1)}+` }],
    ['text before the scheme', { authorization: `x Bearer ${TOKEN}` }],
    ['another scheme', { authorization: `Basic ${TOKEN}` }],
    ['a second word after the token', { authorization: `Bearer ${TOKEN} more` }],
    ['the token inside a longer word', { authorization: `Bearer x${TOKEN}` }],
  ])('is not presented with %s', (_label, headers: Record<string, string>) => {
    expect(presentedDashboardTokenHash(headers)).toBeNull();
  });
});
