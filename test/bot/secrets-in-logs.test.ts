/**
 * The canary-secret sweep: secrets pushed through error paths must appear in no log line and in
 * nothing Slack receives.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redactor, createLogger } from '../../src/logger.js';
import { ADMIN_ID, MEMBER_ID, SIGNING_SECRET, startHarness, type Harness } from '../support/harness.js';

const CANARY_KEY = 'ck_live_CANARYKEY_0000111122223333';
const WRONG_KEY = 'ck_live_WRONGCANARY_999988887777';

describe('Redactor', () => {
  it('masks registered secrets and token-shaped strings anywhere in a line', () => {
    const r = new Redactor();
    r.addSecret('my-very-secret-value');
    expect(r.redact('x my-very-secret-value y')).toBe('x [redacted…alue] y');
    expect(r.redact('token xoxb-123-456-abcdef and xapp-1-A1-xyz123')).toBe('token xoxb-[redacted] and xapp-[redacted]');
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
    const text = lines.join('');
    expect(text).not.toContain('s3cr3t-s3cr3t');
    expect(text).not.toContain('whatever-it-is');
    expect(JSON.parse(text)).toMatchObject({ level: 'info', apiKey: '[redacted]' });
  });
});

describe('canary secrets through the bot’s error paths', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ defaultApiKey: false });
    h.platform.state.apiKeys.push({ ...h.platform.state.apiKeys[0]!, RowKey: CANARY_KEY, Active: true });
    await h.bot.deps.store.workspaces.setApiKey(h.signer.teamId, CANARY_KEY, { verifiedBy: ADMIN_ID });
  });
  afterAll(async () => {
    await h.close();
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
    await h.signer.viewSubmission({ callbackId: 'connect_modal', userId: ADMIN_ID, values: { api_key: { value: { type: 'plain_text_input', value: WRONG_KEY } } } });
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
