/**
 * Posts that cannot show twice (docs/DELIVERY.md): the app's `event_type` and the post's idempotency key in metadata,
 * and a mark in the store, `pending` from just before the send, its `ts` once Slack took it. A pending post is looked
 * for (`message_metadata_posted`, else one bounded history page) before it is sent again, under a lease on the post:
 * a replica taking it over waits for the try in flight. A direct message cannot be read back (the app has no
 * `im:history`): without Slack's event it counts as sent, at most once rather than twice.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { WebClient } from '@slack/web-api';
import { LEASE_MS, type Store } from '../store/index.js';
import { context, type MessagePayload } from '../slack/blocks.js';
import { isNoReplyHere, WaitForSlack, type SlackErrorClass } from './slack-errors.js';
import { postMessage, slackErrorCode } from '../slack/post.js';
import { waitClock } from './post-context.js';

/** The `event_type` of every post of the app's that carries an idempotency key (the manifest subscribes to it). */
export const POST_EVENT_TYPE = 'campaign_post';
const PENDING = 'pending:';
/** How long a post whose answer was lost waits for Slack's event before history is read. */
const EVENT_WAIT_MS = 5_000;
/** The window read around the first try: Slack's clock and ours differ a little, and a try ends within 30 s. */
const BEFORE_FIRST_TRY_MS = 10_000;
const AFTER_FIRST_TRY_MS = 40_000;
/** Messages a history page holds at most for apps outside the Marketplace (Slack's 2025 limit). */
const PAGE_LIMIT = 15;
/** What a direct message whose answer was lost is marked with: sent, where unknown. */
const NOT_READ_BACK = 'not-read-back';
/** How long where a post landed is kept: longer than any post waits to be looked up. */
const LANDED_TTL_MS = 2 * 24 * 60 * 60_000;

export interface PostTarget {
  channel: string;
  threadTs?: string | undefined;
}

export interface OncePost {
  /** The workspace the post goes to (where it landed is kept under it). */
  teamId: string;
  /** Store key of the post's mark (a workspace's key: uninstall forgets it). */
  mark: string;
  /** The idempotency key in the message's metadata (no customer data: it is readable in Slack). */
  key: string;
  /** How long the mark is kept (longer than any retry of the post). */
  ttlMs: number;
}

/** The class of a failed try (`SlackPace.judge`): `wait` means it never reached Slack. */
export type JudgeFailure = (err: unknown) => { class: SlackErrorClass };

/** A pending mark: when its try began, who sent it, and (after a full page without the post) the last ts read. */
interface Pending {
  since: number;
  owner: string;
  readTo?: string;
}

/** `pending:<since>:<readTo>:<owner>` (the owner last: it may hold colons). */
function pendingOf(mark: string): Pending {
  const [since, readTo, ...owner] = mark.slice(PENDING.length).split(':');
  return { since: Number(since), owner: owner.join(':'), ...(readTo ? { readTo } : {}) };
}

function pendingMark({ since, owner, readTo }: Pending): string {
  return `${PENDING}${since}:${readTo ?? ''}:${owner}`;
}

export class IdempotentPosts {
  /** Whose tries these are: a try's lease and its pending mark name it. */
  private readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

  constructor(
    private readonly store: Pick<Store, 'kv' | 'keys' | 'leases' | 'now'>,
    private readonly judge: JudgeFailure,
    /** What the wait for Slack's event is measured on; a try's time, which names its history window, is Slack's. */
    private readonly now: () => number = waitClock(store),
  ) {}

  /** The post's ts when it is known to be in Slack; null otherwise (never tried, or outcome unknown). */
  async posted(mark: string): Promise<string | null> {
    const value = await this.store.kv.get(mark);
    return value === null || value.startsWith(PENDING) ? null : value;
  }

  /** Slack said where a post of the app's carrying `key` landed (`message_metadata_posted`, or a history read). */
  async landed(teamId: string, key: string, ts: string): Promise<void> {
    await this.store.kv.set(this.landedKey(teamId, key), ts, { ttlMs: LANDED_TTL_MS });
  }

  /** Posts once: the ts of the post already in Slack (marked or found), or of the one it sends now. */
  async post(slack: WebClient, to: PostTarget, payload: MessagePayload, once: OncePost): Promise<string> {
    const { kv, leases } = this.store;
    const mark = await kv.get(once.mark);
    if (mark !== null && !mark.startsWith(PENDING)) return mark;
    const pending = mark === null ? undefined : pendingOf(mark);
    const lease = this.store.keys.dedup(once.teamId, 'post-try', once.key);
    if (!(await leases.take(lease, this.owner, LEASE_MS))) throw new WaitForSlack(LEASE_MS / 3, 'a try under way');
    const kept = leases.keep(lease, this.owner, LEASE_MS);
    try {
      if (pending) {
        const found = await this.find(slack, to, once, pending);
        if (found) {
          await kv.set(once.mark, found, { ttlMs: once.ttlMs });
          return found;
        }
      }
      await kv.set(once.mark, pendingMark({ since: Date.now(), owner: this.owner }), { ttlMs: once.ttlMs });
      const ts = await this.send(slack, to, payload, once);
      await kv.set(once.mark, ts, { ttlMs: once.ttlMs });
      return ts;
    } finally {
      await kept.end();
    }
  }

  /** One try; a try that provably never reached Slack clears its mark, so the next one needs no look-up. */
  private async send(slack: WebClient, to: PostTarget, payload: MessagePayload, once: OncePost): Promise<string> {
    const metadata = { event_type: POST_EVENT_TYPE, event_payload: { key: once.key } };
    try {
      return await postMessage(slack, to, payload, metadata).catch(async (err: unknown) => {
        if (!to.threadTs || !isNoReplyHere(slackErrorCode(err))) throw err;
        return postMessage(slack, { channel: to.channel }, await namingThread(slack, to, payload), metadata);
      });
    } catch (err) {
      if (this.judge(err).class === 'wait') await this.store.kv.del(once.mark).catch(() => false);
      throw err;
    }
  }

  /**
   * Where a pending post landed: Slack's event, else — once `EVENT_WAIT_MS` passed without one — one history page
   * around its first try. Undefined when it is provably not there (send it); `WaitForSlack` while unsure.
   */
  private async find(slack: WebClient, to: PostTarget, once: OncePost, pending: Pending): Promise<string | undefined> {
    const landed = await this.store.kv.get(this.landedKey(once.teamId, once.key));
    if (landed) return landed;
    const waited = this.now() - pending.since;
    if (waited < EVENT_WAIT_MS) throw new WaitForSlack(EVENT_WAIT_MS - waited, 'its post event');
    if (!/^[CG]/.test(to.channel)) return NOT_READ_BACK;
    // History pages run newest first, a thread's replies oldest first: a page read before moves that end.
    const oldest = ((pending.since - BEFORE_FIRST_TRY_MS) / 1000).toFixed(6);
    const latest = ((pending.since + AFTER_FIRST_TRY_MS) / 1000).toFixed(6);
    const window = {
      channel: to.channel,
      oldest: to.threadTs ? (pending.readTo ?? oldest) : oldest,
      latest: to.threadTs ? latest : (pending.readTo ?? latest),
      inclusive: true,
      include_all_metadata: true,
      limit: PAGE_LIMIT,
    };
    const page = to.threadTs
      ? await slack.conversations.replies({ ...window, ts: to.threadTs })
      : await slack.conversations.history(window);
    let found: string | undefined;
    for (const message of page.messages ?? []) {
      const meta = message.metadata as { event_type?: unknown; event_payload?: { key?: unknown } } | undefined;
      const key = meta?.event_payload?.key;
      if (meta?.event_type !== POST_EVENT_TYPE || typeof key !== 'string' || !message.ts) continue;
      // Every post of the app this page shows: the channel's other pending posts need no read of their own.
      await this.landed(once.teamId, key, message.ts);
      if (key === once.key) found = message.ts;
    }
    if (found || !page.has_more) return found;
    // A full page without it: the rest of the window is read at the workspace's next read.
    const lastRead = page.messages?.at(-1)?.ts;
    if (lastRead)
      await this.store.kv.set(once.mark, pendingMark({ ...pending, readTo: lastRead }), { ttlMs: once.ttlMs });
    throw new WaitForSlack(1_000, 'the rest of its history window');
  }

  private landedKey(teamId: string, key: string): string {
    return this.store.keys.dedup(teamId, 'post-landed', key);
  }
}

/** A reply Slack takes no reply for, as a top-level post whose first line names the thread it belongs to. */
async function namingThread(slack: WebClient, to: PostTarget, payload: MessagePayload): Promise<MessagePayload> {
  const link = await slack.chat
    .getPermalink({ channel: to.channel, message_ts: to.threadTs! })
    .then((r) => r.permalink)
    .catch(() => undefined);
  const line = link
    ? `↪️ In reply to <${link}|this message> (Slack takes no replies there)`
    : '↪️ A reply (Slack takes no replies to its message)';
  // At most 50 blocks a message: the line comes first, the last block gives way.
  return { text: payload.text, blocks: [context(line), ...payload.blocks].slice(0, 50) };
}
