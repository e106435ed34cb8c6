/**
 * What Slack's stand-in accepted, read as it comes in: each poll looks only at the Web API calls recorded since
 * the last one (a fleet's run records tens of thousands), so waiting for "everything shown" costs the bench
 * little of the CPU it measures. Per marker (a call id, a customer message's words) the first accepted post that
 * shows it; per channel the times of its accepted posts; chat.postMessage answers by status.
 */
import type { FakeSlack } from '../../test/fakes/slack.js';

/** Methods that put a message in a channel. */
const POSTS = new Set(['chat.postMessage', 'files.completeUploadExternal']);

export class SlackLedger {
  private seen = 0;
  /** marker → when the first accepted post showing it arrived. */
  readonly firstShown = new Map<string, number>();
  /** marker → accepted top-level posts showing it (a call shown twice has two). */
  readonly topLevelPosts = new Map<string, number>();
  /** channel → arrival times of its accepted posts (thread replies too). */
  readonly postsByChannel = new Map<string, number[]>();
  /** chat.postMessage answers: all, 429 from the default per-channel limit, 429 from the workspace limit. */
  readonly postMessages = { all: 0, channel429: 0, workspace429: 0 };
  /** Web API calls per method. */
  readonly methods = new Map<string, number>();

  constructor(
    private readonly slack: FakeSlack,
    private readonly marker: RegExp,
  ) {}

  /** Reads the calls recorded since the last update. */
  update(): void {
    const calls = this.slack.calls;
    const every = new RegExp(this.marker.source, 'g');
    for (; this.seen < calls.length; this.seen++) {
      const call = calls[this.seen]!;
      this.methods.set(call.method, (this.methods.get(call.method) ?? 0) + 1);
      if (call.method === 'chat.postMessage') {
        this.postMessages.all++;
        if (call.status === 429) this.postMessages[call.injected ? 'workspace429' : 'channel429']++;
      }
      if (!POSTS.has(call.method) || call.status !== 200 || call.response.ok !== true) continue;
      const where = call.args.channel ?? call.args.channel_id;
      const channel = typeof where === 'string' ? where : '';
      const times = this.postsByChannel.get(channel) ?? [];
      times.push(call.at);
      this.postsByChannel.set(channel, times);
      const shown = new Set(JSON.stringify([call.args.text, call.args.blocks]).match(every) ?? []);
      for (const m of shown) {
        if (!this.firstShown.has(m)) this.firstShown.set(m, call.at);
        if (call.args.thread_ts === undefined) this.topLevelPosts.set(m, (this.topLevelPosts.get(m) ?? 0) + 1);
      }
    }
  }
}

/** The most posts in any `windowMs` window (starting at a post), divided by the window in seconds. */
export function busiestRate(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let end = 0;
  for (let start = 0; start < sorted.length; start++) {
    while (end < sorted.length && sorted[end]! < sorted[start]! + windowMs) end++;
    most = Math.max(most, end - start);
  }
  return most / (windowMs / 1000);
}
