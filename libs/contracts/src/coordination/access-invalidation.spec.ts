import {
  ACCESS_INVALIDATION_TOPIC,
  type AccessInvalidation,
  decodeAccessInvalidation,
  encodeAccessInvalidation,
} from './access-invalidation';

describe('access invalidation messages', () => {
  it('travel on one fixed topic', () => {
    expect(ACCESS_INVALIDATION_TOPIC).toBe('jumbe:access-invalidation');
  });

  const messages: AccessInvalidation[] = [
    { v: 1, kind: 'key', keyId: 'key-1' },
    { v: 1, kind: 'account', accountId: 'acct-1' },
    { v: 1, kind: 'plan', planId: 'plan-1' },
    { v: 1, kind: 'webhook', accountId: 'acct-1' },
  ];

  it.each(messages.map((message) => [message.kind, message] as const))(
    'a %s message decodes to what was encoded',
    (_, message) => {
      const text = encodeAccessInvalidation(message);
      expect(typeof text).toBe('string');
      expect(decodeAccessInvalidation(text)).toEqual(message);
    },
  );

  it.each([
    ['an empty string', ''],
    ['not JSON', 'drop everything'],
    ['truncated JSON', '{"v":1,"kind":"key"'],
    ['JSON null', 'null'],
    ['a JSON number', '42'],
    ['a JSON array', '[1,2]'],
    ['an unknown kind', '{"v":1,"kind":"tenant","tenantId":"t"}'],
    ['a newer version', '{"v":2,"kind":"key","keyId":"k"}'],
    ['no version', '{"kind":"key","keyId":"k"}'],
    ['a kind without its id', '{"v":1,"kind":"account"}'],
    ['an id of the wrong type', '{"v":1,"kind":"plan","planId":7}'],
  ])('%s decodes to null', (_, text) => {
    expect(decodeAccessInvalidation(text)).toBeNull();
  });
});
