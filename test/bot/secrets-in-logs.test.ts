/**
 * The canary-secret sweep: secrets pushed through error paths must appear in no log line, in nothing
 * Slack receives, and in no Redis value in plaintext.
 */
import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redactor, createLogger } from '../../src/logger.js';
import {
  ADMIN_ID,
  MEMBER_ID,
  OAUTH_CLIENT,
  SIGNING_SECRET,
  STATE_SECRET,
  TEAM_ID,
  startHarness,
  type Harness,
  useHarness,
} from '../support/harness.js';
import { installApp } from '../support/oauth.js';
import { requireRedis } from '../support/redis.js';
import { CALL_COMPLETED_FULL } from '../events/fixtures.js';
import { deliver, FAST_WORKER, localHookUrl } from '../events/support.js';

const redis = await requireRedis();

const CANARY_KEY = 'ck_live_CANARYKEY_0000111122223333';
const WRONG_KEY = 'ck_live_WRONGCANARY_999988887777';

describe('Redactor', () => {
  it('masks registered secrets and token-shaped strings anywhere in a line', () => {
    const r = new Redactor();
    r.addSecret('my-very-secret-value');
    expect(r.redact('x my-very-secret-value y')).toBe('x [redacted…alue] y');
    expect(r.redact('token xoxb-123-456-abcdef and xapp-1-A1-xyz123, xwfp-1234-abcdef')).toBe(
      'token xoxb-[redacted] and xapp-[redacted], xwfp-[redacted]',
    );
    expect(r.redactValue({ nested: [{ err: new Error('failed with my-very-secret-value') }] })).toMatchObject({
      nested: [{ err: { message: 'failed with [redacted…alue]' } }],
    });
  });

  it('redacts pino messages, merged objects and secret-named fields', () => {
    const r = new Redactor();
    r.addSecret('s3cr3t-s3cr3t');
    const out = new PassThrough();
    const lines: string[] = [];
    out.on('data', (c: Buffer) => lines.push(c.toString()));
    const logger = createLogger({ level: 'info', redactor: r, destination: out });
    logger.info({ apiKey: 'whatever-it-is', detail: 'has s3cr3t-s3cr3t inside' }, 'message with s3cr3t-s3cr3t');
    // Secret-named fields deeper down, and in a child's bindings, are censored too.
    logger
      .child({ token: 'bound-token-value', team: 'T1', note: 'bound s3cr3t-s3cr3t', slack: { botToken: 'nested-bot' } })
      .child({ headers: { authorization: 'Bearer grandchild' } })
      .warn({ request: { headers: { authorization: 'Bearer abc', 'api-key': 'key-value' } }, ok: 1 }, 'child line');
    const text = lines.join('');
    const secrets = ['s3cr3t-s3cr3t', 'whatever-it-is', 'bound-token-value', 'nested-bot', 'Bearer', 'key-value'];
    for (const secret of secrets) expect(text).not.toContain(secret);
    const [first, second] = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(first).toMatchObject({ level: 'info', apiKey: '[redacted]' });
    expect(second).toMatchObject({
      level: 'warn',
      token: '[redacted]',
      team: 'T1',
      note: 'bound [redacted…cr3t]',
      slack: { botToken: '[redacted]' },
      headers: { authorization: '[redacted]' },
      request: { headers: { authorization: '[redacted]', 'api-key': '[redacted]' } },
      ok: 1,
      msg: 'child line',
    });
  });

  it('masks hook-token-shaped strings and /hooks/<token> paths nobody registered', () => {
    const r = new Redactor();
    const token = randomBytes(32).toString('base64url');
    expect(token).toHaveLength(43);
    expect(r.redact(`token=${token}.`)).toBe('token=[redacted].');
    expect(r.redact(`POST https://bot.example.com/hooks/${token}?x=1 failed`)).toBe(
      'POST https://bot.example.com/hooks/[redacted]?x=1 failed',
    );
    expect(r.redact('/hooks/short-or-odd%20token')).toBe('/hooks/[redacted]');
    // Only exactly 43 such characters standing alone: longer ids and ordinary words stay readable.
    const longer = 'a'.repeat(44);
    expect(r.redact(`${longer} call_completed camp-1`)).toBe(`${longer} call_completed camp-1`);
  });

  it('never forgets configuration secrets, and forgets the least recently seen run-time secret first', () => {
    const r = new Redactor();
    r.pinSecret('pinned-config-secret-1');
    r.addSecret('runtime-secret-early');
    r.addSecret('runtime-secret-kept');
    for (let i = 0; i < 9_998; i++) r.addSecret(`filler-secret-${i}`);
    r.addSecret('runtime-secret-kept'); // seen again: now the most recent
    for (let i = 0; i < 10_000; i++) if (i % 2 === 0) r.addSecret(`more-filler-${i}`);
    expect(r.redact('pinned-config-secret-1')).toBe('[redacted…et-1]');
    expect(r.redact('runtime-secret-kept')).toBe('[redacted…kept]');
    expect(r.redact('runtime-secret-early')).toBe('runtime-secret-early');
  });
});

describe('configuration secrets after 20,000 run-time secrets', () => {
  it('are still redacted in the bot’s log lines', async () => {
    const secretsKey = randomBytes(32);
    const metricsToken = 'metrics-canary-0123456789abcdef';
    const h = await startHarness({
      oauth: true,
      env: { SECRETS_KEY: secretsKey.toString('base64'), METRICS_TOKEN: metricsToken },
    });
    try {
      // What 20,000 workspaces' hook tokens and API keys would do to the redactor.
      for (let i = 0; i < 20_000; i++)
        h.bot.deps.redactor.addSecret(`ck_live_seen_${i}_${randomBytes(6).toString('hex')}`);
      const config = [
        SIGNING_SECRET,
        OAUTH_CLIENT.clientSecret,
        STATE_SECRET,
        secretsKey.toString('base64'),
        secretsKey.toString('base64url'),
        h.platform.apiKey,
        metricsToken,
      ];
      h.bot.deps.logger.error({ detail: config.join(' | ') }, `leak attempt: ${config.join(' ')}`);
      const logs = h.logs();
      expect(logs).toContain('leak attempt');
      for (const secret of config) expect(logs, `log contains ${secret.slice(0, 8)}…`).not.toContain(secret);
    } finally {
      await h.close();
    }
  }, 30_000);
});

describe('canary secrets through the bot’s error paths', () => {
  const h = useHarness(async () => {
    const started = await startHarness({ defaultApiKey: false });
    started.platform.addApiKey(CANARY_KEY);
    await started.bot.deps.store.workspaces.setApiKey(started.signer.teamId, CANARY_KEY, { verifiedBy: ADMIN_ID });
    return started;
  });

  it('leaves no token, signing secret or API key in logs or in Slack', async () => {
    let n = 0;
    const ask = async (text: string, userId = MEMBER_ID) => {
      const id = `sweep-${++n}`;
      await h.signer.command({ text, userId, responseUrlId: id });
      await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === id));
    };
    // The platform echoes the key in an error message.
    h.platform.inject({ path: '/dashboard/dashboard-stats', status: 500, message: `bad key ${CANARY_KEY}`, times: 1 });
    await ask('stats');
    h.platform.inject({ path: '/customer-quota', reset: true, times: 3 });
    await ask('quota');
    h.platform.inject({ path: '/customer-quota', body: `not json ${CANARY_KEY}`, status: 502, times: 3 });
    await ask('quota');
    await ask('keys', ADMIN_ID);
    // A rejected key typed into the connect modal.
    await ask('connect', ADMIN_ID).catch(() => undefined);
    await h.slack.waitFor(() => h.slack.views('connect_modal').length > 0);
    await h.signer.viewSubmission({
      callbackId: 'connect_modal',
      userId: ADMIN_ID,
      values: { api_key: { value: { type: 'plain_text_input', value: WRONG_KEY } } },
    });
    // Slack refusing a call.
    h.slack.failMethod('views.publish', 'invalid_auth', 1);
    await h.signer.event({ type: 'app_home_opened', user: MEMBER_ID, tab: 'home', channel: 'D0SWEEP001' });
    await h.slack.waitFor(() => h.slack.callsTo('views.publish').length > 0);

    const logs = h.logs();
    const slackSaw = JSON.stringify([h.slack.calls.map((c) => c.args), h.slack.responses]);
    for (const secret of [CANARY_KEY, WRONG_KEY, SIGNING_SECRET, h.slack.botToken]) {
      expect(logs, `log contains ${secret.slice(0, 10)}…`).not.toContain(secret);
      expect(slackSaw, `Slack saw ${secret.slice(0, 10)}…`).not.toContain(secret);
    }
    // The sweep did go through failures (otherwise it proves nothing).
    expect(logs).toContain('command failed');
    expect(logs).toContain('API key verification failed');
  });
});

describe('canary secrets through install, subscribe, webhooks, clone-voice and uninstall (OAuth, Redis)', () => {
  const prefix = `${redis.prefix}sweep:`;
  const secretsKey = randomBytes(32);
  const apiKey = 'ck_live_SWEEPCANARY_0000111122223333';
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      oauth: true,
      defaultApiKey: false,
      redisUrl: redis.url,
      keyPrefix: prefix,
      env: { SECRETS_KEY: secretsKey.toString('base64'), PUBLIC_URL: 'https://bot.example.com' },
      bot: { events: { worker: FAST_WORKER } },
    });
    h.platform.addApiKey(apiKey);
  });
  afterAll(async () => {
    await h.close();
  });

  it('leaves none of them in logs, in what Slack received, or readable in Redis', async () => {
    let n = 0;
    const ask = async (text: string, userId = ADMIN_ID) => {
      const id = `oauth-sweep-${++n}`;
      await h.signer.command({ text, userId, responseUrlId: id, channelId: 'C0GENERAL01' });
      const answer = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === id));
      expect(answer.status).toBe(200);
      return JSON.stringify(answer.body);
    };
    const installToken = await installApp(h, TEAM_ID);
    await h.signer.command({ text: 'connect', userId: ADMIN_ID, responseUrlId: 'oauth-sweep-connect' });
    await h.slack.waitFor(() => h.slack.views('connect_modal').length > 0);
    await h.signer.viewSubmission({
      callbackId: 'connect_modal',
      userId: ADMIN_ID,
      values: { api_key: { value: { type: 'plain_text_input', value: apiKey } } },
    });
    await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === 'oauth-sweep-connect'));

    // Subscribe: the hook token goes to the platform (its only legitimate reader) and nowhere else.
    expect(await ask('subscribe camp-1 call_completed')).not.toContain('❌');
    const hookUrl = h.platform.state.subscriptions.find((s) => s.campaignId === 'camp-1')!.hookUrl;
    const hookToken = hookUrl.split('/').at(-1)!;
    // Many workspaces later, the run-time secrets this one registered are long forgotten by the redactor.
    for (let i = 0; i < 20_000; i++)
      h.bot.deps.redactor.addSecret(`ck_live_other_${i}_${randomBytes(6).toString('hex')}`);
    h.platform.inject({
      path: '/events-gateway/trigger/subscribe',
      status: 400,
      message: `hookUrl ${hookUrl} rejected for key ${apiKey}`,
      times: 1,
    });
    // The user still learns why, with the echoed hook URL masked.
    expect(await ask('subscribe camp-2 call_started')).toContain(
      'hookUrl https://bot.example.com/hooks/[redacted] rejected for key ••••3333',
    );
    await ask('subscriptions camp-1');
    expect((await deliver(localHookUrl(h, hookUrl), [{ ...CALL_COMPLETED_FULL, callId: 'call-sweep-1' }])).status).toBe(
      200,
    );
    const card = await h.slack.waitFor(() =>
      h.slack.callsTo('chat.postMessage').find((c) => JSON.stringify(c.args).includes('call-sweep-1')),
    );
    expect(card.response.ok).toBe(true);

    // Clone-voice: the installation token fetches the file; the platform echoes what it was sent.
    const file = h.slack.addFile({ name: 'canary.mp3', mimetype: 'audio/mpeg', data: randomBytes(2000) });
    h.platform.inject({
      path: '/voices',
      status: 400,
      message: `key ${apiKey} and token ${installToken} not allowed`,
      times: 1,
    });
    await h.signer.command({ text: 'clone-voice', userId: ADMIN_ID, responseUrlId: 'oauth-sweep-cv' });
    await h.slack.waitFor(() => h.slack.views('clone_voice_modal').length > 0);
    const text = (value: string) => ({ value: { type: 'plain_text_input', value } });
    await h.signer.viewSubmission({
      callbackId: 'clone_voice_modal',
      userId: ADMIN_ID,
      values: {
        name: text('Canary'),
        language: text('en-US'),
        gender: text('female'),
        provider: text('elevenlabs'),
        files: { value: { type: 'file_input', files: [file] } },
      },
    });
    await h.slack.waitFor(() =>
      h.slack.responses.filter((r) => r.id === 'oauth-sweep-cv').find((r) => JSON.stringify(r.body).includes('❌')),
    );

    // Uninstall: the platform fails to drop the hook and echoes its URL back (a 400 would mean already gone).
    h.platform.inject({
      path: '/events-gateway/trigger/unsubscribe',
      status: 500,
      message: `unknown hook ${hookUrl}`,
      times: 1,
    });
    expect((await h.signer.event({ type: 'app_uninstalled' })).status).toBe(200);
    await h.slack.waitFor(() => (h.logs().includes('workspace uninstalled') ? true : undefined));

    const canaries: Record<string, string> = {
      'API key': apiKey,
      'hook token': hookToken,
      'installation token': installToken,
      'OAuth client secret': OAUTH_CLIENT.clientSecret,
      'OAuth state secret': STATE_SECRET,
      SECRETS_KEY: secretsKey.toString('base64').replace(/=+$/, ''),
      'SECRETS_KEY (url-safe)': secretsKey.toString('base64url'),
      'signing secret': SIGNING_SECRET,
    };
    const logs = h.logs();
    // Slack's OAuth token exchange is where the client secret belongs; everything else Slack saw must be clean.
    const slackSaw = JSON.stringify([
      h.slack.calls.filter((c) => c.method !== 'oauth.v2.access').map((c) => c.args),
      h.slack.responses,
    ]);
    const stored: string[] = [];
    for (const key of await redis.keys('sweep:*')) {
      const type = await redis.redis.type(key);
      if (type === 'string') stored.push((await redis.redis.get(key)) ?? '');
      else if (type === 'hash') stored.push(...Object.entries(await redis.redis.hgetall(key)).flat());
      else if (type === 'set') stored.push(...(await redis.redis.smembers(key)));
      else if (type === 'list') stored.push(...(await redis.redis.lrange(key, 0, -1)));
      else if (type === 'zset') stored.push(...(await redis.redis.zrange(key, 0, -1)));
      else stored.push(JSON.stringify(await redis.redis.call('XRANGE', key, '-', '+')));
    }
    for (const [what, secret] of Object.entries(canaries)) {
      expect(logs, `log contains the ${what}`).not.toContain(secret);
      expect(slackSaw, `Slack saw the ${what}`).not.toContain(secret);
      expect(stored.join('\n'), `Redis holds the ${what} in plaintext`).not.toContain(secret);
    }
    // The sweep went through the failures it means to (otherwise it proves nothing).
    expect(logs).toContain('subscribe failed');
    expect(logs).toContain('could not unsubscribe the platform hooks of an uninstalled workspace');
    expect(h.slack.downloads.some((d) => d.authorized && d.status === 200)).toBe(true);
    expect(h.platform.requests.some((r) => r.path === '/voices')).toBe(true);
  }, 30_000);
});
