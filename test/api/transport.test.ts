/**
 * Transport behaviour over real sockets: timeouts, resets, refused connections, which requests are retried
 * (GETs on network errors and 502/503/504 only), keep-alive reuse, path encoding and the onRequest hook.
 */
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ApiConnectionError,
  ApiTimeoutError,
  CampaignClient,
  NotFoundError,
  PlatformError,
  ServerError,
  createTransport,
} from '../../src/api/index.js';
import type { PlatformTransport, TransportOptions } from '../../src/api/index.js';
import { WORKSPACE, rejectionOf, usePlatform } from './support.js';

const h = usePlatform();

type RequestInfo = Parameters<NonNullable<TransportOptions['onRequest']>>[0];

/** A client on its own transport (so options can differ per test); closed after the test. */
const extra: PlatformTransport[] = [];
function clientWith(
  opts: Omit<TransportOptions, 'baseUrl'>,
  baseUrl = h.platform.url,
): { client: CampaignClient; seen: RequestInfo[] } {
  const seen: RequestInfo[] = [];
  const transport = createTransport({ baseUrl, retryBaseDelayMs: 5, onRequest: (i) => seen.push(i), ...opts });
  extra.push(transport);
  return { client: new CampaignClient(transport, h.platform.apiKey, WORKSPACE), seen };
}
afterEach(async () => {
  await Promise.all(extra.splice(0).map((t) => t.close()));
});

describe('timeouts', () => {
  // undici's header/body timers tick at ~1 s resolution, hence the 3 s delays against a 100 ms timeout.
  it('a slow answer → ApiTimeoutError (headers)', async () => {
    h.platform.inject({ path: '/dashboard/dashboard-stats', delayMs: 3_000 });
    const { client, seen } = clientWith({ headersTimeoutMs: 100, getRetries: 0 });

    const started = Date.now();
    const err = await rejectionOf(client.dashboard.getStats());

    expect(err).toBeInstanceOf(ApiTimeoutError);
    expect(err).toMatchObject({ phase: 'headers', endpoint: 'GET /dashboard/dashboard-stats', method: 'GET' });
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(seen).toEqual([
      { endpoint: 'GET /dashboard/dashboard-stats', status: 'error', durationMs: expect.any(Number) },
    ]);
  });

  it('a slow POST times out once and is not retried', async () => {
    h.platform.inject({ path: '/account/profile', delayMs: 3_000 });
    const { client } = clientWith({ headersTimeoutMs: 100, getRetries: 3 });

    expect(await rejectionOf(client.account.updateProfile({ company: 'x' }))).toBeInstanceOf(ApiTimeoutError);
    expect(h.received('POST', '/account/profile')).toHaveLength(1);
  });

  it('a GET that timed out once is retried and succeeds', async () => {
    h.platform.inject({ path: '/customer-quota', delayMs: 3_000, times: 1 });
    const { client, seen } = clientWith({ headersTimeoutMs: 100, getRetries: 1 });

    const rows = await client.quota.list();

    expect(rows).toHaveLength(2);
    expect(h.received('GET', '/customer-quota')).toHaveLength(2);
    expect(seen.map((s) => s.status)).toEqual(['error', 200]);
  });

  it('a body that stalls halfway → ApiTimeoutError (body)', async () => {
    // The fake answers whole bodies only, so a bare server sends half a body and then goes quiet.
    const server = createHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"value":[');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const { client } = clientWith({ bodyTimeoutMs: 100, getRetries: 0 }, `http://127.0.0.1:${port}/v1/api`);
      const err = await rejectionOf(client.quota.list());
      expect(err).toBeInstanceOf(ApiTimeoutError);
      expect((err as ApiTimeoutError).phase).toBe('body');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('connection failures', () => {
  it('a reset socket on a GET with no retries left → ApiConnectionError', async () => {
    h.platform.inject({ path: '/customer-quota', reset: true });
    const { client } = clientWith({ getRetries: 0 });

    const err = await rejectionOf(client.quota.list());

    expect(err).toBeInstanceOf(ApiConnectionError);
    expect((err as ApiConnectionError).code).toBe('UND_ERR_SOCKET');
    expect((err as ApiConnectionError).endpoint).toBe('GET /customer-quota');
  });

  it('refused connections are retried for GETs, then → ApiConnectionError ECONNREFUSED', async () => {
    const port = await unusedPort();
    const { client, seen } = clientWith({ getRetries: 2 }, `http://127.0.0.1:${port}/v1/api`);

    const err = await rejectionOf(client.bookings.list('camp-1'));

    expect(err).toBeInstanceOf(ApiConnectionError);
    expect((err as ApiConnectionError).code).toBe('ECONNREFUSED');
    expect(seen).toHaveLength(3);
    expect(seen.every((s) => s.status === 'error' && s.endpoint === 'GET /campaign/{campaignId}/bookings')).toBe(true);
  });

  it('refused connections are not retried for POSTs', async () => {
    const port = await unusedPort();
    const { client, seen } = clientWith({ getRetries: 2 }, `http://127.0.0.1:${port}/v1/api`);

    expect(await rejectionOf(client.verification.submit())).toBeInstanceOf(ApiConnectionError);
    expect(seen).toHaveLength(1);
  });
});

describe('retries', () => {
  it('GET retried on 503 until it succeeds', async () => {
    h.platform.inject({ path: '/campaign/camp-1/bookings', status: 503, times: 2 });
    const { client, seen } = clientWith({ getRetries: 2 });

    const bookings = await client.bookings.list('camp-1');

    expect(bookings).toHaveLength(3);
    expect(h.received('GET', '/campaign/camp-1/bookings')).toHaveLength(3);
    expect(seen.map((s) => s.status)).toEqual([503, 503, 200]);
  });

  it.each([502, 504])('GET retried on %i', async (status) => {
    h.platform.inject({ path: '/dashboard/dashboard-stats', status, times: 1 });
    const { client } = clientWith({ getRetries: 1 });
    await client.dashboard.getStats();
    expect(h.received('GET', '/dashboard/dashboard-stats')).toHaveLength(2);
  });

  it('GET retried after a connection reset and succeeds', async () => {
    h.platform.inject({ path: '/call/scheduled/camp-1', reset: true, times: 1 });
    const { client } = clientWith({ getRetries: 1 });

    expect(await client.calls.listScheduled('camp-1')).toHaveLength(2);
    expect(h.received('GET', '/call/scheduled/camp-1')).toHaveLength(2);
  });

  it('retries are bounded: the last 503 is thrown after 1 + getRetries attempts', async () => {
    h.platform.inject({ path: '/customer-quota', status: 503 });
    const { client } = clientWith({ getRetries: 2 });

    const err = await rejectionOf(client.quota.list());

    expect(err).toBeInstanceOf(ServerError);
    expect((err as ServerError).status).toBe(503);
    expect(h.received('GET', '/customer-quota')).toHaveLength(3);
  });

  it('backs off exponentially between attempts', async () => {
    h.platform.inject({ path: '/customer-quota', status: 503 });
    const { client } = clientWith({ getRetries: 2, retryBaseDelayMs: 80 });

    const started = Date.now();
    await rejectionOf(client.quota.list());

    // equal jitter: ≥ 80/2 before the 2nd attempt and ≥ 160/2 before the 3rd
    expect(Date.now() - started).toBeGreaterThanOrEqual(115);
  });

  it.each([500, 404, 429])('GET not retried on %i', async (status) => {
    h.platform.inject({ path: '/customer-quota', status });
    const { client } = clientWith({ getRetries: 3 });
    await rejectionOf(client.quota.list());
    expect(h.received('GET', '/customer-quota')).toHaveLength(1);
  });

  it('POST never retried on 503', async () => {
    h.platform.inject({ path: '/phone-number/link', status: 503, times: 1 });
    const { client } = clientWith({ getRetries: 3 });

    expect(await rejectionOf(client.phoneNumbers.link({ phoneNumberId: 'pn-2', campaignId: 'camp-1' }))).toBeInstanceOf(
      ServerError,
    );
    expect(h.received('POST', '/phone-number/link')).toHaveLength(1);
    expect(h.platform.state.phoneNumbers.find((p) => p.id === 'pn-2')?.campaignId).toBeNull();
  });

  it('POST never retried after a connection reset', async () => {
    h.platform.inject({ path: '/campaign-chat/camp-3/send-human-response', reset: true, times: 1 });
    const { client } = clientWith({ getRetries: 3 });

    const err = await rejectionOf(
      client.chat.sendHumanResponse('camp-3', { sessionId: 'sess-handoff-1', message: 'hi' }),
    );

    expect(err).toBeInstanceOf(ApiConnectionError);
    expect(h.received('POST', '/campaign-chat/camp-3/send-human-response')).toHaveLength(1);
    expect(h.platform.state.humanResponses).toEqual([]);
  });

  it('DELETE never retried on 503 or reset', async () => {
    h.platform.inject({ method: 'DELETE', status: 503, times: 1 });
    h.platform.inject({ method: 'DELETE', reset: true, times: 1 });
    const { client } = clientWith({ getRetries: 3 });

    expect(await rejectionOf(client.agents.delete('camp-1', 'agent-11'))).toBeInstanceOf(ServerError);
    expect(await rejectionOf(client.agents.delete('camp-1', 'agent-11'))).toBeInstanceOf(ApiConnectionError);
    expect(h.received('DELETE', '/agent/camp-1/agent-11')).toHaveLength(2);
    expect(h.platform.state.agents['camp-1']!.map((a) => a.id)).toContain('agent-11');
  });
});

describe('keep-alive', () => {
  it('reuses one socket across successes, errors, 204s and empty-object 200s (bodies are drained)', async () => {
    const { client } = clientWith({ connections: 1 });
    // Bodies bigger than undici's 64 KiB buffer: left unread they would hold the only socket.
    h.platform.inject({
      path: '/campaign/templates/tpl-x',
      status: 404,
      body: 'x'.repeat(200_000),
      contentType: 'text/plain',
    });
    h.platform.inject({ path: '/phone-number/link', body: JSON.stringify({ padding: 'y'.repeat(100_000) }) });

    await client.dashboard.getStats();
    await rejectionOf(client.templates.get('tpl-x'));
    await client.agents.delete('camp-1', 'agent-11');
    await client.phoneNumbers.link({ phoneNumberId: 'pn-2', campaignId: 'camp-1' });
    await rejectionOf(client.calls.listScheduled('camp-nope'));
    await client.quota.list();

    const ports = new Set(h.platform.requests.map((r) => r.remotePort));
    expect(h.platform.requests).toHaveLength(6);
    expect(ports.size).toBe(1);
  });
});

describe('requests', () => {
  it('URL-encodes every path parameter', async () => {
    await rejectionOf(h.client.agents.delete('camp 1/..', 'ä'));
    await h.client.bookings.list('a?b#c&d');

    expect(h.platform.requests.map((r) => r.path)).toEqual([
      '/agent/camp%201%2F../%C3%A4',
      '/campaign/a%3Fb%23c%26d/bookings',
    ]);
    expect(h.platform.requests[1]!.query).toEqual({});
  });

  it.each(['', '.', '..'])('refuses the path parameter %j without sending anything', async (id) => {
    const err = await rejectionOf(h.client.templates.get(id));
    expect(err).toBeInstanceOf(PlatformError);
    expect((err as PlatformError).endpoint).toBe('GET /campaign/templates/{id}');
    expect(h.platform.requests).toEqual([]);
  });

  it('404 from a URL-encoded unknown id still maps to NotFoundError', async () => {
    expect(await rejectionOf(h.client.calls.listScheduled('no/such'))).toBeInstanceOf(NotFoundError);
  });

  it('sends the api-key of the client that made the call (one transport, many workspaces)', async () => {
    const other = 'ck_live_other_workspace_key_0002';
    h.platform.addApiKey(other);
    const a = new CampaignClient(h.transport, h.platform.apiKey, WORKSPACE);
    const b = new CampaignClient(h.transport, other, 'T0OTHER01');

    await Promise.all([a.quota.list(), b.quota.list(), a.dashboard.getStats()]);

    expect(h.platform.requests.map((r) => r.headers['api-key']).sort()).toEqual(
      [h.platform.apiKey, h.platform.apiKey, other].sort(),
    );
  });

  it('the client object does not expose its key', () => {
    const client = new CampaignClient(h.transport, h.platform.apiKey, WORKSPACE);
    expect(JSON.stringify(client)).not.toContain(h.platform.apiKey);
    expect(Object.values(client).some((v) => v === h.platform.apiKey)).toBe(false);
  });

  it('onRequest reports the endpoint template, status and duration of each attempt', async () => {
    const { client, seen } = clientWith({});
    await client.bookings.list('camp-2');
    await rejectionOf(client.templates.get('nope'));
    expect(seen).toEqual([
      { endpoint: 'GET /campaign/{campaignId}/bookings', status: 200, durationMs: expect.any(Number) },
      { endpoint: 'GET /campaign/templates/{id}', status: 404, durationMs: expect.any(Number) },
    ]);
    expect(seen.every((s) => s.durationMs >= 0)).toBe(true);
  });

  it('a throwing onRequest hook does not fail the call', async () => {
    const transport = createTransport({
      baseUrl: h.platform.url,
      onRequest: () => {
        throw new Error('metrics broke');
      },
    });
    extra.push(transport);
    expect(await new CampaignClient(transport, h.platform.apiKey, WORKSPACE).quota.list()).toHaveLength(2);
  });
});

async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
