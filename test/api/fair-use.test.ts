/**
 * Fair use of the platform at the transport, over real sockets: uploads (voice clones) on a pool of their own,
 * each workspace's calls and uploads in turns of their own, refusals that send nothing. The platform holds
 * requests until the test releases them, so what "at once" means is seen at the platform, not timed.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { CampaignClient, PlatformBusyError, createTransport } from '../../src/api/index.js';
import type { PlatformTransport, TransportOptions } from '../../src/api/index.js';
import { waitFor } from '../support/wait.js';
import { rejectionOf, usePlatform } from './support.js';

const h = usePlatform();
const KEY_B = 'ck_live_fair_use_workspace_B_0000bbbb';

const transports: PlatformTransport[] = [];
function transportWith(opts: Omit<TransportOptions, 'baseUrl'>): PlatformTransport {
  const transport = createTransport({ baseUrl: h.platform.url, retryBaseDelayMs: 5, getRetries: 0, ...opts });
  transports.push(transport);
  return transport;
}
afterEach(async () => {
  h.platform.release();
  await Promise.all(transports.splice(0).map((t) => t.close()));
});

/** Workspace A on the platform's own key, B on a key of its own (so the platform can hold A's alone). */
function workspaces(transport: PlatformTransport): { a: CampaignClient; b: CampaignClient } {
  h.platform.addApiKey(KEY_B);
  return { a: new CampaignClient(transport, h.platform.apiKey, 'T0A'), b: new CampaignClient(transport, KEY_B, 'T0B') };
}

const held = (path: string) => h.platform.held().filter((r) => r.path === path);
const clone = (client: CampaignClient, name: string, turn?: { queued(ahead: number): void; started(): void }) =>
  client.voices.clone({
    name,
    language: 'en',
    gender: 'female',
    provider: 'p',
    files: [{ filename: 'a.wav', contentType: 'audio/wav', data: randomBytes(2_000) }],
    ...(turn ? { turn } : {}),
  });

describe('fair use of the platform', () => {
  it('sends at most the per-workspace number of calls at once; another workspace is answered meanwhile', async () => {
    const transport = transportWith({ connections: 4, turns: { calls: { concurrency: 2 } } });
    const { a, b } = workspaces(transport);
    h.platform.inject({ apiKey: h.platform.apiKey, hold: true });

    const calls = [a.quota.list(), a.quota.list(), a.dashboard.getStats()];
    await waitFor(() => h.platform.held().length === 2, 'two of workspace A’s calls at the platform');

    expect(await b.quota.list()).toHaveLength(2);
    expect(h.platform.requests.filter((r) => r.headers['api-key'] === h.platform.apiKey)).toHaveLength(2);

    h.platform.clearFaults();
    h.platform.release();
    await Promise.all(calls);
    expect(h.platform.requests.filter((r) => r.headers['api-key'] === h.platform.apiKey)).toHaveLength(3);
  });

  it('takes 8 calls of one workspace at once by default; the whole pool when it is the only workspace', async () => {
    h.platform.inject({ path: '/customer-quota', hold: true });
    const shared = workspaces(transportWith({ connections: 12 })).a;
    const first = Array.from({ length: 10 }, () => shared.quota.list());
    await waitFor(() => held('/customer-quota').length === 8, 'eight calls at the platform');

    const alone = new CampaignClient(transportWith({ connections: 12, oneWorkspace: true }), h.platform.apiKey, 'T0A');
    const second = Array.from({ length: 10 }, () => alone.quota.list());
    await waitFor(() => held('/customer-quota').length === 18, 'all ten of the only workspace at the platform');

    h.platform.clearFaults();
    h.platform.release();
    await Promise.all([...first, ...second]);
  });

  it('uploads use a pool of their own: a held clone never takes the socket calls need', async () => {
    const transport = transportWith({ connections: 1, uploadConnections: 1 });
    const { a } = workspaces(transport);
    h.platform.inject({ path: '/voices', hold: true });

    const cloning = clone(a, 'held');
    await waitFor(() => held('/voices').length === 1, 'the clone at the platform');
    expect(await a.quota.list()).toHaveLength(2); // the one call socket is free

    h.platform.release();
    expect((await cloning).Name).toBe('held');
  });

  it('a workspace’s third clone is told it is queued behind 2, and starts when one finishes', async () => {
    const transport = transportWith({});
    const { a, b } = workspaces(transport);
    h.platform.inject({ path: '/voices', hold: true });
    const news: string[] = [];
    const listener = (name: string) => ({
      queued: (ahead: number) => news.push(`${name} queued behind ${ahead}`),
      started: () => news.push(`${name} started`),
    });

    const first = clone(a, 'one', listener('one'));
    const second = clone(a, 'two', listener('two'));
    await waitFor(() => held('/voices').length === 2, 'two clones at the platform');
    const third = clone(a, 'three', listener('three'));
    expect(news).toEqual(['three queued behind 2']);
    const other = clone(b, 'b-one', listener('b-one')); // another workspace: not queued
    await waitFor(() => held('/voices').length === 3, 'workspace B’s clone at the platform');
    expect(news).toEqual(['three queued behind 2']);

    h.platform.release((r) => r.multipart?.fields.name === 'one');
    await first;
    await waitFor(() => held('/voices').some((r) => r.multipart?.fields.name === 'three'), 'the third clone sent');
    expect(news).toEqual(['three queued behind 2', 'three started']);

    h.platform.release();
    expect((await Promise.all([second, third, other])).map((v) => v.Name)).toEqual(['two', 'three', 'b-one']);
  });

  it('beyond the waiting list a request is refused at once, sends nothing and is counted', async () => {
    const refused: unknown[] = [];
    const transport = transportWith({
      turns: { uploads: { maxWaiting: 0 } },
      onTurnRefused: (info) => refused.push(info),
    });
    const { a } = workspaces(transport);
    h.platform.inject({ path: '/voices', hold: true });
    const running = [clone(a, 'one'), clone(a, 'two')];
    await waitFor(() => held('/voices').length === 2, 'two clones at the platform');

    const err = await rejectionOf(clone(a, 'three'));
    expect(err).toBeInstanceOf(PlatformBusyError);
    expect(err).toMatchObject({ lane: 'uploads', reason: 'full', endpoint: 'POST /voices' });
    expect(refused).toEqual([{ lane: 'uploads', reason: 'full' }]);
    expect(h.platform.requests.filter((r) => r.path === '/voices')).toHaveLength(2);
    h.platform.release();
    await Promise.all(running);
  });

  it('a call whose turn does not come in time is refused unsent (waited)', async () => {
    const transport = transportWith({ turns: { calls: { concurrency: 1, maxWaitMs: 50 } } });
    const { a } = workspaces(transport);
    h.platform.inject({ path: '/customer-quota', hold: true });
    const running = a.quota.list();
    await waitFor(() => held('/customer-quota').length === 1, 'the first call at the platform');

    // Never released while it waits: the only way on is the wait's end.
    expect(await rejectionOf(a.dashboard.getStats())).toMatchObject({ name: 'PlatformBusyError', reason: 'waited' });
    expect(h.platform.requests.filter((r) => r.path === '/dashboard/dashboard-stats')).toEqual([]);

    h.platform.release();
    await running;
  });
});
