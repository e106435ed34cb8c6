/**
 * The fake platform's own contract (other suites and the local playground rely on it): auth, request-id,
 * validation messages and fault bookkeeping. Driven with plain fetch, not our client.
 */
import { Agent, request } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakePlatform } from '../fakes/platform.js';
import type { FakePlatform } from '../fakes/platform.js';
import { waitFor } from '../support/wait.js';

let platform: FakePlatform;
beforeAll(async () => {
  platform = await startFakePlatform();
});
beforeEach(() => {
  platform.reset();
  platform.resetState();
});
afterAll(async () => {
  await platform.close();
});

async function call(method: string, path: string, init: { key?: string | null; json?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (init.key !== null) headers['api-key'] = init.key ?? platform.apiKey;
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(platform.url + path, {
    method,
    headers,
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  const text = await res.text();
  return {
    status: res.status,
    requestId: res.headers.get('x-request-id'),
    body: text ? (JSON.parse(text) as unknown) : undefined,
  };
}

describe('fake platform', () => {
  it('401 envelope with requestId for a missing, unknown or inactive key', async () => {
    const inactive = platform.state.apiKeys.find((k) => !k.Active)!.RowKey;
    for (const key of [null, 'nope', inactive]) {
      const res = await call('GET', '/customer-quota', { key });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        error: { message: expect.any(String), code: 'UNAUTHORIZED', requestId: res.requestId },
      });
    }
  });

  it('accepts the keys given to startFakePlatform', async () => {
    const custom = await startFakePlatform({ apiKeys: ['ck_custom_key_1'] });
    try {
      expect(custom.apiKey).toBe('ck_custom_key_1');
      const res = await fetch(`${custom.url}/open-api`, { headers: { 'api-key': 'ck_custom_key_1' } });
      expect(res.status).toBe(200);
    } finally {
      await custom.close();
    }
  });

  it('seeds a believable quota by default, and this month above 2^53 ms when asked (kept across resetState)', async () => {
    const believable = await call('GET', '/customer-quota');
    const rows = (believable.body as { value: Array<Record<string, string>> }).value;
    for (const row of rows) {
      for (const field of ['PurchasedMs', 'RolloverMs', 'TotalUsageMs'])
        expect(BigInt(row[field]!)).toBeLessThan(2n ** 53n);
      expect(BigInt(row.TotalUsageMs!)).toBeLessThan(BigInt(row.PurchasedMs!) + BigInt(row.RolloverMs!));
    }

    const big = await startFakePlatform({ quota: 'beyond-2^53' });
    try {
      big.resetState();
      const res = await fetch(`${big.url}/customer-quota`, { headers: { 'api-key': big.apiKey } });
      // Read as text: JSON.parse would round the value the case is there to carry.
      expect(await res.text()).toContain('"TotalUsageMs":"18014398509481985"');
    } finally {
      await big.close();
    }
  });

  it('every response carries x-request-id, unique per request', async () => {
    const a = await call('GET', '/customer-quota');
    const b = await call('GET', '/customer-quota');
    expect(a.requestId).toMatch(/^req_\d+$/);
    expect(b.requestId).not.toBe(a.requestId);
  });

  it.each([
    [
      {
        hookUrl: 'https://x.example.com',
        campaignId: 'camp-1',
        triggerName: 'message_session_completed',
        provider: 'custom',
      },
      /triggerName/,
    ],
    [
      { hookUrl: 'https://x.example.com', campaignId: 'camp-1', triggerName: 'call_started', provider: 'zapier' },
      /provider/,
    ],
    [
      { hookUrl: 'ftp://x.example.com', campaignId: 'camp-1', triggerName: 'call_started', provider: 'custom' },
      /hookUrl/,
    ],
    [{ hookUrl: 'https://x.example.com', triggerName: 'call_started', provider: 'custom' }, /campaignId/],
  ])('subscribe validates %j', async (json, field) => {
    const res = await call('POST', '/events-gateway/trigger/subscribe', { json });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code: 'BAD_REQUEST', message: expect.stringMatching(field) } });
    expect(platform.state.subscriptions).toEqual([]);
  });

  it("subscribe accepts '*' for every campaign", async () => {
    const json = {
      hookUrl: 'https://x.example.com/t',
      campaignId: '*',
      triggerName: 'message_sent',
      provider: 'custom',
    };
    expect((await call('POST', '/events-gateway/trigger/subscribe', { json })).status).toBe(201);
    expect((await call('GET', '/events-gateway/triggers/campaign/*')).body).toEqual([
      expect.objectContaining({ campaignId: '*' }),
    ]);
  });

  it('perform needs a known campaign', async () => {
    expect((await call('GET', '/events-gateway/trigger/perform/call_started')).status).toBe(400);
    expect((await call('GET', '/events-gateway/trigger/perform/call_started?campaignId=camp-9')).status).toBe(404);
  });

  it('a fault with times applies that often, then the endpoint answers normally', async () => {
    platform.inject({ method: 'GET', path: /quota/, status: 503, times: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await call('GET', '/customer-quota')).status);
    expect(statuses).toEqual([503, 503, 200]);
  });

  it('a fault for one api-key leaves the other keys’ requests alone', async () => {
    const other = 'ck_live_other_workspace_0000000000000';
    platform.addApiKey(other);
    platform.inject({ apiKey: other, status: 503 });
    expect((await call('GET', '/customer-quota', { key: other })).status).toBe(503);
    expect((await call('GET', '/customer-quota')).status).toBe(200);
  });

  it('holds matching requests until released, then answers them normally; reset releases the rest', async () => {
    platform.inject({ method: 'GET', path: '/customer-quota', hold: true });
    const first = call('GET', '/customer-quota');
    const second = call('GET', '/customer-quota');
    const held = () => platform.held().length;
    await waitFor(() => held() === 2, 'both requests held');
    expect((await call('GET', '/open-api')).status).toBe(200); // other requests go through meanwhile

    expect(platform.release((r) => r === platform.held()[0])).toBe(1);
    expect((await first).status).toBe(200);
    expect(held()).toBe(1);
    platform.reset();
    expect((await second).status).toBe(200);
    expect(held()).toBe(0);
  });

  it('records method, path, query, headers and body; reset clears them and the faults', async () => {
    platform.inject({ path: '/account/profile', status: 500 });
    await call('POST', '/account/profile?x=1', { json: { company: 'A' } });

    expect(platform.requests).toEqual([
      expect.objectContaining({ method: 'POST', path: '/account/profile', query: { x: '1' }, body: { company: 'A' } }),
    ]);
    expect(platform.requests[0]!.headers['api-key']).toBe(platform.apiKey);

    platform.reset();
    expect(platform.requests).toEqual([]);
    expect((await call('POST', '/account/profile', { json: {} })).status).toBe(200);
  });

  it('resetState restores the seed in place', async () => {
    const state = platform.state;
    await call('DELETE', '/agent/camp-1/agent-11');
    expect(state.agents['camp-1']!.map((a) => a.id)).toEqual(['agent-12']);
    platform.resetState();
    expect(state.agents['camp-1']!.map((a) => a.id)).toEqual(['agent-11', 'agent-12']);
  });
});

describe('fake platform modes (the playground’s platform switch)', () => {
  afterEach(async () => {
    await platform.setMode('normal');
  });

  it('is normal by default: requests are answered at once', async () => {
    const fresh = await startFakePlatform();
    try {
      expect(fresh.mode()).toBe('normal');
      const res = await fetch(`${fresh.url}/customer-quota`, { headers: { 'api-key': fresh.apiKey } });
      expect(res.status).toBe(200);
    } finally {
      await fresh.close();
    }
  });

  it('slow answers each request after the delay, with its normal answer', async () => {
    await platform.setMode('slow', { slowMs: 250 });
    const started = performance.now();
    const res = await call('GET', '/customer-quota');
    expect(performance.now() - started).toBeGreaterThanOrEqual(240);
    expect(res.status).toBe(200);
    expect(platform.mode()).toBe('slow');
  });

  it('errors answers every request 500 with the error envelope and its request id', async () => {
    await platform.setMode('errors');
    for (const [method, path] of [
      ['GET', '/dashboard/dashboard-stats'],
      ['POST', '/account/profile'],
    ] as const) {
      const res = await call(method, path, method === 'POST' ? { json: { company: 'A' } } : {});
      expect(res.status).toBe(500);
      expect(res.body).toEqual({
        error: { message: 'Internal server error', code: 'INTERNAL_SERVER_ERROR', requestId: res.requestId },
      });
      expect(res.requestId).toMatch(/^req_\d+$/);
    }
    // Nothing was changed by the refused POST.
    expect(platform.state.profile.company).not.toBe('A');
    expect(platform.requests.map((r) => r.path)).toEqual(['/dashboard/dashboard-stats', '/account/profile']);
  });

  it('down refuses connections; back to normal, the same address answers again', async () => {
    await platform.setMode('down');
    // A new connection (a fresh agent: no kept-alive socket from earlier tests) finds nothing listening.
    const agent = new Agent();
    const refused = await request(`${platform.url}/customer-quota`, {
      headers: { 'api-key': platform.apiKey },
      dispatcher: agent,
    }).then(
      () => undefined,
      (err: unknown) => err,
    );
    await agent.close();
    expect((refused as { code?: string } | undefined)?.code).toBe('ECONNREFUSED');
    expect(platform.requests).toEqual([]);

    await platform.setMode('normal');
    expect((await call('GET', '/customer-quota')).status).toBe(200);
  });

  it('close works while down', async () => {
    const other = await startFakePlatform();
    await other.setMode('down');
    await other.close();
    expect(other.mode()).toBe('down');
  });
});
