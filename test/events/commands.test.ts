/**
 * `/campaign subscribe | unsubscribe | subscriptions | sample`, driven with signed slash commands against
 * the fake Slack and the fake platform (which checks request bodies like the spec says).
 */
import { describe, expect, it } from 'vitest';
import { SAMPLE_MARKER_BLOCK } from '../../src/events/render/index.js';
import { RECORDING_ACTION } from '../../src/events/recording-button.js';
import { LINK_SESSION_ACTION } from '../../src/handoff/card.js';
import { findAction, findBlock, textOf } from '../support/blocks.js';
import { MEMBER_ID, TEAM_ID, useHarness } from '../support/harness.js';
import { PUBLIC_URL, queueDrained, run, startEventsHarness } from './support.js';

const CHANNEL = 'C0CALLS001';
const OTHER = 'C0SALES001';

const h = useHarness(() => startEventsHarness(), ['platform', 'slack', 'routes']);

const subscribeRequests = () => h.platform.requests.filter((r) => r.path === '/events-gateway/trigger/subscribe');
const unsubscribeRequests = () => h.platform.requests.filter((r) => r.path === '/events-gateway/trigger/unsubscribe');
const routes = () => h.bot.deps.store.routes.listForTeam(TEAM_ID);

async function hookUrl(): Promise<string> {
  const token = await h.bot.deps.store.workspaces.getHookToken(TEAM_ID);
  expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  return `${PUBLIC_URL}/hooks/${token}`;
}

describe('/campaign subscribe', () => {
  it('subscribes the four events by default: one platform call each, routes stored, the channel told', async () => {
    const { text } = await run(h, 'subscribe camp-1', { channelId: CHANNEL });
    expect(text).toContain('This channel now receives');
    const url = await hookUrl();
    expect(subscribeRequests().map((r) => r.body)).toEqual(
      ['call_started', 'call_completed', 'message_received', 'message_sent'].map((triggerName) => ({
        hookUrl: url,
        campaignId: 'camp-1',
        triggerName,
        provider: 'custom',
      })),
    );
    expect(subscribeRequests().every((r) => r.method === 'POST' && r.headers['api-key'] === h.platform.apiKey)).toBe(
      true,
    );
    expect((await routes()).map((r) => [r.campaignId, r.triggerName, r.channelId])).toEqual([
      ['camp-1', 'call_completed', CHANNEL],
      ['camp-1', 'call_started', CHANNEL],
      ['camp-1', 'message_received', CHANNEL],
      ['camp-1', 'message_sent', CHANNEL],
    ]);
    const notice = h.slack.messages(CHANNEL);
    expect(notice).toHaveLength(1);
    expect(notice[0]!.text).toContain('now receives');
    // The hook URL is a secret: never in Slack.
    const token = url.split('/').at(-1)!;
    expect(JSON.stringify([h.slack.calls, h.slack.responses])).not.toContain(token);
    expect(h.logs()).not.toContain(token);
  });

  it('says so when already subscribed, and makes no duplicate platform subscription', async () => {
    await run(h, 'subscribe camp-1 call_completed', { channelId: CHANNEL });
    h.platform.reset();
    h.slack.reset();
    const { text } = await run(h, 'subscribe camp-1 call_completed', { channelId: CHANNEL });
    expect(text).toContain('already subscribed to `call_completed`');
    expect(subscribeRequests()).toHaveLength(0);
    expect(h.slack.messages(CHANNEL)).toHaveLength(0);
    expect(h.platform.state.subscriptions).toHaveLength(1);
  });

  it('adds only the missing events, and a second channel reuses the platform subscription', async () => {
    await run(h, 'subscribe camp-1 call_completed', { channelId: CHANNEL });
    const { text } = await run(h, 'subscribe camp-1 call_completed,call_started', { channelId: CHANNEL });
    expect(text).toContain('now receives `call_started`');
    expect(text).toContain('Already subscribed before: `call_completed`');
    h.platform.reset();
    await run(h, 'subscribe camp-1 call_completed', { channelId: OTHER });
    expect(subscribeRequests()).toHaveLength(0);
    expect(await h.bot.deps.store.routes.channelsFor(TEAM_ID, 'camp-1', 'call_completed')).toEqual([CHANNEL, OTHER]);
  });

  it('answers unknown event names with the valid ones and changes nothing', async () => {
    const { text } = await run(h, 'subscribe camp-1 call_ended bogus', { channelId: CHANNEL });
    expect(text).toContain('Unknown events `call_ended`, `bogus`');
    expect(text).toContain('`call_started`, `call_completed`, `message_received`, `message_sent`');
    expect(h.platform.requests).toHaveLength(0);
    expect(await routes()).toEqual([]);
  });

  it('asks for an invite when the bot is not in the channel, and stores nothing', async () => {
    h.slack.addChannel({ id: 'C0NOTIN001', name: 'closed-door', is_member: false });
    h.slack.expectRefusal('chat.postMessage', 'not_in_channel'); // the confirmation post is the membership check
    const { text } = await run(h, 'subscribe camp-1', { channelId: 'C0NOTIN001' });
    expect(text).toContain('/invite @Campaign');
    expect(subscribeRequests()).toHaveLength(0);
    expect(await routes()).toEqual([]);
  });

  it('subscribes nothing in an archived channel: a channel refusal as Slack’s error table says', async () => {
    h.slack.archiveChannel(CHANNEL);
    const { text } = await run(h, 'subscribe camp-1', { channelId: CHANNEL });
    expect(text).toContain('/invite @Campaign');
    expect(text).toContain('Nothing was subscribed.');
    expect(h.slack.callsTo('chat.postMessage').map((c) => c.response.error)).toEqual(['is_archived']);
    expect(subscribeRequests()).toHaveLength(0);
    expect(await routes()).toEqual([]);
  });

  it('explains an unknown campaign and leaves no route nor notice behind', async () => {
    const { text } = await run(h, 'subscribe nope-404 call_completed', { channelId: CHANNEL });
    expect(text).toContain('I don’t know a campaign “nope-404” — check its id');
    expect(await routes()).toEqual([]);
    expect(h.slack.messages(CHANNEL)).toHaveLength(0); // the confirmation was taken back
  });

  it('subscribes every campaign with *', async () => {
    await run(h, 'subscribe * call_completed', { channelId: CHANNEL });
    expect(subscribeRequests()[0]?.body).toMatchObject({ campaignId: '*', triggerName: 'call_completed' });
    expect(await h.bot.deps.store.routes.channelsFor(TEAM_ID, 'camp-9', 'call_completed')).toEqual([CHANNEL]);
  });

  it('is for admins only', async () => {
    const { text } = await run(h, 'subscribe camp-1', { channelId: CHANNEL, userId: MEMBER_ID });
    expect(text).toContain('Only Slack workspace admins');
    expect(h.platform.requests).toHaveLength(0);
  });
});

describe('/campaign subscribe without PUBLIC_URL', () => {
  it('tells the admin what is missing', async () => {
    const bare = await startEventsHarness({ publicUrl: null });
    try {
      const { text } = await run(bare, 'subscribe camp-1', { channelId: CHANNEL });
      expect(text).toContain('set `PUBLIC_URL`');
      expect(text).toContain('Nothing was subscribed');
      expect(bare.platform.requests).toHaveLength(0);
    } finally {
      await bare.close();
    }
  });
});

describe('/campaign unsubscribe', () => {
  it('tells the channel from its outbox: a 429 is waited out, not the notice dropped', async () => {
    await run(h, 'subscribe camp-1 call_completed', { channelId: CHANNEL });
    h.slack.rateLimit({ method: 'chat.postMessage', retryAfterSec: 1, times: 1 });
    expect((await run(h, 'unsubscribe camp-1', { channelId: CHANNEL })).text).toContain('no longer receives');
    await queueDrained(h);
    const tries = h.slack.callsTo('chat.postMessage').slice(1);
    expect(tries.map((c) => [c.status, c.response.ok])).toEqual([
      [429, false],
      [200, true],
    ]);
    expect(h.slack.messages(CHANNEL).at(-1)?.text).toMatch(/^🔕 This channel no longer receives `call_completed`/);
  });

  it('removes the route and unsubscribes upstream only when no channel needs it any more', async () => {
    await run(h, 'subscribe camp-1 call_completed', { channelId: CHANNEL });
    await run(h, 'subscribe camp-1 call_completed', { channelId: OTHER });
    const url = await hookUrl();

    const first = await run(h, 'unsubscribe camp-1 call_completed', { channelId: CHANNEL });
    expect(first.text).toContain('no longer receives `call_completed`');
    expect(unsubscribeRequests()).toHaveLength(0); // OTHER still needs it
    expect(await h.bot.deps.store.routes.channelsFor(TEAM_ID, 'camp-1', 'call_completed')).toEqual([OTHER]);

    await run(h, 'unsubscribe camp-1', { channelId: OTHER });
    expect(unsubscribeRequests().map((r) => [r.method, r.body])).toEqual([
      ['DELETE', { hookUrl: url, campaignId: 'camp-1', triggerName: 'call_completed', provider: 'custom' }],
    ]);
    expect(await routes()).toEqual([]);
    expect(h.platform.state.subscriptions).toEqual([]);
  });

  it('says so when the channel is not subscribed', async () => {
    await run(h, 'subscribe camp-1 call_completed', { channelId: CHANNEL });
    h.platform.reset();
    const { text } = await run(h, 'unsubscribe camp-1 call_started', { channelId: CHANNEL });
    expect(text).toContain('not subscribed to `call_started`');
    expect(h.platform.requests).toHaveLength(0);
  });

  it('keeps the route when the platform refuses with a 500, so it can be retried', async () => {
    await run(h, 'subscribe camp-1 call_started', { channelId: CHANNEL });
    h.platform.inject({ path: '/events-gateway/trigger/unsubscribe', status: 500, times: 1 });
    const { text } = await run(h, 'unsubscribe camp-1 call_started', { channelId: CHANNEL });
    expect(text).toContain('still subscribed');
    expect(text).toContain('internal error');
    expect(await routes()).toHaveLength(1);
  });
});

describe('/campaign subscriptions', () => {
  it('lists this channel’s routes and the platform’s hooks without ever printing a hook URL', async () => {
    await run(h, 'subscribe camp-1 call_completed call_started', { channelId: CHANNEL });
    await run(h, 'subscribe * message_received', { channelId: CHANNEL });
    // A hook registered by someone else for the same campaign.
    h.platform.state.subscriptions.push({
      hookUrl: 'https://other.example.com/in/s3cr3t-t0ken',
      campaignId: 'camp-1',
      triggerName: 'message_sent',
      provider: 'custom',
    });
    const { body, text } = await run(h, 'subscriptions camp-1', { channelId: CHANNEL, userId: MEMBER_ID });
    expect(body.response_type).toBe('ephemeral');
    expect(text).toContain('campaign `camp-1`: `call_completed`, `call_started`');
    expect(text).toContain('every campaign (`*`), which includes campaign `camp-1`: `message_received`');
    expect(text).toContain('`call_completed` → this workspace’s hook');
    expect(text).toContain('another receiver at https://other.example.com');
    expect(text).not.toContain('s3cr3t-t0ken');
    expect(text).not.toContain((await hookUrl()).split('/').at(-1));
    expect(text).toContain('no dead letters');
  });

  it('shows that this channel gets a campaign’s events through `*`, with the `*` hooks, instead of “no hooks”', async () => {
    await run(h, 'subscribe *', { channelId: CHANNEL });
    const { text } = await run(h, 'subscriptions camp-1', { channelId: CHANNEL });
    expect(h.platform.requests.some((r) => r.path === '/events-gateway/triggers/campaign/camp-1')).toBe(true);
    expect(h.platform.requests.some((r) => r.path === '/events-gateway/triggers/campaign/*')).toBe(true);
    expect(text).not.toContain('No hooks registered');
    expect(text).not.toContain('No events are posted here');
    expect(text).toContain('every campaign (`*`), which includes campaign `camp-1`: `call_completed`, `call_started`');
    expect(text).toContain('Through every campaign (`*`)');
    expect(text).toContain('`call_completed` → this workspace’s hook');
    expect(text).not.toContain('not registered to this workspace’s hook');
  });

  it('flags routed events the platform does not send to this workspace', async () => {
    await run(h, 'subscribe camp-1 call_completed', { channelId: CHANNEL });
    h.platform.state.subscriptions.length = 0; // lost upstream
    const { text } = await run(h, 'subscriptions camp-1', { channelId: CHANNEL });
    expect(text).toContain('not registered to this workspace’s hook: `call_completed`');
  });

  it('summarises an unexpected platform body safely', async () => {
    await run(h, 'subscribe camp-1 call_completed', { channelId: CHANNEL });
    const url = await hookUrl();
    h.platform.inject({
      path: '/events-gateway/triggers/campaign/camp-1',
      body: JSON.stringify({ hooks: { weird: [url, '<!channel>'] } }),
      times: 1,
    });
    const { text } = await run(h, 'subscriptions camp-1', { channelId: CHANNEL });
    expect(text).toContain('in a form this app does not know');
    expect(text).not.toContain(url.split('/').at(-1));
    expect(text).not.toContain('<!channel>');
  });

  it('says when nothing is routed here, and posts publicly with --public', async () => {
    const { body, text } = await run(h, 'subscriptions --public', { channelId: OTHER });
    expect(body.response_type).toBe('in_channel');
    expect(text).toContain('No events are posted here');
  });
});

describe('/campaign sample', () => {
  it('renders the platform’s sample exactly like a real post, marked as a sample, with the transcript after it', async () => {
    const { body, id, text } = await run(h, 'sample call_completed camp-1', { userId: MEMBER_ID });
    const req = h.platform.requests.find((r) => r.path === '/events-gateway/trigger/perform/call_completed');
    expect(req?.query).toEqual({ campaignId: 'camp-1' });
    expect(body.response_type).toBe('ephemeral');
    expect(textOf(findBlock(body.blocks, SAMPLE_MARKER_BLOCK))).toContain('Sample');
    expect(text).toContain('Call completed');
    expect(text).toContain('02:34'); // 154250 ms
    // The Recording button carries the address sealed: the sample's card shows none of it.
    expect(findAction(body.blocks, RECORDING_ACTION)?.value).toMatch(/^v1\./);
    expect(text).not.toContain('recordings.example.com');
    const transcript = await h.slack.waitFor(() => h.slack.responses.filter((r) => r.id === id)[1]);
    expect(JSON.stringify(transcript.body)).toContain('Tuesday works');
  });

  it('posts in the channel with --public: the conversation card, then the line its thread gets', async () => {
    const { id, body } = await run(h, 'sample message_received camp-3 --public');
    expect(body.response_type).toBe('in_channel');
    expect(textOf(body.blocks)).toContain('Chat with');
    expect(findAction(body.blocks, LINK_SESSION_ACTION)).toBeDefined();
    expect(findBlock(body.blocks, SAMPLE_MARKER_BLOCK)).toBeDefined();
    const line = await h.slack.waitFor(() => h.slack.responses.filter((r) => r.id === id)[1]);
    expect(line.body.response_type).toBe('in_channel');
    expect(JSON.stringify(line.body)).toContain('goes into the card’s thread');
    expect(JSON.stringify(line.body)).toContain('Can I move my appointment to Friday?');
  });

  it('names the valid events for an unknown one, and explains an unknown campaign', async () => {
    expect((await run(h, 'sample call_ended camp-1')).text).toContain('Valid events:');
    expect((await run(h, 'sample call_started nope-1')).text).toContain('I don’t know a campaign “nope-1”');
  });
});

describe('the card’s Recording button', () => {
  it('is acknowledged on a card posted when it was a link (Slack still sends a block action for one)', async () => {
    const res = await h.signer.blockAction({ actionId: 'call_recording_open', userId: MEMBER_ID, channelId: CHANNEL });
    expect(res.status).toBe(200);
    expect(res.timedOut).toBe(false);
  });
});

describe('/campaign subscriptions *', () => {
  it('shows the platform’s hooks for every campaign', async () => {
    await run(h, 'subscribe * call_started', { channelId: CHANNEL });
    const { text } = await run(h, 'subscriptions *', { channelId: CHANNEL });
    expect(h.platform.requests.some((r) => r.path === '/events-gateway/triggers/campaign/*')).toBe(true);
    expect(text).toContain('`call_started` → this workspace’s hook');
  });
});
