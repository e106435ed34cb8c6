/**
 * The fake platform's own contract (other suites and the local playground rely on it): auth, request-id,
 * validation messages and fault bookkeeping. Driven with plain fetch, not our client.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
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
