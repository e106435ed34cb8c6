/**
 * Path confusion behind a proxy: an Ingress routes `/slack`, `/hooks` and `/attachments` by prefix and reads a
 * backslash as a character, while a WHATWG URL parser reads it as `/` — so `/slack/..\metrics` passed the
 * Ingress and reached `/metrics`. Must hold: such paths (backslashes, dot segments, their percent-encodings)
 * are refused 400 before any route; and with OPS_PORT, `/healthz`, `/readyz` and `/metrics` are not on PORT at
 * all. Requests go over raw sockets: fetch would resolve the dots itself.
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { MEMBER_ID, startHarness, useHarness } from '../support/harness.js';

/** Sends one request line as written and resolves with the status and body of the answer. */
function rawGet(url: string, target: string): Promise<{ status: number; body: string }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    let got = '';
    const socket = connect(Number(port), '127.0.0.1', () =>
      socket.write(`GET ${target} HTTP/1.1\r\nHost: bot.example.com\r\nConnection: close\r\n\r\n`),
    );
    socket.on('data', (chunk: Buffer) => (got += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () =>
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(got)?.[1] ?? 0), body: got.split('\r\n\r\n')[1] ?? '' }),
    );
  });
}

/** What reached `/metrics` or `/readyz` through a public prefix in the audit, and the encodings of the same. */
const CONFUSED = [
  '/slack/..\\metrics',
  '/hooks/..\\metrics',
  '/attachments/..\\readyz',
  '/slack/../metrics',
  '/slack/./../readyz',
  '/slack/..%5cmetrics',
  '/slack/%2e%2e/metrics',
  '/hooks/%2E%2E%5Cmetrics',
  '/slack%2f..%2fmetrics',
  '/slack/%252e%252e/metrics',
];

describe('a path that reads differently behind a proxy', () => {
  const h = useHarness(() => startHarness());

  it('is refused 400 before routing, while the same route by its own name answers', async () => {
    // Without the check, the bot would serve these: its own name of the route answers.
    expect((await rawGet(h.url, '/metrics')).status).toBe(200);
    const answers = await Promise.all(CONFUSED.map(async (path) => ({ path, ...(await rawGet(h.url, path)) })));
    for (const a of answers) {
      expect({ path: a.path, status: a.status }).toEqual({ path: a.path, status: 400 });
      expect(a.body).not.toContain('campaign_');
    }
    console.log(`[figure] path confusion: ${answers.length}/${CONFUSED.length} confused paths answered 400`);
  });

  it('leaves the query string alone and Slack’s requests answered', async () => {
    expect((await rawGet(h.url, '/healthz?probe=%2e%2e%5c')).status).toBe(200);
    const command = await h.signer.command({ text: 'help', userId: MEMBER_ID, responseUrlId: 'after-confusion' });
    expect(command.status).toBe(200);
    await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === 'after-confusion'));
  });
});

describe('with OPS_PORT', () => {
  const h = useHarness(() => startHarness({ env: { OPS_PORT: '0' } }));

  it('serves /healthz, /readyz and /metrics on the ops port only', async () => {
    const opsUrl = h.opsUrl ?? '(no ops port)';
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      expect({ path, port: 'PORT', status: (await rawGet(h.url, path)).status }).toEqual({
        path,
        port: 'PORT',
        status: 404,
      });
      expect({ path, port: 'OPS_PORT', status: (await rawGet(opsUrl, path)).status }).toEqual({
        path,
        port: 'OPS_PORT',
        status: 200,
      });
    }
    expect((await rawGet(opsUrl, '/metrics')).body).toContain('campaign_');
    // Nothing public is served there, and a confused path is refused there too.
    expect((await rawGet(opsUrl, '/slack/events')).status).toBe(404);
    expect((await rawGet(opsUrl, '/healthz/..\\metrics')).status).toBe(400);
  });

  it('still takes Slack’s requests on PORT', async () => {
    const command = await h.signer.command({ text: 'help', userId: MEMBER_ID, responseUrlId: 'ops-port' });
    expect(command.status).toBe(200);
    await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === 'ops-port'));
  });
});
