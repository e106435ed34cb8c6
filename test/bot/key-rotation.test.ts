/**
 * SECRETS_KEY as a key ring: the first key encrypts, every key decrypts, and `npm run rekey` re-encrypts what
 * is stored (API keys, hook tokens, Slack installations) with the first key. An operator rotates with
 * `SECRETS_KEY=B,A` on every replica, then rekey, then `SECRETS_KEY=B` — and no workspace notices.
 * The bot restarts against the same Slack stand-in, platform simulator and Redis.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRekey } from '../../src/bot/rekey.js';
import { createStore } from '../../src/store/index.js';
import { ADMIN_ID, MEMBER_ID, OAUTH_CLIENT, TEAM_ID, startHarness, type Harness } from '../support/harness.js';
import { installApp } from '../support/oauth.js';
import { requireRedis } from '../support/redis.js';
import { startRedisCluster } from '../../bench/lib/redis-cluster.js';
import { startFakePlatform, type FakePlatform } from '../fakes/platform.js';
import { startFakeSlack, type FakeSlack } from '../fakes/slack.js';

const redis = await requireRedis();
const prefix = `${redis.prefix}rotation:`;
const PUBLIC_URL = 'https://bot.example.com';
const KEY_A = randomBytes(32).toString('base64');
const KEY_B = randomBytes(32).toString('base64');
const API_KEY = 'ck_live_rotation_canary_00000000rrrr';
const CHANNEL = 'C0GENERAL01';

let slack: FakeSlack;
let platform: FakePlatform;
let botToken = '';
let hookUrl = '';
let h: Harness | undefined;
let seq = 0;

beforeAll(async () => {
  platform = await startFakePlatform();
  slack = await startFakeSlack({ teamId: TEAM_ID, oauthClient: OAUTH_CLIENT });
  platform.addApiKey(API_KEY);
});
afterAll(async () => {
  await h?.close();
  await Promise.all([slack.close(), platform.close()]);
});

/** (Re)starts the bot with this SECRETS_KEY, on the same fakes and Redis prefix. */
async function restart(secretsKey: string): Promise<Harness> {
  await h?.close();
  h = await startHarness({
    oauth: true,
    defaultApiKey: false,
    redisUrl: redis.url,
    keyPrefix: prefix,
    fakes: { slack, platform },
    env: { SECRETS_KEY: secretsKey, PUBLIC_URL },
  });
  return h;
}

async function command(bot: Harness, text: string, userId = ADMIN_ID): Promise<string> {
  const id = `rot-${++seq}`;
  const ack = await bot.signer.command({ text, userId, responseUrlId: id, channelId: CHANNEL });
  expect(ack.status).toBe(200);
  const answer = await slack.waitFor(() => slack.responses.find((r) => r.id === id));
  expect(answer.status).toBe(200);
  return JSON.stringify(answer.body);
}

/** What a workspace notices: its key reaches the platform, its bot token reaches Slack, its hook is recognised. */
async function expectWorkspaceWorks(bot: Harness): Promise<void> {
  platform.reset();
  slack.reset();
  expect(await command(bot, 'quota', MEMBER_ID)).not.toContain('not connected');
  expect(platform.requests.map((r) => [r.path, r.headers['api-key']])).toEqual([['/customer-quota', API_KEY]]);
  expect(await command(bot, 'subscriptions camp-1')).toContain('this workspace’s hook');
  expect(await command(bot, 'subscribe camp-2 call_started')).not.toContain('❌');
  const announced = slack.callsTo('chat.postMessage');
  expect(announced.map((c) => [c.token, c.response.ok])).toEqual([[botToken, true]]);
  expect(platform.requests.find((r) => r.path === '/events-gateway/trigger/subscribe')?.body).toMatchObject({
    hookUrl,
  });
  await command(bot, 'unsubscribe camp-2 call_started');
}

async function storedValues(): Promise<string> {
  const out: string[] = [];
  for (const key of await redis.keys('rotation:*')) {
    const type = await redis.redis.type(key);
    if (type === 'string') out.push((await redis.redis.get(key)) ?? '');
    else if (type === 'hash') out.push(...Object.values(await redis.redis.hgetall(key)));
  }
  return out.join('\n');
}

async function opensWith(secretsKey: string): Promise<boolean> {
  const store = createStore({ redisUrl: redis.url, secretsKey: Buffer.from(secretsKey, 'base64'), keyPrefix: prefix });
  try {
    return (
      (await store.workspaces.getApiKey(TEAM_ID)) === API_KEY &&
      (await store.installations.botToken(TEAM_ID)) === botToken
    );
  } catch {
    return false;
  } finally {
    await store.close();
  }
}

describe('rotating SECRETS_KEY', () => {
  it('stores a workspace’s secrets with key A', async () => {
    const bot = await restart(KEY_A);
    botToken = await installApp(bot, TEAM_ID);
    await bot.signer.command({ text: 'connect', userId: ADMIN_ID, responseUrlId: 'rot-connect' });
    await slack.waitFor(() => slack.views('connect_modal').length > 0);
    const res = await bot.signer.viewSubmission({
      callbackId: 'connect_modal',
      userId: ADMIN_ID,
      values: { api_key: { value: { type: 'plain_text_input', value: API_KEY } } },
    });
    expect(res.status).toBe(200);
    await slack.waitFor(() => slack.responses.find((r) => r.id === 'rot-connect'));
    expect(await command(bot, 'subscribe camp-1 call_completed')).not.toContain('❌');
    hookUrl = String(
      (platform.requests.find((r) => r.path === '/events-gateway/trigger/subscribe')?.body as { hookUrl?: string })
        ?.hookUrl,
    );
    expect(hookUrl).toMatch(/^https:\/\/bot\.example\.com\/hooks\/[A-Za-z0-9_-]{43}$/);
    await expectWorkspaceWorks(bot);
  });

  it('still reads them after a restart with "B,A"', async () => {
    await expectWorkspaceWorks(await restart(`${KEY_B},${KEY_A}`));
    expect(await opensWith(KEY_B)).toBe(false); // nothing is sealed with B yet
  });

  it('rekey re-encrypts the API key, hook token and installation with B, printing counts and never a value', async () => {
    const lines: string[] = [];
    const code = await runRekey({ ...h!.env, SECRETS_KEY: `${KEY_B},${KEY_A}` }, (line) => lines.push(line), {
      keyPrefix: prefix,
    });
    const out = lines.join('\n');
    expect(code, out).toBe(0);
    expect(out).toBe(
      'rekey: rewrote 3 secrets with the first of 2 SECRETS_KEY keys (API keys: 1, hook tokens: 1, installations: 1); 0 already current.',
    );
    for (const secret of [API_KEY, botToken, hookUrl.split('/').at(-1)!, KEY_A, KEY_B])
      expect(out).not.toContain(secret);
    expect(await opensWith(KEY_B)).toBe(true);
    expect(await opensWith(KEY_A)).toBe(false);

    const again: string[] = [];
    expect(
      await runRekey({ ...h!.env, SECRETS_KEY: `${KEY_B},${KEY_A}` }, (line) => again.push(line), {
        keyPrefix: prefix,
      }),
    ).toBe(0);
    expect(again.join('\n')).toBe('rekey: rewrote 0 secrets with the first of 2 SECRETS_KEY keys; 3 already current.');
  });

  it('still reads them after a restart with "B" alone, and nothing is stored in plaintext', async () => {
    await expectWorkspaceWorks(await restart(KEY_B));
    const stored = await storedValues();
    expect(stored).toContain('v1.');
    for (const secret of [API_KEY, botToken, hookUrl.split('/').at(-1)!]) expect(stored).not.toContain(secret);
  });

  it('says which stored value no key opens, leaves it as is and exits 1', async () => {
    const stray = randomBytes(32).toString('base64');
    const lines: string[] = [];
    const code = await runRekey({ ...h!.env, SECRETS_KEY: stray }, (line) => lines.push(line), { keyPrefix: prefix });
    expect(code).toBe(1);
    expect(lines[0]).toBe('rekey: rewrote 0 secrets with the first of 1 SECRETS_KEY key; 0 already current.');
    expect(lines.slice(1).every((l) => l.startsWith('  opens with no key of SECRETS_KEY'))).toBe(true);
    expect(lines).toHaveLength(4);
    expect(await opensWith(KEY_B)).toBe(true);
  });
});

describe('npm run rekey', () => {
  it('refuses to run without the Redis the bot stores its secrets in, naming the variable only', async () => {
    const secretsKey = randomBytes(32).toString('base64');
    const env = {
      PATH: process.env.PATH ?? '',
      SLACK_BOT_TOKEN: 'xoxb-rekey-canary-0123456789',
      SLACK_SIGNING_SECRET: 'rekey-signing-canary-0123',
      CAMPAIGN_API_URL: 'https://platform.example/v1/api',
      SECRETS_KEY: secretsKey,
    };
    const err = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/bot/rekey.ts'], {
      env,
      cwd: process.cwd(),
      timeout: 20_000,
    }).then(
      () => undefined,
      (e: unknown) => e as { code: number; stdout: string; stderr: string },
    );
    expect(err?.code).toBe(1);
    expect(err?.stdout).toContain('REDIS_URL: required');
    for (const value of [env.SLACK_BOT_TOKEN, env.SLACK_SIGNING_SECRET, secretsKey])
      expect(`${err?.stdout}${err?.stderr}`).not.toContain(value);
  });
});

describe('npm run rekey on a Redis Cluster', () => {
  it('re-encrypts what the bot stored there with the first key of the ring', async () => {
    const cluster = await startRedisCluster();
    try {
      const clusterPrefix = `${redis.prefix}rotation-cluster:`;
      const where = { redisCluster: { nodes: cluster.seeds }, keyPrefix: clusterPrefix };
      const before = createStore({ ...where, secretsKey: Buffer.from(KEY_A, 'base64') });
      await before.workspaces.setApiKey(TEAM_ID, API_KEY, { verifiedBy: ADMIN_ID });
      await before.close();

      const lines: string[] = [];
      const env = {
        SLACK_BOT_TOKEN: 'xoxb-rekey-cluster-0123456789',
        SLACK_SIGNING_SECRET: 'rekey-signing-cluster-0123',
        CAMPAIGN_API_URL: 'https://platform.example/v1/api',
        REDIS_CLUSTER_NODES: cluster.spec,
        SECRETS_KEY: `${KEY_B},${KEY_A}`,
      };
      const code = await runRekey(env, (line) => lines.push(line), { keyPrefix: clusterPrefix });
      expect(code, lines.join('\n')).toBe(0);

      const after = createStore({ ...where, secretsKey: Buffer.from(KEY_B, 'base64') });
      try {
        expect(await after.workspaces.getApiKey(TEAM_ID)).toBe(API_KEY);
      } finally {
        await after.close();
      }
    } finally {
      await cluster.close();
    }
  }, 30_000);
});
