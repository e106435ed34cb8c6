/**
 * `/readyz` with one workspace's token: not ready while Slack refuses SLACK_BOT_TOKEN, asked with `auth.test` at
 * most once per 30 s (on the bot's clock, moved here), never per probe. Slack's answers to a revoked or unknown
 * token are the stand-in's, as Slack documents them (https://docs.slack.dev/reference/methods/auth.test,
 * "Errors": `invalid_auth`, `token_revoked`).
 */
import { describe, expect, it } from 'vitest';
import { SLACK_TOKEN_CHECK_MS } from '../../src/bot/readiness.js';
import { harnessesPerTest, type Harness } from '../support/harness.js';

const start = harnessesPerTest();

/** A bot on a clock the test moves. */
async function startClocked(): Promise<{ h: Harness; advance: (ms: number) => void }> {
  let clock = Date.now();
  const h = await start({ bot: { now: () => clock } });
  return { h, advance: (ms) => (clock += ms) };
}

async function probe(h: Harness): Promise<{ status: number; checks: Record<string, string>; text: string }> {
  const res = await fetch(`${h.url}/readyz`);
  const text = await res.text();
  return { status: res.status, checks: (JSON.parse(text) as { checks: Record<string, string> }).checks, text };
}

const authTests = (h: Harness) => h.slack.callsTo('auth.test').length;

describe('/readyz and the Slack token', () => {
  it('asks Slack once per interval, whatever the number of probes', async () => {
    const { h, advance } = await startClocked();
    const first = await probe(h);
    expect(first.status).toBe(200);
    expect(first.checks.slack).toBe('ok (auth.test)');
    const asked = authTests(h);
    expect(asked).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < 5; i++) expect((await probe(h)).status).toBe(200);
    advance(SLACK_TOKEN_CHECK_MS - 1);
    expect((await probe(h)).status).toBe(200);
    expect(authTests(h)).toBe(asked);
    advance(1);
    expect((await probe(h)).status).toBe(200);
    expect(authTests(h)).toBe(asked + 1);
  });

  it('is not ready within the interval once the token is revoked, saying why and nothing secret', async () => {
    const { h, advance } = await startClocked();
    expect((await probe(h)).status).toBe(200);
    // The workspace revokes the token (what an admin removing the app's token does).
    const revoked = await fetch(`${h.slack.apiUrl}auth.revoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.slack.botToken}` },
    });
    expect(await revoked.json()).toMatchObject({ ok: true, revoked: true });
    h.slack.expectRefusal('auth.test', 'token_revoked');

    expect((await probe(h)).status).toBe(200); // the last answer is under 30 s old
    advance(SLACK_TOKEN_CHECK_MS);
    const refused = await probe(h);
    expect(refused.status).toBe(503);
    expect(refused.checks.slack).toMatch(/^refused: Slack answers auth\.test with token_revoked — .*SLACK_BOT_TOKEN/);
    expect(refused.checks).toMatchObject({ store: 'ok (memory)', lifecycle: 'ok' });
    expect(refused.text).not.toContain(h.slack.botToken);
    expect(await (await fetch(`${h.url}/metrics`)).text()).toMatch(/^campaign_slack_token_refused 1$/m);
    expect(h.slack.callsTo('auth.test').at(-1)?.response).toMatchObject({ ok: false, error: 'token_revoked' });
    // Stays so between checks: no probe asks again.
    const asked = authTests(h);
    expect((await probe(h)).status).toBe(503);
    expect(authTests(h)).toBe(asked);
  });

  it('is ready again once Slack takes the token again', async () => {
    const { h, advance } = await startClocked();
    expect((await probe(h)).status).toBe(200);
    h.slack.failMethod('auth.test', 'invalid_auth', 1);
    advance(SLACK_TOKEN_CHECK_MS);
    const refused = await probe(h);
    expect(refused.status).toBe(503);
    expect(refused.checks.slack).toMatch(/with invalid_auth/);
    advance(SLACK_TOKEN_CHECK_MS);
    const back = await probe(h);
    expect(back.status).toBe(200);
    expect(back.checks.slack).toBe('ok (auth.test)');
    expect(await (await fetch(`${h.url}/metrics`)).text()).toMatch(/^campaign_slack_token_refused 0$/m);
  });

  it('stays ready while Slack itself is down: an outage says nothing about the token', async () => {
    const { h, advance } = await startClocked();
    expect((await probe(h)).status).toBe(200);
    h.slack.failMethod('auth.test', 'service_unavailable');
    advance(SLACK_TOKEN_CHECK_MS);
    const during = await probe(h);
    expect(h.slack.callsTo('auth.test').at(-1)?.response).toMatchObject({ error: 'service_unavailable' });
    expect(during.status).toBe(200);
    expect(during.checks.slack).toBe('ok (auth.test)');
  });

  it('has no token to check in OAuth mode (each workspace its own): never asks', async () => {
    const h = await start({ oauth: true, defaultApiKey: false });
    const ready = await probe(h);
    expect(ready.status).toBe(200);
    expect(Object.keys(ready.checks)).toEqual(['config', 'store', 'lifecycle']);
    expect(authTests(h)).toBe(0);
  });
});
