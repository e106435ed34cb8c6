/**
 * METRICS_TOKEN: when set, GET /metrics needs `Authorization: Bearer <token>`; anything else is a 401 with
 * `WWW-Authenticate: Bearer` (RFC 6750 §3, https://www.rfc-editor.org/rfc/rfc6750#section-3). Without it,
 * /metrics stays open (see operations.test.ts). Liveness and readiness never need the token.
 */
import { describe, expect, it } from 'vitest';
import { startHarness, useHarness } from '../support/harness.js';

const METRICS_TOKEN = 'metrics-canary-token-0123456789abcdef';

const h = useHarness(() => startHarness({ env: { METRICS_TOKEN } }));

const metrics = (authorization?: string) =>
  fetch(`${h.url}/metrics`, authorization === undefined ? {} : { headers: { authorization } });

describe('GET /metrics with METRICS_TOKEN', () => {
  it('serves Prometheus text to the right bearer token', async () => {
    for (const auth of [`Bearer ${METRICS_TOKEN}`, `bearer ${METRICS_TOKEN}`]) {
      const res = await metrics(auth);
      expect(res.status, auth.slice(0, 6)).toBe(200);
      expect(await res.text()).toContain('campaign_queue_depth');
    }
  });

  it('answers 401 with WWW-Authenticate: Bearer to no, wrong, truncated or non-bearer credentials', async () => {
    for (const auth of [
      undefined,
      'Bearer wrong-token',
      `Bearer ${METRICS_TOKEN.slice(0, -1)}`,
      `Bearer ${METRICS_TOKEN}x`,
      `Basic ${Buffer.from(`x:${METRICS_TOKEN}`).toString('base64')}`,
      METRICS_TOKEN,
    ]) {
      const res = await metrics(auth);
      expect(res.status, String(auth).slice(0, 8)).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
      expect(await res.text()).not.toContain('campaign_');
    }
  });

  it('keeps /healthz and /readyz open, and the token out of the logs', async () => {
    expect((await fetch(`${h.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${h.url}/readyz`)).status).toBe(200);
    h.bot.deps.logger.info({ header: `Bearer ${METRICS_TOKEN}` }, 'an operator pasted the metrics header');
    expect(h.logs()).toContain('an operator pasted the metrics header');
    expect(h.logs()).not.toContain(METRICS_TOKEN);
  });
});
