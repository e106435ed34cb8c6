/**
 * Filtered routes (docs/PRODUCT.md › Route filters), in memory and on Redis: an admin's signed `/campaign subscribe`
 * with filters, webhooks in as the platform sends them, and which channels Slack got posts in.
 */
import { describe, expect, it } from 'vitest';
import { ADMIN_ID, TEAM_ID, useHarness } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { CALL_COMPLETED_FULL, CALL_STARTED_FULL, MESSAGE_RECEIVED_FULL } from './fixtures.js';
import { PUBLIC_URL, deliver, posts, queueDrained, run, startEventsHarness } from './support.js';

const redis = await requireRedis();

/** The manager's channel with filters. */
const FILTERED = 'C0FAILED01';
/** An unfiltered channel on the same events: every delivery shows up there. */
const EVERYTHING = 'C0EVERYTHG';

describe.each(['memory', 'redis'] as const)('filtered routes (%s)', (mode) => {
  const h = useHarness(
    () =>
      startEventsHarness({
        ...(mode === 'redis' ? { redisUrl: redis.url, keyPrefix: `${redis.prefix}filters:` } : {}),
        unlimitedSlackBecause:
          'which events reach which channel, not pace: each test posts a dozen cards into one channel (pacing: test/events/pacing.test.ts)',
      }),
    ['platform', 'slack', 'routes'],
  );

  const subscribeRequests = () => h.platform.requests.filter((r) => r.path === '/events-gateway/trigger/subscribe');
  const routesIn = (channel: string) => h.bot.deps.store.routes.listForChannel(TEAM_ID, channel);
  const hook = async () => `${h.url}/hooks/${await h.bot.deps.store.workspaces.getHookToken(TEAM_ID)}`;
  /** Events the worker has finished with (posted, handed to the call outbox, or routed nowhere). */
  const handled = () =>
    (h.logs().match(/"msg":"(event posted|event handed on|no channel is subscribed[^"]*)"/g) ?? []).length;
  /** Top-level posts of events (not the subscribe notices). */
  const eventPosts = (channel: string) => posts(h, channel).filter((m) => !m.text.startsWith('📣'));
  const callIdsIn = (channel: string) =>
    eventPosts(channel)
      .filter((m) => m.text.startsWith('Call completed'))
      .map((m) => /call `([^`]+)`/.exec(JSON.stringify(m.blocks))?.[1]);

  /** Delivers each event as the platform does, then waits until the worker has handled them all. */
  async function deliverAll(events: readonly object[]): Promise<void> {
    const url = await hook();
    const before = handled();
    for (const event of events) expect((await deliver(url, [event])).status).toBe(200);
    await h.slack.waitFor(() => handled() >= before + events.length, 5_000);
    // Calls go out at Slack's pace per channel.
    await queueDrained(h);
  }

  let n = 0;
  const completed = (fields: Record<string, unknown>) => ({
    ...CALL_COMPLETED_FULL,
    callId: `call-${mode}-${++n}`,
    durationMs: undefined,
    durationSeconds: undefined,
    durationMinutes: undefined,
    ...fields,
  });

  it('posts only the failed or busy calls of 90 s or more; an unfiltered channel still gets every call', async () => {
    const { text } = await run(h, 'subscribe * status:failed,busy min:90s', { channelId: FILTERED });
    expect(text).toContain('now receives `call_completed` (only `status:busy,failed` `min:1m30s`) for every campaign');
    expect(text).toContain('Only `call_completed` has a status, ended reason and duration');
    // The platform knows nothing of filters: one hook for the one event.
    expect(subscribeRequests().map((r) => r.body)).toEqual([
      {
        hookUrl: expect.stringMatching(new RegExp(`^${PUBLIC_URL}/hooks/`)) as unknown,
        campaignId: '*',
        triggerName: 'call_completed',
        provider: 'custom',
      },
    ]);
    expect(h.slack.messages(FILTERED)[0]?.text).toContain(
      '`call_completed` (only `status:busy,failed` `min:1m30s`) events for every campaign',
    );
    await run(h, 'subscribe * call_completed', { channelId: EVERYTHING });

    const calls = [
      completed({ status: 'failed', durationMs: 120_000 }),
      completed({ status: 'completed', durationMs: 300_000 }),
      completed({ status: 'busy', durationMs: 30_000 }),
      completed({ status: 'FAILED', durationSeconds: 95 }),
      completed({ status: 'busy', durationMinutes: 1.5 }),
      completed({ status: 'failed' }), // no duration: can't be 90 s or more
      completed({ status: undefined, durationMs: 600_000 }),
      completed({ status: 'Busy ', durationMs: 90_000 }), // bounds included
      completed({ status: 'busy_signal', durationMs: 600_000 }),
    ];
    await deliverAll(calls);
    expect(callIdsIn(EVERYTHING).sort()).toEqual(calls.map((c) => c.callId).sort());
    expect(callIdsIn(FILTERED).sort()).toEqual(
      [calls[0]!.callId, calls[3]!.callId, calls[4]!.callId, calls[7]!.callId].sort(),
    );
  });

  it('shows the filters in /campaign subscriptions and in App Home', async () => {
    await run(h, 'subscribe camp-1 call_completed reason:Voicemail,no-answer max:5m agent:agent-7', {
      channelId: FILTERED,
    });
    await run(h, 'subscribe camp-1 call_started', { channelId: FILTERED });
    const { text } = await run(h, 'subscriptions', { channelId: FILTERED });
    expect(text).toContain(
      'campaign `camp-1`: `call_completed` (only `reason:no-answer,voicemail` `agent:agent-7` `max:5m`), `call_started`',
    );

    const before = h.slack.callsTo('views.publish').length;
    expect(
      (await h.signer.event({ type: 'app_home_opened', user: ADMIN_ID, tab: 'home', channel: 'D0HOME0001' })).status,
    ).toBe(200);
    const home = await h.slack.waitFor(() => h.slack.callsTo('views.publish')[before]);
    const view = JSON.stringify(home.args.view);
    expect(view).toContain(
      'campaign `camp-1`: `call_completed` (only `reason:no-answer,voicemail` `agent:agent-7` `max:5m`)',
    );
    expect(view).toContain('campaign `camp-1`: `call_started`"');
  });

  it('replaces the channel’s filters with the latest subscribe, without another platform hook', async () => {
    await run(h, 'subscribe * status:failed', { channelId: FILTERED });
    h.platform.reset();
    const replaced = await run(h, 'subscribe * call_completed agent:agent-7', { channelId: FILTERED });
    expect(replaced.text).toContain('now receives `call_completed` (only `agent:agent-7`)');
    expect(replaced.text).toContain(
      'It replaces what this channel had: `call_completed` (only `status:failed`) (the latest subscribe sets a channel’s filters)',
    );
    expect((await routesIn(FILTERED)).map((r) => r.filters)).toEqual([{ agent: ['agent-7'] }]);

    const same = await run(h, 'subscribe * call_completed AGENT:Agent-7', { channelId: FILTERED });
    expect(same.text).toContain(
      'already subscribed to `call_completed` (only `agent:agent-7`) for every campaign (`*`) — nothing changed',
    );

    const cleared = await run(h, 'subscribe * call_completed', { channelId: FILTERED });
    expect(cleared.text).toContain('now receives `call_completed` for every campaign');
    expect((await routesIn(FILTERED)).map((r) => r.filters)).toEqual([undefined]);
    expect(subscribeRequests()).toHaveLength(0);
    expect(h.platform.state.subscriptions).toHaveLength(1);
  });

  it('filters every event by campaign type and agent; chat messages ignore the call-only filters', async () => {
    const { text } = await run(
      h,
      'subscribe * call_started message_received type:Inbound,messages agent:agent-9 min:5m',
      { channelId: FILTERED },
    );
    expect(text).toContain('`call_started` can’t be filtered by status, ended reason, summary or duration');
    expect(await routesIn(FILTERED)).toEqual([]);

    const chats = await run(h, 'subscribe * message_received type:Inbound,messages agent:agent-9 min:5m', {
      channelId: FILTERED,
    });
    expect(chats.text).toContain('`message_received` (only `type:inbound,messages` `agent:agent-9`)');
    expect(chats.text).toContain('Chat messages have no status, ended reason, summary nor duration');
    await run(h, 'subscribe * call_started type:inbound', { channelId: FILTERED });
    await run(h, 'subscribe * call_started message_received', { channelId: EVERYTHING });

    await deliverAll([
      { ...MESSAGE_RECEIVED_FULL, customerNumber: '+14155550901', messageContent: 'from the right agent' },
      {
        ...MESSAGE_RECEIVED_FULL,
        customerNumber: '+14155550902',
        agentId: 'agent-3',
        messageContent: 'from another agent',
      },
      { ...MESSAGE_RECEIVED_FULL, customerNumber: '+14155550903', agentId: undefined, messageContent: 'from no agent' },
      { ...CALL_STARTED_FULL, callId: `start-${mode}-out`, customerNumber: '+14155550911', campaignType: 'outbound' },
      { ...CALL_STARTED_FULL, callId: `start-${mode}-in`, customerNumber: '+14155550912', campaignType: 'INBOUND' },
    ]);
    expect(eventPosts(EVERYTHING)).toHaveLength(5);
    const here = eventPosts(FILTERED).map((m) => JSON.stringify(m));
    expect(here).toHaveLength(2);
    expect(here.some((m) => m.includes('+14155550901'))).toBe(true);
    expect(here.some((m) => m.includes('+14155550912'))).toBe(true);
    const card = eventPosts(FILTERED).find((m) => JSON.stringify(m).includes('+14155550901'))!;
    await h.slack.waitFor(() =>
      h.slack.thread(FILTERED, card.ts).some((m) => JSON.stringify(m).includes('from the right agent')),
    );
  });

  it('posts hot leads with a mention of the group and the words found; cold calls stay out; a bare @name is refused', async () => {
    const bare = await run(h, 'subscribe camp-1 call_completed summary:interested notify:@sales', {
      channelId: FILTERED,
    });
    expect(bare.text).toContain('`notify:` needs the person or user group picked from Slack’s list');
    expect(bare.text).toContain('`@sales` typed out is only text');
    expect(await routesIn(FILTERED)).toEqual([]);

    // As Slack sends the command once the group and the person were picked from its list (escaped mentions).
    const { text } = await run(
      h,
      'subscribe camp-1 call_completed summary:interested,Booked-a-Demo notify:<!subteam^S0SALES01|@sales>,<@U0ADMIN01|ada>',
      { channelId: FILTERED },
    );
    expect(text).toContain(
      'now receives `call_completed` (only `summary:booked-a-demo,interested`; mentioning `@sales`, `@ada`) for campaign `camp-1`',
    );
    await run(h, 'subscribe camp-1 call_completed', { channelId: EVERYTHING });

    const calls = [
      completed({ callSummary: 'Very INTERESTED in the premium plan, call back Monday.' }),
      completed({ callSummary: 'No answer; left a voicemail.' }),
      completed({ callSummary: 'Said they are uninterested.' }),
      completed({ callSummary: 'They booked a demo for Friday 3pm!' }),
      completed({ callSummary: undefined }),
    ];
    await deliverAll(calls);
    const idOf = (m: { blocks?: unknown }) => /call `([^`]+)`/.exec(JSON.stringify(m.blocks))?.[1];
    expect(eventPosts(EVERYTHING).map(idOf).sort()).toEqual(calls.map((c) => c.callId).sort());
    expect(eventPosts(EVERYTHING).every((m) => m.text.startsWith('Call completed'))).toBe(true);
    const hot = eventPosts(FILTERED);
    expect(hot.map(idOf).sort()).toEqual([calls[0]!.callId, calls[3]!.callId].sort());
    const lines = hot.map((m) => (m.blocks?.[0] as { text?: { text?: string } } | undefined)?.text?.text);
    expect(lines.sort()).toEqual([
      '🔥 *Hot lead* for <!subteam^S0SALES01> <@U0ADMIN01> — the summary mentions “booked a demo”',
      '🔥 *Hot lead* for <!subteam^S0SALES01> <@U0ADMIN01> — the summary mentions “interested”',
    ]);
    // The notification text names them first, so Slack notifies the group and the person.
    for (const m of hot)
      expect(m.text).toMatch(/^<!subteam\^S0SALES01> <@U0ADMIN01> 🔥 Hot lead: Call completed with /);
  });

  it('answers an unknown filter or a bad value with the valid ones, and changes nothing', async () => {
    const answers = [
      [
        'subscribe camp-1 colour:red',
        'Unknown filter `colour`. Filters: `status:&lt;a,b&gt;`, `reason:&lt;endedReason,…&gt;`',
      ],
      // Names an object inherits are no filters either: each was once taken, and the route left unfiltered.
      [
        'subscribe camp-1 constructor:x',
        'Unknown filter `constructor`. Filters: `status:&lt;a,b&gt;`, `reason:&lt;endedReason,…&gt;`',
      ],
      ['subscribe camp-1 __proto__:x', 'Unknown filter `__proto__`. Filters: `status:&lt;a,b&gt;`'],
      ['subscribe camp-1 tostring:x', 'Unknown filter `tostring`. Filters: `status:&lt;a,b&gt;`'],
      ['subscribe camp-1 min:soon', '`min:` takes a duration like `90s`, `5m`, `1m30s` or `1h`'],
      ['subscribe camp-1 status:', '`status:` takes one or more call statuses separated by commas'],
      ['subscribe camp-1 agent:<@U0ADMIN01>', '`agent:` takes one or more agent ids'],
      ['subscribe camp-1 min:5m max:1m', '`min:5m` is longer than `max:1m`'],
      ['subscribe status:failed', 'The campaign id (or `*`) comes first'],
      ['subscribe camp-1 call_completed min:1m min:2m', '`min:` is given twice'],
    ] as const;
    for (const [command, answer] of answers) {
      const { text } = await run(h, command, { channelId: FILTERED });
      expect(text, command).toContain(answer);
    }
    expect(h.platform.requests).toHaveLength(0);
    expect(h.slack.messages(FILTERED)).toHaveLength(0);
    expect(await h.bot.deps.store.routes.listForTeam(TEAM_ID)).toEqual([]);
  });

  it('unsubscribe removes a filtered route whatever its filters; rotate-hook keeps them', async () => {
    await run(h, 'subscribe camp-1 call_completed status:failed', { channelId: FILTERED });
    await run(h, 'subscribe camp-1 call_started call_completed', { channelId: EVERYTHING });
    await run(h, 'rotate-hook', { channelId: FILTERED });
    expect((await routesIn(FILTERED)).map((r) => [r.triggerName, r.filters])).toEqual([
      ['call_completed', { status: ['failed'] }],
    ]);
    await deliverAll([
      completed({ campaignId: 'camp-1', status: 'failed' }),
      completed({ campaignId: 'camp-1', status: 'completed' }),
    ]);
    expect(callIdsIn(FILTERED)).toHaveLength(1);

    const refused = await run(h, 'unsubscribe camp-1 call_completed status:failed', { channelId: FILTERED });
    expect(refused.text).toContain('`/campaign unsubscribe` takes no filters');
    expect(await routesIn(FILTERED)).toHaveLength(1);
    const { text } = await run(h, 'unsubscribe camp-1 call_completed', { channelId: FILTERED });
    expect(text).toContain('no longer receives `call_completed`');
    expect(await routesIn(FILTERED)).toEqual([]);
    expect(await routesIn(EVERYTHING)).toHaveLength(2);
  });
});
