/** The test helper's hash slots against the values Redis documents for `CLUSTER KEYSLOT`. */
import { describe, expect, it } from 'vitest';
import { crc16, hashedPart, hashSlot } from '../support/hash-slot.js';

describe('hash slots', () => {
  it('computes CRC16 (XMODEM) like Redis Cluster', () => {
    expect(crc16(Buffer.from('123456789'))).toBe(0x31c3);
    expect(crc16(Buffer.from(''))).toBe(0);
  });

  it('maps keys to the slots Redis documents', () => {
    expect(hashSlot('foo')).toBe(12182);
    expect(hashSlot('somekey')).toBe(11058);
    expect(hashSlot('foo{hash_tag}')).toBe(2515);
    expect(hashSlot('bar{hash_tag}')).toBe(2515);
  });

  it('hashes only a non-empty hash tag: the first `{` to the next `}`', () => {
    expect(hashSlot('{user1000}.following')).toBe(hashSlot('{user1000}.followers'));
    expect(hashSlot('{user1000}.following')).toBe(hashSlot('user1000'));
    expect(hashedPart('foo{}{bar}')).toBe('foo{}{bar}');
    expect(hashedPart('foo{{bar}}zap')).toBe('{bar');
    expect(hashedPart('foo{bar}{zap}')).toBe('bar');
    expect(hashedPart('no tag')).toBe('no tag');
    expect(hashedPart('open{only')).toBe('open{only');
  });
});
