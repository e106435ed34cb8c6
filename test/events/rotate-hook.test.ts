/**
 * `/campaign rotate-hook`: a new hook URL for the workspace, every platform hook moved to it (docs/PLATFORM-API.md:
 * trigger subscribe / unsubscribe), the old URL accepted for HOOK_TOKEN_GRACE_S and 404 after. The grace
 * period is crossed by moving the bot's clock, not by waiting.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MEMBER_ID, TEAM_ID, type Harness } from '../support/harness.js';
import { CALL_STARTED_FULL } from './fixtures.js';
import { deliver, localHookUrl, posts, PUBLIC_URL, run, startEventsHarness } from './support.js';

const CALLS = 'C0CALLS001';
const CHATS = 'C0CHATS001';

let h: Harness;
/** How far the bot's clock is ahead of the real one. */
let skewMs = 0;
beforeAll(async () => {
  h = await startEventsHarness({ bot: { now: () => Date.now() + skewMs } });
});
afterAll(async () => {
  await h.close();
});
beforeEach(async () => {
  skewMs = 0;
  h.platform.reset();
  h.platform.resetState();
  h.slack.reset();
  for (const r of await h.bot.deps.store.routes.listForTeam(TEAM_ID)) await h.bot.deps.store.routes.remove(r);
});

const currentHookUrl = async () => `${PUBLIC_URL}/hooks/${await h.bot.deps.store.workspaces.getHookToken(TEAM_ID)}`;
/** The platform's registered hooks as `campaignId triggerName → hookUrl`. */
const registered = () =>
  h.platform.state.subscriptions.map((s) => `${s.campaignId} ${s.triggerName} → ${s.hookUrl}`).sort();
let n = 0;
const callStarted = () => [{ ...CALL_STARTED_FULL, callId: `call-rotate-${++n}-${Date.now()}` }];

describe('/campaign rotate-hook', () => {
  it('moves every platform hook to a new URL; the old one keeps working for HOOK_TOKEN_GRACE_S, then answers 404', async () => {
    await run(h, 'subscribe camp-1 call_started call_completed', { channelId: CALLS });
    await run(h, 'subscribe * call_started message_received', { channelId: CHATS });
    const oldUrl = await currentHookUrl();
    expect(registered()).toHaveLength(4);
    h.platform.reset();

    const { text } = await run(h, 'rotate-hook', { channelId: 'C0ANYWHERE' });
    const newUrl = await currentHookUrl();
    expect(newUrl).not.toBe(oldUrl);
    expect(text).toContain('Re-registered 4 platform hooks with the new URL and removed them from the old one');
    expect(text).toContain('The old URL keeps working for 10 minutes, then answers 404');
    for (const url of [oldUrl, newUrl]) expect(text).not.toContain(url.split('/').at(-1));

    // Every hook the platform has is on the new URL (subscribed first), none is left on the old one.
    expect(registered()).toEqual(
      ['* call_started', '* message_received', 'camp-1 call_completed', 'camp-1 call_started'].map(
        (hook) => `${hook} → ${newUrl}`,
      ),
    );
    const calls = h.platform.requests.map(
      (r) => `${r.method} ${r.path} ${(r.body as { hookUrl?: string }).hookUrl === newUrl ? 'new' : 'old'}`,
    );
    expect(calls.filter((c) => c.startsWith('DELETE')).every((c) => c.endsWith('old'))).toBe(true);
    expect(calls.filter((c) => c.startsWith('POST')).every((c) => c.endsWith('new'))).toBe(true);
    expect(calls.indexOf('POST /events-gateway/trigger/subscribe new')).toBeLessThan(
      calls.indexOf('DELETE /events-gateway/trigger/unsubscribe old'),
    );

    // Within the grace period both URLs deliver.
    expect((await deliver(localHookUrl(h, oldUrl), callStarted())).status).toBe(200);
    expect((await deliver(localHookUrl(h, newUrl), callStarted())).status).toBe(200);
    await h.slack.waitFor(() => posts(h, CALLS).length === 2);

    // Past it, the old URL is unknown; the new one still works.
    skewMs = 600_000 + 1_000;
    const late = await deliver(localHookUrl(h, oldUrl), callStarted());
    expect(late.status).toBe(404);
    expect((await deliver(localHookUrl(h, newUrl), callStarted())).status).toBe(200);
    await h.slack.waitFor(() => posts(h, CALLS).length === 3);
  });

  it('names each hook the platform refused with its code and request id, and running it again finishes the job', async () => {
    await run(h, 'subscribe camp-1 call_started call_completed', { channelId: CALLS });
    const firstUrl = await currentHookUrl();
    h.platform.reset();
    h.platform.inject({ method: 'POST', path: '/events-gateway/trigger/subscribe', status: 500, times: 1 });

    const first = await run(h, 'rotate-hook');
    const secondUrl = await currentHookUrl();
    const refused = h.platform.requests.find((r) => r.path === '/events-gateway/trigger/subscribe');
    const refusedHook = (refused?.body as { triggerName: string }).triggerName;
    expect(first.text).toContain('Re-registered 1 of 2 platform hooks with the new URL');
    // Each hook in words, then what support needs to find the request.
    expect(first.text).toContain(`campaign \`camp-1\` · \`${refusedHook}\`: The platform had an internal error`);
    expect(first.text).toMatch(/_\(HTTP 500 · code INTERNAL_SERVER_ERROR · request id req_\d+\)_/);
    expect(first.text).toContain('Running `/campaign rotate-hook` again is safe');
    // The refused hook still delivers to the old URL: it was not removed there.
    expect(registered()).toEqual(
      [
        `camp-1 ${refusedHook} → ${firstUrl}`,
        `camp-1 ${refusedHook === 'call_started' ? 'call_completed' : 'call_started'} → ${secondUrl}`,
      ].sort(),
    );

    const second = await run(h, 'rotate-hook');
    const thirdUrl = await currentHookUrl();
    expect(second.text).toContain(
      'Re-registered 2 platform hooks with the new URL and removed them from the 2 old ones',
    );
    expect(second.text).not.toContain('again is safe');
    expect(registered()).toEqual([`camp-1 call_completed → ${thirdUrl}`, `camp-1 call_started → ${thirdUrl}`]);
  });

  it('says when there is nothing to move, and still replaces the URL', async () => {
    await run(h, 'subscribe camp-1 call_started', { channelId: CALLS });
    await run(h, 'unsubscribe camp-1', { channelId: CALLS });
    const before = await currentHookUrl();
    const { text } = await run(h, 'rotate-hook');
    expect(text).toContain('there was no platform hook to move');
    expect(await currentHookUrl()).not.toBe(before);
  });

  it('is for admins only, and listed in help', async () => {
    await run(h, 'subscribe camp-1 call_started', { channelId: CALLS });
    const before = await currentHookUrl();
    h.platform.reset();
    const { text } = await run(h, 'rotate-hook', { userId: MEMBER_ID });
    expect(text).toContain('Only Slack workspace admins');
    expect(await currentHookUrl()).toBe(before);
    expect(h.platform.requests).toHaveLength(0);
    expect((await run(h, 'help')).text).toContain('/campaign rotate-hook');
  });
});
