/**
 * Which calls a channel shows, read from what the fake Slack accepted. A card shows one call; a roll-up (a
 * channel that fell behind Slack's posting limit) shows up to 20 in one post. Thread replies — the
 * transcripts — name the calls again and are left out.
 */
import type { FakeSlack, SlackCall } from '../../test/fakes/slack.js';

/**
 * Top-level chat.postMessage posts the fake accepted (HTTP 200, `ok`), by every call id matching `pattern` in
 * their blocks (a post counts once per call, though the id shows in its line and its recording link).
 * `channel`: that channel only.
 */
export function postsByCallId(slack: FakeSlack, pattern: RegExp, channel?: string): Map<string, SlackCall[]> {
  const every = new RegExp(pattern.source, 'g');
  const byId = new Map<string, SlackCall[]>();
  for (const call of slack.callsTo('chat.postMessage')) {
    if (call.status !== 200 || call.response.ok !== true || call.args.thread_ts !== undefined) continue;
    if (channel !== undefined && call.args.channel !== channel) continue;
    const ids = new Set(
      Array.from(JSON.stringify(call.args.blocks ?? call.args.text ?? '').matchAll(every), (m) => m[0]),
    );
    for (const id of ids) {
      const list = byId.get(id) ?? [];
      list.push(call);
      byId.set(id, list);
    }
  }
  return byId;
}

/** How many posts of `posts` show more than one call (roll-ups), and how many calls those show. */
export function rollups(posts: ReadonlyMap<string, readonly SlackCall[]>): { posts: number; calls: number } {
  const counts = new Map<SlackCall, number>();
  for (const list of posts.values()) for (const post of list) counts.set(post, (counts.get(post) ?? 0) + 1);
  const rolled = [...counts.values()].filter((n) => n > 1);
  return { posts: rolled.length, calls: rolled.reduce((a, n) => a + n, 0) };
}

/** ms from `sentAt` to the first post showing each call; calls not shown are left out. */
export function lagsMs(
  sentAt: ReadonlyMap<string, number>,
  posts: ReadonlyMap<string, readonly SlackCall[]>,
): number[] {
  return [...sentAt].flatMap(([id, at]) => {
    const first = posts.get(id)?.[0];
    return first ? [first.at - at] : [];
  });
}

/** Posts showing a call that another post showed already. */
export function shownTwice(posts: ReadonlyMap<string, readonly SlackCall[]>): number {
  return [...posts.values()].reduce((n, list) => n + list.length - 1, 0);
}
