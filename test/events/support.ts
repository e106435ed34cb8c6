/**
 * Helpers for the event tests: a harness with PUBLIC_URL and fast worker timings, posting to the hook the
 * way the platform does, and reading what landed in Slack.
 */
import { expect } from 'vitest';
import type { SlackMessage } from '../fakes/slack.js';
import { ADMIN_ID, TEAM_ID, startHarness, type Harness, type HarnessOptions } from '../support/harness.js';
import { waitFor, waitForValue } from '../support/wait.js';

export const PUBLIC_URL = 'https://bot.example.com';

/** Worker timings for tests: quick retries, quick takeover of a silent consumer's entries. */
export const FAST_WORKER = { blockMs: 100, claimIdleMs: 600, retryDelayMs: () => 20 };

/**
 * Call outbox for tests: channels looked at often; calls roll up only after a minute, so a test about routing
 * or rendering sees one card per call (roll-ups have tests of their own, which set `rollupAfterMs`).
 */
const ONE_BY_ONE_CALLS = { rollupAfterMs: 60_000 };

export function startEventsHarness(opts: HarnessOptions & { publicUrl?: string | null } = {}): Promise<Harness> {
  const { publicUrl, ...rest } = opts;
  return startHarness({
    ...rest,
    env: { ...(publicUrl === null ? {} : { PUBLIC_URL: publicUrl ?? PUBLIC_URL }), ...rest.env },
    bot: {
      ...rest.bot,
      events: { worker: FAST_WORKER, calls: ONE_BY_ONE_CALLS, delivery: { scanMs: 50 }, ...rest.bot?.events },
    },
  });
}

let seq = 0;

/** Runs `/campaign <text>` in `channelId` and returns the first answer posted to its response_url. */
export async function run(h: Harness, text: string, opts: { channelId?: string; userId?: string } = {}) {
  const id = `ev-${++seq}`;
  const ack = await h.signer.command({
    text,
    userId: opts.userId ?? ADMIN_ID,
    responseUrlId: id,
    ...(opts.channelId ? { channelId: opts.channelId } : {}),
  });
  expect(ack.status).toBe(200);
  const answer = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === id));
  return { id, body: answer.body, text: JSON.stringify(answer.body) };
}

/** The bot's local URL for a hook URL the platform was given (`https://bot.example.com/hooks/<t>` → local). */
export function localHookUrl(h: Harness, hookUrl: string): string {
  return `${h.url}${new URL(hookUrl).pathname}`;
}

/** Routes directly in the store (for tests about intake/delivery, not about the commands) and returns the local hook URL. */
export async function routeTo(
  h: Harness,
  routes: Array<{ campaignId: string; triggerName: string; channelId: string }>,
): Promise<string> {
  const store = h.bot.deps.store;
  for (const r of routes) await store.routes.add({ teamId: TEAM_ID, ...r });
  const token = (await store.workspaces.getHookToken(TEAM_ID)) ?? (await store.workspaces.createHookToken(TEAM_ID));
  return `${h.url}/hooks/${token}`;
}

export function deliver(url: string, body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  });
}

/** Top-level bot messages in a channel (not thread replies). */
export function posts(h: Harness, channel: string): SlackMessage[] {
  return h.slack.messages(channel).filter((m) => m.bot_id !== undefined && (!m.thread_ts || m.thread_ts === m.ts));
}

/**
 * Resolves once no queued event is waiting or being handled (retries included) and no call waits for its
 * channel: everything the webhooks accepted so far has been posted or given up, so "nothing more was posted"
 * can be asserted right after. Posts go at Slack's pace (about one a second per channel after a burst of 3).
 */
export async function queueDrained(h: Harness, timeoutMs = 10_000): Promise<void> {
  const { store } = h.bot.deps;
  let left = '';
  await waitFor(
    async () => {
      const depth = await store.queue.depth();
      const channels = await store.outbox.channels();
      left = `${JSON.stringify(depth)}, calls waiting in ${channels.length} channel(s)`;
      return depth.total === 0 && depth.pending === 0 && channels.length === 0;
    },
    () => `the queue to drain (left: ${left})`,
    timeoutMs,
  );
}

/**
 * Fires the timers due (one tick) and resolves once what they left in channels' outboxes (digests,
 * quota alerts) is posted or given up; resolves with how many timers this replica fired.
 */
export async function fireTimers(h: Harness, timeoutMs?: number): Promise<number> {
  const fired = await h.bot.deps.timers.runDue();
  await queueDrained(h, timeoutMs);
  return fired;
}

/** Resolves with the workspace's dead letters once there are more than `before`. */
export function deadLettersAfter(h: Harness, before: number) {
  return waitForValue(async () => {
    const dead = await h.bot.deps.store.queue.deadLetters(TEAM_ID);
    return dead.count > before && dead;
  }, 'a new dead letter');
}
