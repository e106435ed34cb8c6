import { describe, expect, it } from 'vitest';
import { createKeys, DEFAULT_KEY_PREFIX } from '../../src/store/index.js';
import { segment } from '../../src/store/keys.js';
import { MemoryKeyValueStore } from '../../src/store/memory-kv.js';

describe('keys', () => {
  it('prefixes every key, `campaign:` by default', () => {
    const keys = createKeys();
    expect(DEFAULT_KEY_PREFIX).toBe('campaign:');
    expect(keys.workspace('T1')).toBe('campaign:workspace:T1');
    expect(createKeys('x:').routes('T1')).toBe('x:routes:T1');
  });

  it('keeps parts containing separators from colliding', () => {
    const keys = createKeys();
    expect(keys.conversation('T1', 'a:b', 'c')).not.toBe(keys.conversation('T1', 'a', 'b:c'));
    expect(keys.dedup('s', 'a%3ab')).not.toBe(keys.dedup('s', 'a:b'));
    expect(segment('+1 555:{x}%')).toBe('+1%20555%3a%7bx%7d%25');
  });

  it('gives every queue key the {queue} hash tag, which user input cannot displace', () => {
    const keys = createKeys('p:');
    const firstTag = (key: string) => /\{([^}]*)\}/.exec(key)?.[1];
    for (const key of [
      keys.queueStream(),
      keys.queueDedup('T{1}', '{d}'),
      keys.queueOrder('{o}'),
      keys.queueLease('{o}'),
    ]) {
      expect(firstTag(key)).toBe('queue');
      expect(key.match(/[{}]/g)).toEqual(['{', '}']);
    }
  });

  it('gives a workspace’s alert counts one hash tag of their own, which ids cannot displace', () => {
    const keys = createKeys('p:');
    const firstTag = (key: string) => /\{([^}]*)\}/.exec(key)?.[1];
    const window = keys.alertWindow('T{1}', '["C{1}","*"]');
    const counted = keys.alertCounted('T{1}', 'call}{x');
    expect(firstTag(window)).toBe('alert-counts:T%7b1%7d');
    expect(firstTag(counted)).toBe(firstTag(window));
    expect(firstTag(keys.alertCounted('T2', 'c'))).not.toBe(firstTag(window));
    for (const key of [window, counted]) expect(key.match(/[{}]/g)).toEqual(['{', '}']);
  });

  it('refuses a prefix with braces', () => {
    expect(() => createKeys('{app}:')).toThrow(/must not contain/);
  });
});

describe('MemoryKeyValueStore', () => {
  it('sweeps expired keys even when nobody reads them', async () => {
    const kv = new MemoryKeyValueStore({ sweepIntervalMs: 20 });
    try {
      await kv.set('a', '1', { ttlMs: 30 });
      await kv.set('b', '1');
      await new Promise((resolve) => setTimeout(resolve, 90));
      // `size` sweeps too, so look at what the timer left behind through a private view.
      expect((kv as unknown as { items: Map<string, unknown> }).items.size).toBe(1);
    } finally {
      await kv.close();
    }
  });

  it('refuses work after close', async () => {
    const kv = new MemoryKeyValueStore();
    await kv.close();
    await expect(kv.get('a')).rejects.toThrow(/closed/);
  });
});
