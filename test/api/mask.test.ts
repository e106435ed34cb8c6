import { describe, expect, it } from 'vitest';
import { maskKey } from '../../src/api/index.js';

describe('maskKey', () => {
  it('shows only the last 4 characters', () => {
    expect(maskKey('ck_live_4f9a2c7e81d34b6f9e0a5c2d7b1e8f36')).toBe('••••8f36');
  });

  it('does not reveal the key length', () => {
    expect(maskKey('abcdefghijklmnop')).toBe('••••mnop');
    expect(maskKey('abcdefghijklmnopqrstuvwxyz')).toBe('••••wxyz');
  });

  it.each(['', 'abc', 'abcd', 'abcdefgh', 'abcdefghijk'])('fully masks the short key %j', (key) => {
    expect(maskKey(key)).toBe('••••');
  });

  it('never contains the key', () => {
    const key = 'ck_test_0123456789abcdef';
    expect(maskKey(key)).not.toContain(key.slice(0, 5));
  });
});
