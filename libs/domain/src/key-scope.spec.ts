import { KEY_SCOPES, scopeAllows } from './key-scope';

// CONTRACT §3: a read key may look but never change anything. Every method a client can send is
// listed, so a rule that refuses only POST (and lets a read key DELETE a session) fails here.
const EVERY_METHOD: ReadonlyArray<[method: string, readKeyAllowed: boolean]> = [
  ['GET', true],
  ['HEAD', true],
  ['POST', false],
  ['PUT', false],
  ['PATCH', false],
  ['DELETE', false],
  ['OPTIONS', false],
];

describe('key scopes over every HTTP method', () => {
  it.each(EVERY_METHOD)('a read key %s → allowed: %s', (method, allowed) => {
    expect(scopeAllows('read', method)).toBe(allowed);
  });

  it.each(EVERY_METHOD)('a full key may %s', (method) => {
    expect(scopeAllows('full', method)).toBe(true);
  });

  it('knows exactly the full and read scopes', () => {
    expect([...KEY_SCOPES]).toEqual(['full', 'read']);
  });
});
