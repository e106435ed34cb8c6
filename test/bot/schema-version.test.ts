/**
 * The store's schema version, claimed when the bot starts: a fresh store gets this code's version, and a store
 * written by a newer version stops the start with one sentence (`npm start` prints it and exits).
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createBot } from '../../src/bot/compose.js';
import { parseConfig } from '../../src/config.js';
import { createKeys, STORE_SCHEMA_VERSION } from '../../src/store/index.js';
import { requireRedis } from '../support/redis.js';

const redis = await requireRedis();

function botOn(keyPrefix: string) {
  const parsed = parseConfig({
    SLACK_BOT_TOKEN: 'xoxb-1-2-abc',
    SLACK_SIGNING_SECRET: 'signing-secret-value',
    CAMPAIGN_API_URL: 'http://127.0.0.1:1/v1/api',
    REDIS_URL: redis.url,
    SECRETS_KEY: randomBytes(32).toString('base64'),
    PORT: '0',
    LOG_LEVEL: 'error',
  });
  if (!parsed.ok) throw new Error(parsed.problems.join('; '));
  const discard = new Writable({ write: (_chunk, _encoding, done) => done() });
  return createBot(parsed.config, { keyPrefix, logDestination: discard });
}

describe('store schema version', () => {
  it('writes this version into a store that has none, and starts', async () => {
    const prefix = `${redis.prefix}fresh:`;
    const bot = botOn(prefix);
    await bot.start();
    await bot.stop();
    expect(await redis.redis.get(createKeys(prefix).schemaVersion())).toBe(String(STORE_SCHEMA_VERSION));
  });

  it('refuses to start on a store of a newer version, saying what to do, and leaves the store as it was', async () => {
    const prefix = `${redis.prefix}newer:`;
    const key = createKeys(prefix).schemaVersion();
    await redis.redis.set(key, String(STORE_SCHEMA_VERSION + 1));
    await expect(botOn(prefix).start()).rejects.toThrow(
      `the store holds data of schema version ${STORE_SCHEMA_VERSION + 1}, newer than this version of the bot reads (${STORE_SCHEMA_VERSION}): deploy the newer version of the bot, or point it at another store`,
    );
    expect(await redis.redis.get(key)).toBe(String(STORE_SCHEMA_VERSION + 1));
  });
});
