import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createStore, decodeSecretsKey, SecretBox, SecretBoxError } from '../../src/store/index.js';
import { requireRedis } from '../support/redis.js';

const redis = await requireRedis();

/** Flips one base64url character of part `index` of a sealed value. */
function tamper(sealed: string, index: number): string {
  const parts = sealed.split('.');
  const part = parts[index]!;
  const c = part[0] === 'A' ? 'B' : 'A';
  parts[index] = c + part.slice(1);
  return parts.join('.');
}

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));

  it('seals to a versioned compact string and opens it again', () => {
    const sealed = box.seal('sk-live-1234', 'T1');
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('sk-live');
    expect(box.open(sealed, 'T1')).toBe('sk-live-1234');
    expect(box.seal('sk-live-1234', 'T1')).not.toBe(sealed); // random IV
    expect(box.open(box.seal('', 'T1'), 'T1')).toBe('');
    expect(box.open(box.seal('ünïcødé ✓', 'T1'), 'T1')).toBe('ünïcødé ✓');
  });

  it('refuses a tampered IV, tag or ciphertext', () => {
    const sealed = box.seal('sk-live-1234', 'T1');
    for (const part of [1, 2, 3]) {
      expect(() => box.open(tamper(sealed, part), 'T1')).toThrow(SecretBoxError);
      expect(() => box.open(tamper(sealed, part), 'T1')).toThrow(/failed authentication/);
    }
  });

  it('refuses another team id, another key, and malformed input', () => {
    const sealed = box.seal('sk-live-1234', 'T1');
    expect(() => box.open(sealed, 'T2')).toThrow(/another workspace/);
    expect(() => new SecretBox(randomBytes(32)).open(sealed, 'T1')).toThrow(SecretBoxError);
    expect(() => box.open('sk-live-1234', 'T1')).toThrow(/malformed/);
    expect(() => box.open(sealed.replace(/^v1/, 'v2'), 'T1')).toThrow(/malformed/);
    expect(() => box.open(`${sealed}.x`, 'T1')).toThrow(/malformed/);
  });

  it('requires a 32-byte key and explains a bad SECRETS_KEY without echoing it', () => {
    expect(() => new SecretBox(randomBytes(31))).toThrow(/32 bytes/);
    expect(() => new SecretBox(randomBytes(33))).toThrow(/32 bytes/);
    const short = randomBytes(16).toString('base64');
    expect(() => decodeSecretsKey(short)).toThrow(/32 bytes, got 16/);
    try {
      decodeSecretsKey(short);
    } catch (error) {
      expect((error as Error).message).not.toContain(short);
    }
    expect(() => decodeSecretsKey('not base64 !!')).toThrow(/base64/);
    const key = randomBytes(32);
    expect(decodeSecretsKey(key.toString('base64'))).toEqual(key);
    expect(decodeSecretsKey(key.toString('base64url'))).toEqual(key);
    const fromEnv = SecretBox.fromBase64(key.toString('base64'));
    expect(new SecretBox(key).open(fromEnv.seal('x', 'T'), 'T')).toBe('x');
  });

  it('seals with the first key of a ring, opens with any, and reseals only what the first key did not seal', () => {
    const [a, b] = [randomBytes(32), randomBytes(32)];
    const old = new SecretBox(a).seal('sk-live-1234', 'T1');
    const ring = new SecretBox([b, a]);
    expect(ring.open(old, 'T1')).toBe('sk-live-1234');
    expect(() => ring.open(old, 'T2')).toThrow(/another workspace/);
    const fresh = ring.seal('sk-live-5678', 'T1');
    expect(new SecretBox(b).open(fresh, 'T1')).toBe('sk-live-5678');
    expect(() => new SecretBox(a).open(fresh, 'T1')).toThrow(SecretBoxError);

    expect(ring.reseal(fresh, 'T1')).toBeNull();
    const resealed = ring.reseal(old, 'T1');
    expect(resealed).not.toBeNull();
    expect(new SecretBox(b).open(resealed!, 'T1')).toBe('sk-live-1234');
    expect(() => new SecretBox(randomBytes(32)).reseal(old, 'T1')).toThrow(SecretBoxError);
    expect(() => new SecretBox([])).toThrow(/empty/);
  });

  it('has per-process ephemeral boxes for the in-memory mode', () => {
    const a = SecretBox.ephemeral();
    const b = SecretBox.ephemeral();
    expect(a.open(a.seal('k', 'T1'), 'T1')).toBe('k');
    expect(() => b.open(a.seal('k', 'T1'), 'T1')).toThrow(SecretBoxError);
  });

  it('does not show its key when inspected or serialized', async () => {
    const key = randomBytes(32);
    const shown =
      JSON.stringify(new SecretBox(key)) +
      (await import('node:util')).inspect(new SecretBox(key), { showHidden: true, depth: 5 });
    expect(shown).not.toContain(key.toString('hex'));
    expect(shown).not.toContain(key.toString('base64'));
  });
});

describe('secrets at rest in Redis', () => {
  it('stores neither the API key nor the hook token in plaintext anywhere under the prefix', async () => {
    const prefix = `${redis.prefix}plain:`;
    const store = createStore({ redisUrl: redis.url, secretsKey: randomBytes(32), keyPrefix: prefix });
    const canary = `CANARY-${randomBytes(8).toString('hex')}`;
    try {
      await store.workspaces.setApiKey('T1', canary, { verifiedBy: 'U1' });
      const token = await store.workspaces.createHookToken('T1');
      await store.cache.remember('T1', 'admin:U1', 60_000, () => Promise.resolve('yes'));
      expect(await store.workspaces.getApiKey('T1')).toBe(canary); // it is there, just not readable

      const keys = await redis.keys('plain:*');
      expect(keys.length).toBeGreaterThanOrEqual(2);
      const dump: string[] = [];
      for (const key of keys) {
        dump.push(key);
        const type = await redis.redis.type(key);
        if (type === 'string') dump.push((await redis.redis.get(key)) ?? '');
        else if (type === 'hash') dump.push(...Object.entries(await redis.redis.hgetall(key)).flat());
        else if (type === 'set') dump.push(...(await redis.redis.smembers(key)));
        else if (type === 'list') dump.push(...(await redis.redis.lrange(key, 0, -1)));
        else dump.push(JSON.stringify(await redis.redis.call('XRANGE', key, '-', '+')));
      }
      const everything = dump.join('\n');
      expect(everything).toContain('v1.'); // the sealed values are what is stored
      expect(everything).not.toContain(canary);
      expect(everything).not.toContain(canary.slice(0, -4)); // only last4 may be visible
      expect(everything).not.toContain(token);
    } finally {
      await store.close();
    }
  });

  it('does not start in Redis mode without a secrets key', () => {
    expect(() => createStore({ redisUrl: redis.url, keyPrefix: `${redis.prefix}nokey:` })).toThrow(/SECRETS_KEY/);
  });
});
