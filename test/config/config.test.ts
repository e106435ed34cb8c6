import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { isUnconfigured, parseConfig } from '../../src/config.js';

const run = promisify(execFile);

const minimal = {
  SLACK_BOT_TOKEN: 'xoxb-1-abcdefabcdef',
  SLACK_SIGNING_SECRET: 'signing-secret-value',
  CAMPAIGN_API_URL: 'https://platform.example/v1/api/',
};

describe('parseConfig', () => {
  it('accepts a minimal single-workspace HTTP setup and applies defaults', () => {
    const r = parseConfig(minimal);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.config.slack.mode).toEqual({ kind: 'single', botToken: minimal.SLACK_BOT_TOKEN });
    expect(r.config.slack.apiUrl).toBe('https://slack.com/api/');
    expect(r.config.campaign.apiUrl).toBe('https://platform.example/v1/api');
    expect(r.config.port).toBe(3000);
    expect(r.config.logLevel).toBe('info');
    expect(r.config.redisUrl).toBeUndefined();
  });

  it('lists one line per problem, naming the variable and never its value', () => {
    const secret = 'super-secret-signing-value-123';
    const r = parseConfig({
      SLACK_SIGNING_SECRET: secret,
      SLACK_BOT_TOKEN: 'not-a-bot-token-secret-999',
      PORT: 'eighty',
      REDIS_URL: 'redis://127.0.0.1:6379',
      LOG_LEVEL: 'loud',
      PUBLIC_URL: 'http://insecure.example',
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const text = r.problems.join('\n');
    expect(r.problems.map((p) => p.split(':')[0]).sort()).toEqual(['CAMPAIGN_API_URL', 'LOG_LEVEL', 'PORT', 'PUBLIC_URL', 'SECRETS_KEY', 'SLACK_BOT_TOKEN']);
    expect(text).not.toContain(secret);
    expect(text).not.toContain('not-a-bot-token-secret-999');
    expect(text).not.toContain('eighty');
  });

  it('requires the platform URL, a signing secret in HTTP mode and a secrets key with Redis', () => {
    const r = parseConfig({ SLACK_BOT_TOKEN: 'xoxb-1-abc', REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems.map((p) => p.split(':')[0]).sort()).toEqual(['CAMPAIGN_API_URL', 'SECRETS_KEY', 'SLACK_SIGNING_SECRET']);
  });

  it('takes Socket Mode without a signing secret', () => {
    const r = parseConfig({ SLACK_BOT_TOKEN: 'xoxb-1-abc', SLACK_APP_TOKEN: 'xapp-1-abc', CAMPAIGN_API_URL: 'http://127.0.0.1:9/v1/api' });
    expect(r.ok && r.config.slack.appToken).toBe('xapp-1-abc');
  });

  it('requires all three OAuth values together, and not with a bot token', () => {
    const partial = parseConfig({ ...minimal, SLACK_BOT_TOKEN: undefined, SLACK_CLIENT_ID: '123.456' });
    expect(partial.ok).toBe(false);
    if (!partial.ok) expect(partial.problems.map((p) => p.split(':')[0]).sort()).toEqual(['SLACK_CLIENT_SECRET', 'SLACK_STATE_SECRET']);
    const both = parseConfig({ ...minimal, SLACK_CLIENT_ID: 'a', SLACK_CLIENT_SECRET: 'b', SLACK_STATE_SECRET: 'c' });
    expect(both.ok).toBe(false);
  });

  it('decodes a 32-byte base64 SECRETS_KEY and rejects other lengths', () => {
    const key = randomBytes(32);
    const good = parseConfig({ ...minimal, REDIS_URL: 'redis://127.0.0.1:6379', SECRETS_KEY: key.toString('base64') });
    expect(good.ok && good.config.secretsKey?.equals(key)).toBe(true);
    const bad = parseConfig({ ...minimal, SECRETS_KEY: randomBytes(16).toString('base64') });
    expect(bad.ok).toBe(false);
  });

  it('parses ADMIN_USER_IDS and treats empty values as unset', () => {
    const r = parseConfig({ ...minimal, ADMIN_USER_IDS: 'U01ABC, W02DEF ,', PORT: '' });
    expect(r.ok && r.config.adminUserIds).toEqual(['U01ABC', 'W02DEF']);
    expect(r.ok && r.config.port).toBe(3000);
    expect(parseConfig({ ...minimal, ADMIN_USER_IDS: 'alice' }).ok).toBe(false);
  });

  it('caps each workspace’s webhook backlog and keeps a rotated-out hook token for a grace period', () => {
    const defaults = parseConfig(minimal);
    expect(defaults.ok && defaults.config.hooks).toEqual({ maxBacklog: 100_000, tokenGraceS: 600 });
    const set = parseConfig({ ...minimal, HOOK_MAX_BACKLOG: '500', HOOK_TOKEN_GRACE_S: '0' });
    expect(set.ok && set.config.hooks).toEqual({ maxBacklog: 500, tokenGraceS: 0 });
    const bad = parseConfig({ ...minimal, HOOK_MAX_BACKLOG: '0', HOOK_TOKEN_GRACE_S: 'ten minutes' });
    expect(bad.ok ? [] : bad.problems).toEqual(['HOOK_MAX_BACKLOG: must be at least 1', 'HOOK_TOKEN_GRACE_S: must be a whole number']);
  });

  it('knows when nothing at all is configured', () => {
    expect(isUnconfigured({})).toBe(true);
    expect(isUnconfigured({ PORT: '3000', LOG_LEVEL: 'debug' })).toBe(true);
    expect(isUnconfigured({ CAMPAIGN_API_URL: 'http://x' })).toBe(false);
  });
});

describe('npm start with a bad environment', () => {
  it('exits non-zero listing the problems without printing secret values', async () => {
    const secret = 'xoxb-canary-0123456789-SECRET';
    const env = { PATH: process.env.PATH ?? '', SLACK_BOT_TOKEN: secret, SLACK_SIGNING_SECRET: '', PORT: '99999' };
    const err = await run(process.execPath, ['--import', 'tsx', 'src/bot/main.ts'], { env, cwd: process.cwd() }).then(
      () => undefined,
      (e: unknown) => e as { code: number; stderr: string },
    );
    expect(err?.code).toBe(1);
    expect(err?.stderr).toContain('SLACK_SIGNING_SECRET');
    expect(err?.stderr).toContain('CAMPAIGN_API_URL');
    expect(err?.stderr).toContain('PORT');
    expect(err?.stderr).not.toContain(secret);
  });
});
