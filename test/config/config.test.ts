import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { isUnconfigured, parseConfig } from '../../src/config.js';

const run = promisify(execFile);
const STATE_SECRET = 'state-secret-0123456789abcdef-0123456789';

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
    expect(r.problems.map((p) => p.split(':')[0]).sort()).toEqual([
      'CAMPAIGN_API_URL',
      'LOG_LEVEL',
      'PORT',
      'PUBLIC_URL',
      'SECRETS_KEY',
      'SLACK_BOT_TOKEN',
    ]);
    expect(text).not.toContain(secret);
    expect(text).not.toContain('not-a-bot-token-secret-999');
    expect(text).not.toContain('eighty');
  });

  it('requires the platform URL, a signing secret in HTTP mode and a secrets key with Redis', () => {
    const r = parseConfig({ SLACK_BOT_TOKEN: 'xoxb-1-abc', REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems.map((p) => p.split(':')[0]).sort()).toEqual([
      'CAMPAIGN_API_URL',
      'SECRETS_KEY',
      'SLACK_SIGNING_SECRET',
    ]);
  });

  it('takes Socket Mode without a signing secret', () => {
    const r = parseConfig({
      SLACK_BOT_TOKEN: 'xoxb-1-abc',
      SLACK_APP_TOKEN: 'xapp-1-abc',
      CAMPAIGN_API_URL: 'http://127.0.0.1:9/v1/api',
    });
    expect(r.ok && r.config.slack.appToken).toBe('xapp-1-abc');
  });

  it('requires all three OAuth values together, and not with a bot token', () => {
    const partial = parseConfig({ ...minimal, SLACK_BOT_TOKEN: undefined, SLACK_CLIENT_ID: '123.456' });
    expect(partial.ok).toBe(false);
    if (!partial.ok)
      expect(partial.problems.map((p) => p.split(':')[0]).sort()).toEqual([
        'SLACK_CLIENT_SECRET',
        'SLACK_STATE_SECRET',
      ]);
    const both = parseConfig({
      ...minimal,
      SLACK_CLIENT_ID: 'a',
      SLACK_CLIENT_SECRET: 'b',
      SLACK_STATE_SECRET: STATE_SECRET,
    });
    expect(both.ok).toBe(false);
  });

  it('decodes a 32-byte base64 SECRETS_KEY and rejects other lengths', () => {
    const key = randomBytes(32);
    const good = parseConfig({ ...minimal, REDIS_URL: 'redis://127.0.0.1:6379', SECRETS_KEY: key.toString('base64') });
    expect(good.ok && good.config.secretsKeys).toEqual([key]);
    const bad = parseConfig({ ...minimal, SECRETS_KEY: randomBytes(16).toString('base64') });
    expect(bad.ok).toBe(false);
  });

  it('takes SECRETS_KEY as a comma-separated ring, first key first, and names a bad key by position only', () => {
    const [a, b] = [randomBytes(32), randomBytes(32)];
    const ring = parseConfig({ ...minimal, SECRETS_KEY: `${b.toString('base64')}, ${a.toString('base64url')}` });
    expect(ring.ok && ring.config.secretsKeys).toEqual([b, a]);
    const short = randomBytes(16).toString('base64');
    const bad = parseConfig({ ...minimal, SECRETS_KEY: `${b.toString('base64')},${short}` });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.problems).toHaveLength(1);
    expect(bad.problems[0]).toMatch(/^SECRETS_KEY: key 2 of 2 must be 32 bytes/);
    expect(bad.problems[0]).not.toContain(short);
    expect(bad.problems[0]).not.toContain(b.toString('base64'));
  });

  it('requires CAMPAIGN_API_KEY_TEAM with CAMPAIGN_API_KEY in OAuth mode only', () => {
    const oauth = {
      ...minimal,
      SLACK_BOT_TOKEN: undefined,
      SLACK_CLIENT_ID: '123.456',
      SLACK_CLIENT_SECRET: 'client-secret-value',
      SLACK_STATE_SECRET: STATE_SECRET,
    };
    const apiKey = 'ck_live_operator_key_0000000000001111';
    const missing = parseConfig({ ...oauth, CAMPAIGN_API_KEY: apiKey });
    expect(missing.ok).toBe(false);
    if (!missing.ok) {
      expect(missing.problems).toHaveLength(1);
      expect(missing.problems[0]).toMatch(/^CAMPAIGN_API_KEY_TEAM: required with CAMPAIGN_API_KEY in OAuth mode/);
      expect(missing.problems[0]).not.toContain(apiKey);
    }
    const scoped = parseConfig({ ...oauth, CAMPAIGN_API_KEY: apiKey, CAMPAIGN_API_KEY_TEAM: 'T0OWNER01' });
    expect(scoped.ok && scoped.config.campaign).toMatchObject({ apiKey, apiKeyTeam: 'T0OWNER01' });
    expect(parseConfig(oauth).ok).toBe(true); // no default key at all: every workspace connects its own
    expect(parseConfig({ ...minimal, CAMPAIGN_API_KEY: apiKey }).ok).toBe(true); // single workspace: as before
    expect(parseConfig({ ...oauth, CAMPAIGN_API_KEY: apiKey, CAMPAIGN_API_KEY_TEAM: 'acme' }).ok).toBe(false);
    expect(parseConfig({ ...oauth, CAMPAIGN_API_KEY_TEAM: 'T0OWNER01' }).ok).toBe(false);
  });

  it('derives the Slack Web API from SLACK_DOMAIN (GovSlack), unless SLACK_API_URL says otherwise', () => {
    const slackOf = (env: Record<string, string>) => {
      const r = parseConfig({ ...minimal, ...env });
      if (!r.ok) throw new Error(r.problems.join('; '));
      return r.config.slack;
    };
    expect(slackOf({})).toMatchObject({ domain: 'slack.com', apiUrl: 'https://slack.com/api/' });
    expect(slackOf({ SLACK_DOMAIN: 'Slack-Gov.com' })).toMatchObject({
      domain: 'slack-gov.com',
      apiUrl: 'https://slack-gov.com/api/',
    });
    expect(slackOf({ SLACK_DOMAIN: 'slack-gov.com', SLACK_API_URL: 'http://127.0.0.1:9/api' }).apiUrl).toBe(
      'http://127.0.0.1:9/api/',
    );
    for (const bad of ['https://slack-gov.com', 'slack', 'slack-gov.com/api']) {
      const r = parseConfig({ ...minimal, SLACK_DOMAIN: bad });
      expect(r.ok, bad).toBe(false);
      if (!r.ok) expect(r.problems.map((p) => p.split(':')[0])).toEqual(['SLACK_DOMAIN']);
    }
  });

  it('refuses a plain-http platform or Slack URL unless it is loopback', () => {
    for (const url of [
      'http://platform.example/v1/api',
      'http://10.0.0.5:8080/v1/api',
      'http://127.0.0.1.nip.io/v1/api',
      'ftp://platform.example/v1/api',
    ]) {
      const r = parseConfig({ ...minimal, CAMPAIGN_API_URL: url, SLACK_API_URL: url.replace('/v1/api', '/api/') });
      expect(r.ok, url).toBe(false);
      if (!r.ok) expect(r.problems.map((p) => p.split(':')[0]).sort()).toEqual(['CAMPAIGN_API_URL', 'SLACK_API_URL']);
    }
    for (const url of [
      'http://127.0.0.1:9/v1/api',
      'http://127.3.2.1/v1/api',
      'http://localhost:8080/v1/api',
      'http://[::1]:9/v1/api',
      'https://platform.example/v1/api',
    ]) {
      expect(parseConfig({ ...minimal, CAMPAIGN_API_URL: url }).ok, url).toBe(true);
    }
  });

  it('wants a state secret of at least 32 characters and a metrics token of at least 16', () => {
    const oauth = {
      ...minimal,
      SLACK_BOT_TOKEN: undefined,
      SLACK_CLIENT_ID: '123.456',
      SLACK_CLIENT_SECRET: 'client-secret-value',
    };
    const short = parseConfig({ ...oauth, SLACK_STATE_SECRET: 'x'.repeat(31) });
    expect(!short.ok && short.problems).toEqual([
      'SLACK_STATE_SECRET: must have at least 32 characters (e.g. `openssl rand -hex 32`)',
    ]);
    expect(parseConfig({ ...oauth, SLACK_STATE_SECRET: 'x'.repeat(32) }).ok).toBe(true);
    expect(parseConfig({ ...minimal, METRICS_TOKEN: 'short' }).ok).toBe(false);
    const metrics = parseConfig({ ...minimal, METRICS_TOKEN: 'metrics-token-0123456789' });
    expect(metrics.ok && metrics.config.metricsToken).toBe('metrics-token-0123456789');
  });

  it('parses OPS_PORT apart from PORT, and TRUSTED_PROXIES as addresses and CIDR ranges', () => {
    const ops = parseConfig({ ...minimal, PORT: '3000', OPS_PORT: '9090' });
    expect(ops.ok && ops.config.opsPort).toBe(9090);
    expect(parseConfig({ ...minimal, OPS_PORT: '3000' })).toEqual({
      ok: false,
      problems: ['OPS_PORT: must differ from PORT (it keeps /healthz, /readyz and /metrics off the public port)'],
    });
    expect(parseConfig({ ...minimal, PORT: '0', OPS_PORT: '0' }).ok).toBe(true);
    const proxies = parseConfig({ ...minimal, TRUSTED_PROXIES: '10.0.0.7, 10.244.0.0/16,fd00::/8' });
    expect(proxies.ok && proxies.config.trustedProxies).toEqual(['10.0.0.7', '10.244.0.0/16', 'fd00::/8']);
    for (const bad of ['ingress-nginx', '10.0.0.0/33', '10.0.0.0/8/1', '*']) {
      expect(parseConfig({ ...minimal, TRUSTED_PROXIES: bad }), bad).toEqual({
        ok: false,
        problems: ['TRUSTED_PROXIES: must be IP addresses or CIDR ranges, comma-separated'],
      });
    }
  });

  it('parses ADMIN_USER_IDS and treats empty values as unset', () => {
    const r = parseConfig({ ...minimal, ADMIN_USER_IDS: 'U01ABC, W02DEF ,T0TEAM1:U03GHI', PORT: '' });
    expect(r.ok && r.config.adminUsers).toEqual([
      { userId: 'U01ABC' },
      { userId: 'W02DEF' },
      { teamId: 'T0TEAM1', userId: 'U03GHI' },
    ]);
    expect(r.ok && r.config.port).toBe(3000);
    expect(parseConfig({ ...minimal, ADMIN_USER_IDS: 'alice' }).ok).toBe(false);
    expect(parseConfig({ ...minimal, ADMIN_USER_IDS: 'U01ABC:T0TEAM1' }).ok).toBe(false);
  });

  it('takes ADMIN_USER_IDS only as TEAMID:USERID pairs in OAuth mode, and lists bare ids without their values', () => {
    const oauth = {
      ...minimal,
      SLACK_BOT_TOKEN: undefined,
      SLACK_CLIENT_ID: '123.456',
      SLACK_CLIENT_SECRET: 'client-secret-value',
      SLACK_STATE_SECRET: STATE_SECRET,
    };
    // A bare id would be an admin of every workspace that installs the app.
    const bare = parseConfig({ ...oauth, ADMIN_USER_IDS: 'T0TEAM1:U01ABC,U0BARE01,W0BARE02' });
    expect(bare.ok ? [] : bare.problems).toEqual([
      'ADMIN_USER_IDS: in OAuth mode each entry names its workspace, TEAMID:USERID (e.g. T0123ABC:U0456DEF); 2 of 3 do not',
    ]);
    const pairs = parseConfig({ ...oauth, ADMIN_USER_IDS: 'T0TEAM1:U01ABC,T0TEAM2:U01ABC' });
    expect(pairs.ok && pairs.config.adminUsers).toEqual([
      { teamId: 'T0TEAM1', userId: 'U01ABC' },
      { teamId: 'T0TEAM2', userId: 'U01ABC' },
    ]);
    // Reported with the other problems when something else is wrong too.
    const both = parseConfig({ ...oauth, ADMIN_USER_IDS: 'U0BARE01', PORT: 'eighty' });
    expect(both.ok ? [] : both.problems.map((p) => p.split(':')[0]).sort()).toEqual(['ADMIN_USER_IDS', 'PORT']);
    expect(JSON.stringify(both)).not.toContain('U0BARE01');
  });

  it('caps each workspace’s webhook backlog in events and in megabytes, and keeps a rotated-out hook token for a grace period', () => {
    const defaults = parseConfig(minimal);
    expect(defaults.ok && defaults.config.hooks).toEqual({
      maxBacklog: 20_000,
      maxBacklogBytes: 64 * 1024 * 1024,
      tokenGraceS: 600,
    });
    const set = parseConfig({ ...minimal, HOOK_MAX_BACKLOG: '500', HOOK_MAX_BACKLOG_MB: '2', HOOK_TOKEN_GRACE_S: '0' });
    expect(set.ok && set.config.hooks).toEqual({ maxBacklog: 500, maxBacklogBytes: 2 * 1024 * 1024, tokenGraceS: 0 });
    const bad = parseConfig({
      ...minimal,
      HOOK_MAX_BACKLOG: '0',
      HOOK_MAX_BACKLOG_MB: '1.5',
      HOOK_TOKEN_GRACE_S: 'ten minutes',
    });
    expect(bad.ok ? [] : bad.problems).toEqual([
      'HOOK_MAX_BACKLOG: must be at least 1',
      'HOOK_MAX_BACKLOG_MB: must be a whole number',
      'HOOK_TOKEN_GRACE_S: must be a whole number',
    ]);
  });

  it('checks quota alerts every QUOTA_CHECK_S seconds, 900 by default, at least a minute', () => {
    expect(parseConfig(minimal).ok && parseConfig(minimal)).toMatchObject({ config: { quotaCheckS: 900 } });
    expect(parseConfig({ ...minimal, QUOTA_CHECK_S: '300' })).toMatchObject({ config: { quotaCheckS: 300 } });
    const bad = parseConfig({ ...minimal, QUOTA_CHECK_S: '5' });
    expect(bad.ok ? [] : bad.problems).toEqual(['QUOTA_CHECK_S: must be at least 60']);
  });

  it('holds handoff customers to HANDOFF_SLA_S seconds (default 5 minutes)', () => {
    const defaults = parseConfig(minimal);
    expect(defaults.ok && defaults.config.handoff.slaS).toBe(300);
    const set = parseConfig({ ...minimal, HANDOFF_SLA_S: '90' });
    expect(set.ok && set.config.handoff.slaS).toBe(90);
    const bad = parseConfig({ ...minimal, HANDOFF_SLA_S: '0' });
    expect(bad.ok ? [] : bad.problems).toEqual(['HANDOFF_SLA_S: must be at least 1']);
  });

  it('keeps conversations CONVERSATION_RETENTION_DAYS after their last activity (default 30, 1 to 3650)', () => {
    const defaults = parseConfig(minimal);
    expect(defaults.ok && defaults.config.handoff.retentionDays).toBe(30);
    const set = parseConfig({ ...minimal, CONVERSATION_RETENTION_DAYS: '7' });
    expect(set.ok && set.config.handoff.retentionDays).toBe(7);
    for (const [value, problem] of [
      ['0', 'must be at least 1'],
      ['3651', 'must be at most 3650 (ten years)'],
      ['2 weeks', 'must be a whole number'],
    ] as const) {
      const bad = parseConfig({ ...minimal, CONVERSATION_RETENTION_DAYS: value });
      expect(bad.ok ? [] : bad.problems).toEqual([`CONVERSATION_RETENTION_DAYS: ${problem}`]);
    }
  });

  it('copies recordings from public https hosts and RECORDING_HOSTS, at most RECORDING_MAX_MB (default 50)', () => {
    const defaults = parseConfig(minimal);
    expect(defaults.ok && defaults.config.recordings).toEqual({ hosts: [], maxBytes: 50 * 1024 * 1024 });
    const off = parseConfig({ ...minimal, RECORDING_HOSTS: 'off' });
    expect(off.ok && off.config.recordings.hosts).toBe('off');
    const listed = parseConfig({
      ...minimal,
      RECORDING_HOSTS: 'Recordings.Internal, 10.0.0.5:8080,[::1]:9000',
      RECORDING_MAX_MB: '200',
    });
    expect(listed.ok && listed.config.recordings).toEqual({
      hosts: [
        { hostname: 'recordings.internal' },
        { hostname: '10.0.0.5', port: 8080 },
        { hostname: '[::1]', port: 9000 },
      ],
      maxBytes: 200 * 1024 * 1024,
    });
    const bad = parseConfig({ ...minimal, RECORDING_HOSTS: 'https://recordings.internal/x', RECORDING_MAX_MB: '2000' });
    expect(bad.ok ? [] : bad.problems).toEqual([
      'RECORDING_HOSTS: must be `off` or host[:port] entries, comma-separated',
      'RECORDING_MAX_MB: must be at most 1000',
    ]);
    expect(bad.ok ? '' : bad.problems.join('\n')).not.toContain('recordings.internal');
  });

  it('keeps a file link sent to a customer working ATTACHMENT_TTL_S seconds (default a day, at most 30 days)', () => {
    const defaults = parseConfig(minimal);
    expect(defaults.ok && defaults.config.attachments).toEqual({ ttlS: 86_400 });
    const set = parseConfig({ ...minimal, ATTACHMENT_TTL_S: '3600' });
    expect(set.ok && set.config.attachments.ttlS).toBe(3600);
    for (const [value, problem] of [
      ['0', 'must be at least 1'],
      ['2592001', 'must be at most 2592000 (30 days)'],
      ['1d', 'must be a whole number'],
    ] as const) {
      const bad = parseConfig({ ...minimal, ATTACHMENT_TTL_S: value });
      expect(bad.ok ? [] : bad.problems).toEqual([`ATTACHMENT_TTL_S: ${problem}`]);
    }
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

  it('refuses OAuth mode with CAMPAIGN_API_KEY but no CAMPAIGN_API_KEY_TEAM, in one line naming both', async () => {
    const apiKey = 'ck_live_OPERATOR_CANARY_0123456789';
    const env = {
      PATH: process.env.PATH ?? '',
      SLACK_CLIENT_ID: '123.456',
      SLACK_CLIENT_SECRET: 'client-secret-canary-0123',
      SLACK_STATE_SECRET: STATE_SECRET,
      SLACK_SIGNING_SECRET: 'signing-secret-canary-0123',
      CAMPAIGN_API_URL: 'https://platform.example/v1/api',
      CAMPAIGN_API_KEY: apiKey,
      PORT: '0',
    };
    const err = await run(process.execPath, ['--import', 'tsx', 'src/bot/main.ts'], {
      env,
      cwd: process.cwd(),
      timeout: 20_000,
    }).then(
      () => undefined,
      (e: unknown) => e as { code: number; stderr: string },
    );
    expect(err?.code).toBe(1);
    const lines = (err?.stderr ?? '').split('\n').filter((l) => l.startsWith('  - '));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('CAMPAIGN_API_KEY_TEAM');
    expect(lines[0]).toContain('CAMPAIGN_API_KEY ');
    for (const value of Object.values(env).slice(1)) if (value.length > 3) expect(err?.stderr).not.toContain(value);
  });
});
