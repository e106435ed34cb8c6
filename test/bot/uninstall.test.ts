/**
 * Uninstall forgets the workspace, end to end (OAuth mode, two workspaces, memory / one Redis / a Redis
 * Cluster): both use every feature through Slack and their hooks — routes, digests, quota alerts, an SLA,
 * an agent link, calls, handoff conversations (one closed), a thread reply with a file (a link sent to the
 * customer), a claim, a channel the bot was
 * removed from (a dead letter, a paused channel). Then one uninstalls the app. A scan of everything stored
 * finds no key or value naming it and none of its customers' names, numbers or message texts; an event
 * queued for it afterwards is dropped, not posted and not kept; the other workspace's data is untouched and
 * its events still land.
 */
import { describe, expect, it } from 'vitest';
import { CLAIM_ACTION } from '../../src/handoff/card.js';
import { SlackSigner } from '../fakes/slack-signer.js';
import { SIGNING_SECRET, useHarness } from '../support/harness.js';
import { installApp } from '../support/oauth.js';
import { requireRedis } from '../support/redis.js';
import { requireCluster } from '../support/redis-cluster.js';
import { holding, memoryText, redisText, type StoredText } from '../support/stored-text.js';
import { deliver, localHookUrl, run, startEventsHarness } from '../events/support.js';
import { queueIdle } from '../store/backends.js';
import { phaseOf } from '../../src/util/spread.js';

const redis = await requireRedis();
const cluster = await requireCluster();

/** What the bot waits before forgetting an uninstalled workspace once more (src/bot/uninstall.ts). */
const FORGET_AGAIN_MS = 5 * 60_000;

interface Workspace {
  team: string;
  admin: string;
  agent: string;
  apiKey: string;
  campaign: string;
  /** Calls and conversations are posted here. */
  channel: string;
  /** Subscribed, then the bot is removed from it. */
  goneChannel: string;
  customer: { name: string; number: string };
  closedCustomer: { name: string; number: string };
  /** A file sent to the customer with the thread reply (its link is kept until it expires, or uninstall). */
  file: string;
  /** Its link as the platform got it, on this machine. */
  link?: string;
  texts: { asked: string; answered: string; replied: string; transcript: string; late: string };
  signer?: SlackSigner;
  hook?: string;
}

function workspace(team: string, tag: string, n: number): Workspace {
  return {
    team,
    admin: `U0ADMIN${tag}1`,
    agent: `U0AGENT${tag}1`,
    apiKey: `ck_live_uninstall_${tag}_00000000000000${tag}${tag}`,
    campaign: `camp-${n}`,
    channel: `C0CALLS${tag}1`,
    goneChannel: `C0GONE${tag}01`,
    customer: { name: `Customer ${tag}lvira Quist`, number: `+1555019${n}001` },
    closedCustomer: { name: `Customer ${tag}ugo Closewell`, number: `+1555019${n}002` },
    file: `quote-${tag}-parcel.pdf`,
    texts: {
      asked: `Is my ${tag}-parcel at the depot?`,
      answered: `Yes, the ${tag}-parcel waits at gate 7`,
      replied: `I will bring the ${tag}-parcel myself`,
      transcript: `Customer: please call me back about ${tag}-invoice 88`,
      late: `A ${tag}-message after the uninstall`,
    },
  };
}

/** What the store keeps of a workspace while it is installed: gone after the uninstall (kept, for the other one). */
function keptWhileInstalled(w: Workspace): string[] {
  return [
    w.team,
    w.customer.name,
    w.customer.number,
    w.closedCustomer.name,
    w.closedCustomer.number,
    w.texts.replied, // the thread reply's record
    w.file, // the reply's file, and its link's record
  ];
}

/** Everything of a workspace a scan could find, had the bot kept it (messages are posted, not kept). */
function traces(w: Workspace): string[] {
  return [...keptWhileInstalled(w), ...Object.values(w.texts), w.apiKey];
}

/** The latest time at or before `at` that is `team`'s phase of the default quota-check period. */
function lastPhasePoint(at: number, team: string): number {
  const period = 900_000;
  return at - ((((at - phaseOf(team, period)) % period) + period) % period);
}

describe.each(['memory', 'redis', 'cluster'] as const)('uninstalling (%s store)', (backend) => {
  const gone = workspace('T0GONEWS01', 'A', 1);
  const kept = workspace('T0KEPTWS02', 'B', 2);
  // Just after the kept workspace's point of the quota-check period (each workspace checks at its own): its
  // next check is a whole period (QUOTA_CHECK_S, 900 s) away, beyond the ten minutes this test moves its clock.
  const clock = { now: lastPhasePoint(Date.now(), kept.team) + 1_000 };
  const h = useHarness(() =>
    startEventsHarness({
      oauth: true,
      defaultApiKey: false,
      ...(backend === 'redis'
        ? { redisUrl: redis.url, keyPrefix: `${redis.prefix}uninstall:` }
        : backend === 'cluster'
          ? { redisClusterNodes: cluster.spec, keyPrefix: `${redis.prefix}uninstall:` }
          : {}),
      bot: { now: () => clock.now },
      unlimitedSlackBecause: 'what is stored, not pace: each workspace posts cards, lines and notices in one channel',
    }),
  );

  const stored = (): Promise<StoredText> => {
    const store = h.bot.deps.store;
    if (backend === 'memory') return memoryText(store, [gone.team, kept.team]);
    return redisText(backend === 'redis' ? redis.redis : cluster.client, store.keys.prefix);
  };
  /** Waits for a log line about `team`. */
  const logged = (team: string, line: string) =>
    h.slack.waitFor(
      () =>
        h
          .logs()
          .split('\n')
          .some((l) => l.includes(line) && l.includes(team)) || undefined,
    );
  /** What Slack does when a workspace removes the app: revokes its tokens, then tells the bot. */
  async function uninstall(w: Workspace): Promise<void> {
    const token = await h.bot.deps.store.installations.botToken(w.team);
    await fetch(`${h.slack.apiUrl}apps.uninstall`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: h.env.SLACK_CLIENT_ID!, client_secret: h.env.SLACK_CLIENT_SECRET! }),
    });
    expect((await w.signer!.event({ type: 'app_uninstalled' }, { teamId: w.team })).status).toBe(200);
    await logged(w.team, 'workspace uninstalled: everything kept for it is deleted');
  }

  /** `/campaign <text>` from the workspace's admin in `channel`; resolves with the answer. */
  async function ask(w: Workspace, text: string, channel = w.channel): Promise<string> {
    const id = `${w.team}-${text}-${Math.random()}`;
    const res = await w.signer!.command({
      text,
      userId: w.admin,
      teamId: w.team,
      channelId: channel,
      responseUrlId: id,
    });
    expect(res.status).toBe(200);
    const answer = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === id));
    return JSON.stringify(answer.body);
  }

  async function send(w: Workspace, events: Array<Record<string, unknown>>): Promise<void> {
    for (const event of events) expect((await deliver(w.hook!, [event])).status).toBe(200);
  }

  /** Everything a workspace does with the bot, as its people and the platform do it. */
  async function use(w: Workspace): Promise<void> {
    await installApp(h, w.team);
    h.platform.addApiKey(w.apiKey);
    await h.bot.deps.store.workspaces.setApiKey(w.team, w.apiKey, { verifiedBy: w.admin });
    h.slack.addUser({ id: w.admin, name: `admin-${w.team}`, is_admin: true });
    h.slack.addUser({ id: w.agent, name: `agent-${w.team}` });
    w.signer = new SlackSigner({
      signingSecret: SIGNING_SECRET,
      url: `${h.url}/slack/events`,
      teamId: w.team,
      fake: h.slack,
    });

    expect(await ask(w, `subscribe ${w.campaign}`)).toContain('✅');
    expect(await ask(w, `subscribe ${w.campaign} call_completed`, w.goneChannel)).toContain('✅');
    const sub = h.platform.state.subscriptions.find((s) => s.campaignId === w.campaign);
    w.hook = localHookUrl(h, sub!.hookUrl);
    // Far from now, so that no digest falls due while the test moves its clock.
    const hour = String((new Date(clock.now).getUTCHours() + 12) % 24).padStart(2, '0');
    expect(await ask(w, `digest daily * at ${hour}:00 tz UTC`)).toContain('✅');
    await ask(w, 'quota-alert 80 90');
    expect(await ask(w, 'handoff-sla 10')).toContain('✅');
    expect(await ask(w, `agent-link <@${w.agent}> agent-${w.team}`)).toContain(w.agent);

    // A call, with its transcript in the card's thread.
    const call = { campaignId: w.campaign, callId: `call-${w.team}`, customerName: w.customer.name };
    await send(w, [
      { ...call, triggerName: 'call_started', customerNumber: w.customer.number },
      {
        ...call,
        triggerName: 'call_completed',
        customerNumber: w.customer.number,
        callTranscript: w.texts.transcript,
        status: 'completed',
        endedAt: '2024-03-08T16:41:09Z',
      },
    ]);
    // A conversation: the customer asks, the platform's agent answers, a person replies in the thread and claims it.
    const talk = { campaignId: w.campaign, customerName: w.customer.name, customerNumber: w.customer.number };
    const sessionId = `sess-${w.team}`;
    h.platform.state.sessions[sessionId] = { campaignId: w.campaign, handoff: true };
    await send(w, [
      {
        ...talk,
        triggerName: 'message_received',
        messageContent: w.texts.asked,
        receivedAt: '2024-03-08T16:45:00Z',
        sessionId,
      },
      { ...talk, triggerName: 'message_sent', messageContent: w.texts.answered, sentAt: '2024-03-08T16:45:04Z' },
    ]);
    // The conversation's card: the parent of the thread the customer's message went to.
    const line = await h.slack.waitFor(() =>
      h.slack.messages(w.channel).find((m) => m.thread_ts && JSON.stringify(m).includes(w.texts.asked)),
    );
    const card = { ts: line.thread_ts! };
    await h.slack.waitFor(() => h.slack.thread(w.channel, card.ts).length >= 3 || undefined);
    const file = h.slack.addFile({
      name: w.file,
      mimetype: 'application/pdf',
      data: Buffer.from(w.file),
      teamId: w.team,
    });
    await w.signer.event(
      {
        type: 'message',
        subtype: 'file_share',
        channel: w.channel,
        user: w.agent,
        text: w.texts.replied,
        thread_ts: card.ts,
        files: [file],
      },
      { teamId: w.team },
    );
    const sent = await h.slack.waitFor(() =>
      h.platform.state.humanResponses.find((r) => r.sessionId === sessionId && r.attachments?.length),
    );
    w.link = `${h.url}${new URL(sent.attachments![0]!).pathname}`;
    expect((await fetch(w.link)).status).toBe(200);
    await w.signer.blockAction({ actionId: CLAIM_ACTION, channelId: w.channel, messageTs: card.ts, userId: w.agent });
    // Another conversation, closed.
    const closed = {
      campaignId: w.campaign,
      customerName: w.closedCustomer.name,
      customerNumber: w.closedCustomer.number,
    };
    await send(w, [
      { ...closed, triggerName: 'message_received', messageContent: 'thanks, bye', receivedAt: '2024-03-08T17:00:00Z' },
      { ...closed, triggerName: 'message_session_completed', completedAt: '2024-03-08T17:01:00Z' },
    ]);
    // The bot is removed from a subscribed channel: the channel is paused, and the next call there waits in it.
    h.slack.expectRefusal('chat.postMessage', 'not_in_channel');
    h.slack.addChannel({ id: w.goneChannel, name: `gone-${w.team}`, is_member: false });
    await send(w, [
      { ...call, callId: `call-${w.team}-2`, triggerName: 'call_completed', endedAt: '2024-03-08T18:00:00Z' },
    ]);
    const { store } = h.bot.deps;
    await h.slack.waitFor(
      async () =>
        (await store.channelPauses.get(w.team, w.goneChannel)) !== undefined &&
        (await store.outbox.size({ teamId: w.team, channelId: w.goneChannel })) === 1,
    );
    await queueIdle(store.queue);
    // The queue hands events on: what they post goes out from the channels' outboxes, done when none but the
    // paused channel has work waiting or a replica posting there.
    await h.slack.waitFor(async () => {
      const others = (at: { teamId: string; channelId: string }) =>
        at.teamId === w.team && at.channelId !== w.goneChannel;
      const posting = (await store.kv.keysWithPrefix(store.keys.outboxLease(w.team, ''))).filter(
        (key) => !key.endsWith(w.goneChannel),
      );
      return (await store.outbox.channels()).filter(others).length === 0 && posting.length === 0;
    });
    await h.slack.waitFor(
      () => h.logs().includes(w.texts.replied) || h.slack.thread(w.channel, card.ts).length >= 4 || undefined,
    );
  }

  it('leaves nothing of the workspace: no key, no value, none of its customers; the other one keeps everything', async () => {
    await use(gone);
    await use(kept);
    const before = await stored();
    for (const text of [...keptWhileInstalled(gone), ...keptWhileInstalled(kept)])
      expect([text, holding(before, text).length > 0]).toEqual([text, true]);
    // A posting lease is held for a moment whenever a replica looks at a channel (the paused one too), and a Slack
    // rate budget goes once its bucket is full again: neither is data.
    const keptData = (keys: StoredText) =>
      holding(keys, kept.team)
        .filter((key) => !key.includes(':outbox-lease:') && !key.includes(':rate-budget:'))
        .sort();
    const keptKeys = keptData(before);
    // No key name holds a customer's number (a keyed hash stands for it).
    const customers = [gone, kept].flatMap((w) => [w.customer.number, w.closedCustomer.number]);
    const named = [...before.keys()].filter((k) => customers.some((c) => k.includes(c.slice(2))));
    expect(named).toEqual([]);

    await uninstall(gone);

    // An event that slipped in just before its hook stopped resolving (a webhook under way) is dropped.
    const postsBefore = h.slack.callsTo('chat.postMessage').length;
    await h.bot.deps.store.queue.enqueueOnce(
      'late-1',
      {
        teamId: gone.team,
        orderKey: JSON.stringify(['conversation', gone.team, gone.campaign, gone.customer.number]),
        payload: {
          v: 1,
          trigger: 'message_received',
          event: {
            campaignId: gone.campaign,
            customerName: gone.customer.name,
            customerNumber: gone.customer.number,
            messageContent: gone.texts.late,
            receivedAt: '2024-03-08T19:00:00Z',
          },
          dedupKey: 'late-1',
          receivedAt: clock.now,
        },
      },
      60_000,
    );
    await logged(gone.team, 'event dropped: its workspace uninstalled the app');
    // The kept workspace's call still waits for its paused channel; the queue itself is done.
    await queueIdle(h.bot.deps.store.queue);
    expect(h.slack.callsTo('chat.postMessage').length).toBe(postsBefore);
    expect((await h.bot.deps.store.queue.deadLetters(gone.team)).count).toBe(0);

    // Once work under way at the uninstall is over, the bot forgets the workspace once more.
    clock.now += FORGET_AGAIN_MS;
    await h.bot.deps.timers.runDue();
    await logged(gone.team, 'uninstalled workspace forgotten once more');

    const after = await stored();
    for (const text of traces(gone)) expect([text, holding(after, text)]).toEqual([text, []]);
    expect(keptData(after)).toEqual(keptKeys);
    for (const text of keptWhileInstalled(kept)) expect([text, holding(after, text).length > 0]).toEqual([text, true]);

    // Its file link opens nothing; the other workspace's still does.
    expect((await fetch(gone.link!)).status).toBe(404);
    expect((await fetch(kept.link!)).status).toBe(200);

    // Its hook is dead; the other workspace's still lands.
    expect((await deliver(gone.hook!, [{ campaignId: gone.campaign, callId: 'call-x' }])).status).toBe(404);
    await send(kept, [
      {
        campaignId: kept.campaign,
        triggerName: 'message_received',
        customerName: kept.customer.name,
        customerNumber: kept.customer.number,
        messageContent: kept.texts.late,
        receivedAt: '2024-03-08T19:00:00Z',
      },
    ]);
    await h.slack.waitFor(() => JSON.stringify(h.slack.messages(kept.channel)).includes(kept.texts.late) || undefined);
  });

  it('keeps what a workspace set up after installing the app again, within minutes of removing it', async () => {
    const back = workspace('T0BACKWS03', 'C', 3);
    await installApp(h, back.team);
    h.platform.addApiKey(back.apiKey);
    await h.bot.deps.store.workspaces.setApiKey(back.team, back.apiKey, { verifiedBy: back.admin });
    h.slack.addUser({ id: back.admin, name: 'admin-back', is_admin: true });
    back.signer = new SlackSigner({
      signingSecret: SIGNING_SECRET,
      url: `${h.url}/slack/events`,
      teamId: back.team,
      fake: h.slack,
    });
    expect(await ask(back, `subscribe ${back.campaign}`)).toContain('✅');
    await uninstall(back);
    expect(await h.bot.deps.store.routes.listForTeam(back.team)).toEqual([]);

    await installApp(h, back.team);
    await h.bot.deps.store.workspaces.setApiKey(back.team, back.apiKey, { verifiedBy: back.admin });
    expect(await ask(back, `subscribe ${back.campaign}`)).toContain('✅');
    clock.now += FORGET_AGAIN_MS;
    await h.bot.deps.timers.runDue();
    await logged(back.team, 'installed the app again: not forgotten once more');
    expect(await h.bot.deps.store.routes.listForTeam(back.team)).toHaveLength(4);
    expect(await h.bot.deps.store.installations.botToken(back.team)).toMatch(/^xoxb-/);
  });
});

describe('uninstalling, and the platform’s subscriptions', () => {
  it('removes every one, past one the platform answers 400 for (no such subscription: already gone)', async () => {
    const h = await startEventsHarness();
    try {
      const answer = await run(h, 'subscribe camp-1 call_started call_completed', { channelId: 'C0CALLS001' });
      expect(answer.text).toContain('✅');
      expect(h.platform.state.subscriptions).toHaveLength(2);
      h.platform.inject({ method: 'DELETE', path: '/events-gateway/trigger/unsubscribe', status: 400, times: 1 });

      expect((await h.signer.event({ type: 'app_uninstalled' })).status).toBe(200);
      await h.slack.waitFor(() => (h.logs().includes('workspace uninstalled') ? true : undefined));

      // Both were asked for; the one not answered 400 is gone, and the uninstall saw nothing amiss.
      const asked = h.platform.requests.filter((r) => r.path === '/events-gateway/trigger/unsubscribe');
      expect(asked.map((r) => r.method)).toEqual(['DELETE', 'DELETE']);
      expect(h.platform.state.subscriptions).toHaveLength(1);
      expect(h.logs()).not.toContain('could not unsubscribe');
    } finally {
      await h.close();
    }
  });
});
