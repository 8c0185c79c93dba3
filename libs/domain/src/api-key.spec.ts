import { API_KEY_PREFIX, displayPrefix, generateApiKey, looksLikeApiKey } from './api-key';

describe('API keys', () => {
  it('shows exactly the prefix and the first 8 characters of a key in listings', () => {
    const key = generateApiKey();
    expect(displayPrefix(key)).toBe(key.slice(0, API_KEY_PREFIX.length + 8));
    expect(displayPrefix(key)).toHaveLength(12);
  });

  it('takes only a whole key for a key: nothing before or after it', () => {
    const key = generateApiKey();
    expect(looksLikeApiKey(key)).toBe(true);
    expect(looksLikeApiKey(`${key}x`)).toBe(false);
    expect(looksLikeApiKey(`${key}\n`)).toBe(false);
    expect(looksLikeApiKey(` ${key}`)).toBe(false);
    expect(looksLikeApiKey(key.slice(0, -1))).toBe(false);
  });
});
