/**
 * What an operator and a workspace see beside commands: App Home, /readyz, /metrics.
 */
import { describe, expect, it } from 'vitest';
import { HOME_ACTIONS } from '../../src/home/render.js';
import { findAction } from '../support/blocks.js';
import { ADMIN_ID, MEMBER_ID, startHarness, useHarness } from '../support/harness.js';

const h = useHarness(() => startHarness());

async function openHome(userId: string) {
  const before = h.slack.callsTo('views.publish').length;
  const res = await h.signer.event({ type: 'app_home_opened', user: userId, tab: 'home', channel: 'D0HOME0001' });
  expect(res.status).toBe(200);
  const call = await h.slack.waitFor(() => h.slack.callsTo('views.publish')[before]);
  expect(call.response.ok).toBe(true);
  const view = call.args.view as { blocks?: unknown };
  return { userId: call.args.user_id, blocks: view.blocks, text: JSON.stringify(view) };
}

describe('App Home', () => {
  it('shows the connection, this month’s usage with a bar, routes and delivery health', async () => {
    const home = await openHome(MEMBER_ID);
    expect(home.userId).toBe(MEMBER_ID);
    expect(home.text).toContain(`default key \`••••${h.platform.apiKey.slice(-4)}\``);
    expect(home.text).not.toContain(h.platform.apiKey);
    expect(home.text).toContain('█');
    expect(home.text).toContain('No channel receives platform events yet');
    expect(home.text).toContain('Every event received so far was delivered');
    expect(findAction(home.blocks, HOME_ACTIONS.stats)).toBeDefined();
    expect(findAction(home.blocks, HOME_ACTIONS.connect)).toBeUndefined(); // members get no connect button
  });

  it('shows stats in a modal with the top campaigns as a list, where the table of `/campaign stats` is not used', async () => {
    await h.signer.blockAction({ actionId: HOME_ACTIONS.stats, userId: MEMBER_ID });
    const update = await h.slack.waitFor(() =>
      h.slack.callsTo('views.update').find((c) => JSON.stringify(c.args).includes('home_stats_view')),
    );
    expect(update.response.ok).toBe(true);
    const view = JSON.stringify(update.args.view);
    expect(view).toContain('*Top campaigns*\\n1. `camp-1` — 1,284 calls, 62% connected');
    expect(view).not.toContain('data_table');
  });

  it('offers admins the connect button, which opens the connect modal', async () => {
    const home = await openHome(ADMIN_ID);
    expect(findAction(home.blocks, HOME_ACTIONS.connect)).toBeDefined();
    await h.signer.blockAction({ actionId: HOME_ACTIONS.connect, userId: ADMIN_ID });
    await h.slack.waitFor(() => h.slack.views('connect_modal').length > 0);
  });

  it('still renders when the platform fails, saying why usage is missing', async () => {
    h.platform.inject({ path: '/customer-quota', status: 500, times: 1 });
    const home = await openHome(MEMBER_ID);
    expect(home.text).toMatch(/Usage is unavailable right now: The platform had an internal error/);
  });
});

describe('operations endpoints', () => {
  it('/readyz reports the config, the store and Slack’s answer about the token', async () => {
    const res = await fetch(`${h.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      ok: true,
      failed: [],
      checks: { config: 'ok', store: 'ok (memory)', slack: 'ok (auth.test)', lifecycle: 'ok' },
    });
  });

  it('/metrics counts commands and platform calls by endpoint and status', async () => {
    await h.signer.command({ text: 'stats', userId: MEMBER_ID, responseUrlId: 'metrics-1' });
    await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === 'metrics-1'));
    const res = await fetch(`${h.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toMatch(/campaign_commands_total\{subcommand="stats",outcome="ok"\} [1-9]/);
    expect(text).toMatch(
      /campaign_platform_requests_total\{endpoint="GET \/dashboard\/dashboard-stats",status="200"\} [1-9]/,
    );
    expect(text).toContain('campaign_platform_request_seconds_bucket');
    expect(text).toContain('campaign_queue_depth 0');
  });
});

describe('unroutable requests', () => {
  it('answers 404 for unknown paths and malformed hook paths, never logging the hook path', async () => {
    expect((await fetch(`${h.url}/nope`)).status).toBe(404);
    const res = await fetch(`${h.url}/hooks/%E0%A4%A-secretish-token`, { method: 'POST', body: '[]' });
    expect(res.status).toBe(404);
    expect(h.logs()).not.toContain('secretish-token');
  });
});

describe('readiness without the store', () => {
  it('answers 503 naming the store and its variable, without its error text or address, while /healthz stays 200', async () => {
    const broken = await startHarness({ redisUrl: 'redis://127.0.0.1:1' });
    try {
      const ready = await fetch(`${broken.url}/readyz`);
      expect(ready.status).toBe(503);
      const body: unknown = await ready.json();
      expect(body).toMatchObject({
        ok: false,
        failed: ['store'],
        checks: { store: 'unreachable: Redis does not answer — check REDIS_URL and that Redis is running' },
      });
      // Which check failed, never the store client's error text (it names the address): the log says that
      // (test/faults/misconfiguration.test.ts).
      expect(JSON.stringify(body)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|:1\b/);
      expect((await fetch(`${broken.url}/healthz`)).status).toBe(200);
      // Prometheus sees it too (every replica is scraped; probes reach only the kubelet).
      expect(await (await fetch(`${broken.url}/metrics`)).text()).toMatch(/^campaign_store_up 0$/m);
      expect(await (await fetch(`${h.url}/metrics`)).text()).toMatch(/^campaign_store_up 1$/m);
    } finally {
      await broken.close();
    }
  });
});
