/**
 * A leaked hook URL flooded with events of a known trigger for a campaign no channel subscribes to. Each such
 * event is taken, handled at once (it goes nowhere) and leaves only what stops a retry from posting twice and the
 * count `/campaign subscriptions` shows: before, a dedup mark and an "unrouted, counted" mark per event, one key
 * each, for 2 and 7 days, outside the workspace's budget — 20,000 events left 40,000 keys and 5.4 MB (`MEMORY
 * USAGE`) for a budget of 2 MB, and nothing stopped the flood. Now the dedup marks are counted in
 * HOOK_MAX_BACKLOG_MB (one sorted set per workspace) and the counted marks are one capped set: the flood is held
 * within the budget, answered 429 + Retry-After once it is spent, while another workspace's webhooks are taken.
 *
 * 2 MB rather than the default 64: 20,000 events' marks alone (2.9 MB) spend it, so the flood meets the cap.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEAM_ID, type Harness, type HarnessOptions } from '../support/harness.js';
import { installApp } from '../support/oauth.js';
import { requireRedis } from '../support/redis.js';
import { CALL_COMPLETED_FULL, CALL_STARTED_FULL } from './fixtures.js';
import { deliver, posts, queueDrained, startEventsHarness } from './support.js';

const redis = await requireRedis();
const MIB = 1024 * 1024;
const BUDGET_MB = 2;
const OTHER_TEAM = 'T0OTHERFLD';
const EVENTS = 20_000;
/** Events per delivery (the most the hook takes in one): the flood in 200 POSTs. */
const PER_DELIVERY = 100;

const modes: { name: 'memory' | 'redis'; store: () => HarnessOptions }[] = [
  { name: 'memory', store: () => ({}) },
  { name: 'redis', store: () => ({ redisUrl: redis.url, keyPrefix: `${redis.prefix}flood:` }) },
];

describe.each(modes)(
  'a leaked hook URL flooded with events for a campaign no channel subscribes to ($name)',
  (mode) => {
    let h: Harness;
    beforeAll(async () => {
      h = await startEventsHarness({
        oauth: true,
        defaultApiKey: false,
        publicUrl: null,
        ...mode.store(),
        // Each flooded event logs a line at info: the flood's 20,000 are not what this test reads.
        env: { HOOK_MAX_BACKLOG_MB: String(BUDGET_MB), LOG_LEVEL: 'warn' },
      });
      await installApp(h, TEAM_ID);
      await installApp(h, OTHER_TEAM);
    });
    afterAll(async () => {
      await h.close();
    });

    /** Routes the campaign's trigger of `teamId` to `channelId`; returns the team's local hook URL. */
    async function hookFor(teamId: string, triggerName: string, channelId: string): Promise<string> {
      const { store } = h.bot.deps;
      await store.routes.add({ teamId, campaignId: 'camp-1', triggerName, channelId });
      const token = (await store.workspaces.getHookToken(teamId)) ?? (await store.workspaces.createHookToken(teamId));
      return `${h.url}/hooks/${token}`;
    }

    /** What Redis holds for a workspace: its keys, and the sum of their `MEMORY USAGE`. */
    async function redisHeldBy(teamId: string): Promise<{ keys: number; bytes: number }> {
      const { keys } = h.bot.deps.store;
      const own = (await redis.keys()).filter((key) => keys.workspaceOf(key) === teamId);
      let bytes = 0;
      for (const key of own) bytes += Number(await redis.redis.memory('USAGE', key, 'SAMPLES', '0'));
      return { keys: own.length, bytes };
    }

    it('keeps what the flood leaves within HOOK_MAX_BACKLOG_MB, answers it 429 + Retry-After, takes the other workspace’s webhooks, and still posts a retried event once', async () => {
      const { store } = h.bot.deps;
      const hook = await hookFor(TEAM_ID, 'call_completed', 'C0FLOODED1');
      const otherHook = await hookFor(OTHER_TEAM, 'call_started', 'C0OTHERFL1');

      // An event of the subscribed campaign, accepted and posted before the flood.
      const accepted = [{ ...CALL_COMPLETED_FULL, callId: 'call-before-the-flood', customerName: 'Before Flood' }];
      expect(await (await deliver(hook, accepted)).json()).toEqual({ ok: true, queued: 1, duplicates: 0 });
      await h.slack.waitFor(() => posts(h, 'C0FLOODED1').length === 1);
      await queueDrained(h);
      const redisBefore = mode.name === 'redis' ? await redisHeldBy(TEAM_ID) : undefined;

      // The flood: distinct calls of a known trigger for a campaign nobody subscribed to, four senders at once.
      type Answer = { status: number; retryAfter: string | null; body: { queued?: number; limit?: string } };
      const answers: Answer[] = [];
      let sent = 0;
      const send = async (events: number): Promise<Answer> => {
        const from = sent;
        sent += events;
        const delivery = Array.from({ length: events }, (_, i) => ({
          ...CALL_COMPLETED_FULL,
          campaignId: 'nobody-subscribed',
          callId: `leaked-${from + i}`,
        }));
        const res = await deliver(hook, delivery);
        const body = (await res.json()) as Answer['body'];
        const answer = { status: res.status, retryAfter: res.headers.get('retry-after'), body };
        answers.push(answer);
        return answer;
      };
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while (sent < EVENTS) await send(PER_DELIVERY);
        }),
      );
      // Events waiting in the queue count as well, so the flood may meet the cap while the worker catches up.
      // Once nothing waits, what holds the budget is what the flood left behind: the platform's next try (after the
      // Retry-After) is refused as well, as soon as enough is left.
      await queueDrained(h, 120_000);
      let next = await send(1);
      while (next.status === 200 && sent < 3 * EVENTS) {
        while ((await send(PER_DELIVERY)).status === 200 && sent < 3 * EVENTS);
        await queueDrained(h, 120_000);
        next = await send(1);
      }
      expect(next.status).toBe(429);
      expect((await store.queue.depth()).total).toBe(0);
      expect(answers.every((a) => a.status === 200 || a.status === 429)).toBe(true);
      for (const a of answers.filter((a) => a.status === 429)) {
        expect(Number(a.retryAfter)).toBeGreaterThan(0);
        expect(a.body).toMatchObject({ limit: 'bytes' });
      }
      // The other workspace's webhooks are taken meanwhile.
      const other = await deliver(otherHook, [{ ...CALL_STARTED_FULL, callId: 'call-of-the-other-workspace' }]);
      expect(other.status).toBe(200);

      // Everything accepted was handled: counted as arriving for no channel, each once.
      const taken = answers.reduce((n, a) => n + (a.body.queued ?? 0), 0);
      await queueDrained(h, 120_000);
      expect((await store.unroutedEvents.summary(TEAM_ID)).count).toBe(taken);
      expect(posts(h, 'C0OTHERFL1')).toHaveLength(1);

      // What the flood left is within the budget.
      expect((await store.queue.usage(TEAM_ID)).bytes).toBeLessThanOrEqual(BUDGET_MB * MIB);
      if (mode.name === 'redis') {
        const after = await redisHeldBy(TEAM_ID);
        expect(after.bytes - redisBefore!.bytes).toBeLessThanOrEqual(1.1 * BUDGET_MB * MIB);
        // A few keys, not one or two per event.
        expect(after.keys - redisBefore!.keys).toBeLessThan(10);
      }

      // The platform's retry of the event accepted before is still recognised, and not posted again.
      expect(await (await deliver(hook, accepted)).json()).toEqual({ ok: true, queued: 0, duplicates: 1 });
      await queueDrained(h);
      expect(posts(h, 'C0FLOODED1')).toHaveLength(1);
    }, 300_000);
  },
);
