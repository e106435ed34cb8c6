/**
 * The Slack writes about a reply in a handoff thread. What answers the person who wrote or pressed — a notice
 * whose ts the reply keeps, a private one to them in the thread (`chat.postEphemeral` with `thread_ts`:
 * https://docs.slack.dev/reference/methods/chat.postEphemeral), an update of a notice — goes straight, and a
 * failure is logged, never thrown; what the app posts on its own goes on the road (`ThreadPosts`).
 */
import { createHash } from 'node:crypto';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logger.js';
import type { MessagePayload } from '../slack/blocks.js';
import { postMessage, slackErrorCode, updateMessage } from '../slack/post.js';
import { isAlreadyDone } from '../delivery/slack-errors.js';
import type { IdempotentPosts } from '../delivery/idempotent-posts.js';
import type { BulkPosts } from '../delivery/bulk-posts.js';
import type { ChannelRef, Store } from '../store/index.js';
import type { ReplyAddress } from './notices.js';
import { updateCard } from './threads.js';

/** A notice everyone in the thread sees; its ts, or undefined when Slack did not take it. */
export async function postInThread(
  client: WebClient,
  address: Pick<ReplyAddress, 'channel' | 'threadTs'>,
  payload: MessagePayload,
  log: Logger,
): Promise<string | undefined> {
  try {
    return await postMessage(client, { channel: address.channel, threadTs: address.threadTs }, payload);
  } catch (err) {
    log.warn({ err, slackError: slackErrorCode(err) }, 'could not post a notice in a handoff thread');
    return undefined;
  }
}

/**
 * A notice only `user` sees, in the thread. Ephemeral messages are not kept across reloads, so whatever it
 * says must be safe to miss: the reply's reaction stays as the lasting sign.
 */
export async function postPrivately(
  client: WebClient,
  address: Pick<ReplyAddress, 'channel' | 'threadTs'>,
  user: string,
  payload: MessagePayload,
  log: Logger,
): Promise<boolean> {
  try {
    await client.chat.postEphemeral({
      channel: address.channel,
      thread_ts: address.threadTs,
      user,
      text: payload.text,
      blocks: payload.blocks,
    });
    return true;
  } catch (err) {
    log.info({ err, slackError: slackErrorCode(err) }, 'could not tell one person privately about a handoff reply');
    return false;
  }
}

/** Updates a notice in place (a person's press or edit answered); false when Slack did not take it. */
export async function updateNotice(
  client: WebClient,
  channel: string,
  ts: string,
  payload: MessagePayload,
  log: Logger,
): Promise<boolean> {
  try {
    await updateMessage(client, { channel, ts }, payload);
    return true;
  } catch (err) {
    log.warn({ err, slackError: slackErrorCode(err) }, 'could not update a notice in a handoff thread');
    return false;
  }
}

const LINE = 'thread-line';
const RECEIPT = 'reply-receipt';
const CARD = 'thread-card';
/** How long a line's once-mark is kept: longer than a post waits in its channel (a day). */
const LINE_MARK_TTL_MS = 2 * 24 * 60 * 60_000;

interface Line {
  threadTs: string;
  payload: MessagePayload;
  id: string;
}

interface Card {
  threadTs: string;
}

interface Receipt {
  replyTs: string;
  remove?: string | undefined;
  add?: string | undefined;
}

/**
 * What the app posts in a conversation's threads on its own — a reply shown in the conversation's other
 * channels, who took it over, a session linked, a note on an edit — and the receipt reactions on a reply: each
 * waits in its channel's urgent lane (src/delivery/bulk-lane.ts) when it must, posted by the one scheduler and
 * judged as every post is (a 429 waited out, never dropped). A line carries an idempotency key, so a post
 * whose answer was lost is looked up, never shown twice.
 */
export class ThreadPosts {
  constructor(
    private readonly store: Pick<Store, 'keys' | 'conversations'>,
    private readonly posts: IdempotentPosts,
    private readonly road: BulkPosts,
    private readonly logger: Logger,
  ) {
    road.on(LINE, { post: (at, body, { client }) => this.postLine(client, at, body as Line) });
    road.on(RECEIPT, { post: (at, body, { client }) => swap(client, at.channelId, body as Receipt) });
    road.on(CARD, { post: (at, body, { client }) => this.showCard(client, at, body as Card) });
  }

  /** A line in the thread, once: `id` names it in the channel (the same id is posted once, whatever is retried). */
  line(teamId: string, to: { channel: string; threadTs: string }, payload: MessagePayload, id: string): Promise<void> {
    return threadLine(this.road, teamId, to, payload, id);
  }

  /** The conversation's card shows what the store says when its turn comes (read then: the latest state wins). */
  card(teamId: string, at: { channelId: string; threadTs: string }): Promise<void> {
    return cardUpdate(this.road, teamId, at);
  }

  /** The reply's receipt becomes `add` (the reaction `remove` taken off first). */
  async receipt(teamId: string, address: ReplyAddress, change: { remove?: string; add?: string }): Promise<void> {
    const receipt: Receipt = { replyTs: address.replyTs, ...change };
    const key = `${address.replyTs}:${change.remove ?? ''}>${change.add ?? ''}`;
    const at = { teamId, channelId: address.channel };
    await this.road.add(at, RECEIPT, { key, order: Date.now(), lane: 'urgent' }, receipt);
  }

  private async showCard(client: WebClient, at: ChannelRef, card: Card): Promise<void> {
    const info = await this.store.conversations.findThread(at.teamId, at.channelId, card.threadTs);
    if (info) await updateCard(client, info, this.logger);
  }

  private async postLine(client: WebClient, at: ChannelRef, line: Line): Promise<void> {
    await this.posts.post(client, { channel: at.channelId, threadTs: line.threadTs }, line.payload, {
      teamId: at.teamId,
      mark: this.store.keys.dedup(at.teamId, LINE, line.id),
      key: createHash('sha256').update(`${LINE}:${line.id}`).digest('base64url').slice(0, 22),
      ttlMs: LINE_MARK_TTL_MS,
    });
  }
}

/** `ThreadPosts.line` for work without the handoff's `ThreadPosts` at hand (a command's): the same road. */
export async function threadLine(
  road: Pick<BulkPosts, 'add'>,
  teamId: string,
  to: { channel: string; threadTs: string },
  payload: MessagePayload,
  id: string,
): Promise<void> {
  const line: Line = { threadTs: to.threadTs, payload, id: `${to.channel}:${id}` };
  await road.add({ teamId, channelId: to.channel }, LINE, { key: id, order: Date.now(), lane: 'urgent' }, line);
}

/** `ThreadPosts.card`, likewise. */
export async function cardUpdate(
  road: Pick<BulkPosts, 'add'>,
  teamId: string,
  at: { channelId: string; threadTs: string },
): Promise<void> {
  const card: Card = { threadTs: at.threadTs };
  await road.add(
    { teamId, channelId: at.channelId },
    CARD,
    { key: at.threadTs, order: Date.now(), lane: 'urgent' },
    card,
  );
}

/** A reaction already there, or already gone, is what was asked for: the swap goes on. */
async function swap(client: WebClient, channel: string, receipt: Receipt): Promise<void> {
  const done = (err: unknown) => {
    if (!isAlreadyDone(slackErrorCode(err))) throw err;
  };
  const timestamp = receipt.replyTs;
  if (receipt.remove) await client.reactions.remove({ channel, timestamp, name: receipt.remove }).catch(done);
  if (receipt.add) await client.reactions.add({ channel, timestamp, name: receipt.add }).catch(done);
}
