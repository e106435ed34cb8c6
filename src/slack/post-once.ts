/**
 * Posts that cannot show twice. Every background post carries Slack message metadata — the app's own
 * `event_type` and the post's idempotency key — and a mark in the store: `pending` from just before it is sent,
 * its `ts` once Slack took it. A post found `pending` (the answer was lost, Slack answered `fatal_error`, the
 * process crashed between Slack's answer and the mark) may be in Slack already: it is looked for in the channel
 * (`conversations.history`) or its thread (`conversations.replies`), with `include_all_metadata`, before it is
 * sent again. A try that provably never reached Slack (paced, 429, `ok:false` that time heals) clears its own
 * `pending`, so the next try posts without a look-up.
 *
 * Message metadata: https://docs.slack.dev/messaging/message-metadata ("event_type" and "event_payload");
 * conversations.history / .replies return it only with `include_all_metadata=true`
 * (https://docs.slack.dev/reference/methods/conversations.history). Direct messages are not looked up (the app
 * may not read them): a notice to a person is at most once, never twice.
 */
import type { WebClient } from '@slack/web-api';
import type { KeyValueStore } from '../store/index.js';
import type { MessagePayload } from './blocks.js';
import type { SlackErrorClass } from './errors.js';
import { postMessage } from './post.js';

/** The `event_type` of every post of the app's that carries an idempotency key. */
const POST_EVENT_TYPE = 'campaign_post';
const PENDING = 'pending:';
/** Slack's clocks and ours differ a little: look a minute before the first try. */
const CLOCK_SLACK_MS = 60_000;
/** Messages looked through at most (newest first): a channel posts about one a second, so minutes of posts. */
const LOOKUP_LIMIT = 200;

export interface PostTarget {
  channel: string;
  threadTs?: string | undefined;
}

export interface OncePost {
  /** Store key of the post's mark (a workspace's key: uninstall forgets it). */
  mark: string;
  /** The idempotency key carried in the message's metadata (no customer data: it is readable in Slack). */
  key: string;
  /** How long the mark is kept (longer than any retry of the post). */
  ttlMs: number;
}

/** The class of a failed try (`SlackPace.judge`): `wait` means it never reached Slack. */
export type JudgeFailure = (err: unknown) => { class: SlackErrorClass };

export class PostLedger {
  constructor(
    private readonly kv: KeyValueStore,
    private readonly judge: JudgeFailure,
    private readonly now: () => number = Date.now,
  ) {}

  /** The post's ts when it is known to be in Slack; null otherwise (never tried, or outcome unknown). */
  async posted(mark: string): Promise<string | null> {
    const value = await this.kv.get(mark);
    return value === null || value.startsWith(PENDING) ? null : value;
  }

  /** Posts once: the ts of the post already in Slack (marked or found), or of the one it sends now. */
  async post(slack: WebClient, to: PostTarget, payload: MessagePayload, once: OncePost): Promise<string> {
    const mark = await this.kv.get(once.mark);
    if (mark !== null && !mark.startsWith(PENDING)) return mark;
    const since = mark === null ? undefined : Number(mark.slice(PENDING.length));
    if (since !== undefined) {
      const found = await this.lookUp(slack, to, once.key, since);
      if (found) {
        await this.kv.set(once.mark, found, { ttlMs: once.ttlMs });
        return found;
      }
    } else {
      await this.kv.set(once.mark, `${PENDING}${this.now()}`, { ttlMs: once.ttlMs });
    }
    let ts: string;
    try {
      ts = await postMessage(slack, to, payload, { event_type: POST_EVENT_TYPE, event_payload: { key: once.key } });
    } catch (err) {
      // Never reached Slack (and no earlier try might have): the next try needs no look-up.
      if (since === undefined && this.judge(err).class === 'wait') await this.kv.del(once.mark).catch(() => false);
      throw err;
    }
    await this.kv.set(once.mark, ts, { ttlMs: once.ttlMs });
    return ts;
  }

  /** The ts of the app's message carrying `key` in the channel or thread, posted since `since` (epoch ms). */
  private async lookUp(slack: WebClient, to: PostTarget, key: string, since: number): Promise<string | undefined> {
    if (!/^[CG]/.test(to.channel)) return undefined;
    const oldest = ((since - CLOCK_SLACK_MS) / 1000).toFixed(6);
    let cursor: string | undefined;
    let seen = 0;
    do {
      const page = to.threadTs
        ? await slack.conversations.replies({
            channel: to.channel,
            ts: to.threadTs,
            oldest,
            include_all_metadata: true,
            limit: 100,
            ...(cursor ? { cursor } : {}),
          })
        : await slack.conversations.history({
            channel: to.channel,
            oldest,
            include_all_metadata: true,
            limit: 100,
            ...(cursor ? { cursor } : {}),
          });
      for (const message of page.messages ?? []) {
        const meta = message.metadata as { event_type?: unknown; event_payload?: { key?: unknown } } | undefined;
        if (meta?.event_type === POST_EVENT_TYPE && meta.event_payload?.key === key && message.ts) return message.ts;
      }
      seen += page.messages?.length ?? 0;
      cursor = page.response_metadata?.next_cursor || undefined;
    } while (cursor && seen < LOOKUP_LIMIT);
    return undefined;
  }
}
