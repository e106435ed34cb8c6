/**
 * How long a customer waits for an answer, and the SLA nudge.
 *
 * A customer message starts a waiting period in each of its threads unless one is under way (the wait counts
 * from the first unanswered message), with a store-kept `handoff-sla` timer at the channel's SLA. An answer
 * that reached the customer — a reply sent from a Slack thread, or the platform's `message_sent` (its AI or a
 * human on the platform) — ends the period in every thread of the conversation and cancels the timer. A timer
 * that fires while the customer still waits leaves one nudge in the channel's outbox (bulk lane): the one
 * scheduler posts it in the thread at Slack's pace — never while the channel is paused, judged as every other
 * post — to the owner, else the channel's user group unless it is paged only as conversations arrive, and marks
 * the card overdue. Each waiting period is nudged once: the nudge waits under one id and carries an idempotency
 * key (src/delivery/idempotent-posts.ts).
 * Resolving a conversation ends its wait and cancels the timer (`resolve.ts`).
 */
import { createHash } from 'node:crypto';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logger.js';
import type { IdempotentPosts } from '../delivery/idempotent-posts.js';
import type { BulkPosts } from '../delivery/bulk-posts.js';
import { message, section } from '../slack/blocks.js';
import { customerLabel, customerPlain } from '../slack/text.js';
import { threadCustomer } from '../app/customer-view.js';
import {
  pagedWhenLate,
  workspaceTimerId,
  workspaceTimerParts,
  type Answerer,
  type ConversationRef,
  type Store,
  type ThreadInfo,
} from '../store/index.js';
import { clockTime } from './card.js';
import { updateCard } from './threads.js';
import { cardUpdate } from './thread-posts.js';

/** The kind of the store-kept timers of handoff waits. */
export const SLA_TIMER = 'handoff-sla';

export function slaTimerId(teamId: string, channelId: string, threadTs: string): string {
  return workspaceTimerId(teamId, channelId, threadTs);
}

function parseTimerId(id: string): { teamId: string; channelId: string; threadTs: string } | undefined {
  const [teamId, channelId, threadTs] = workspaceTimerParts(id, 3) ?? [];
  return teamId && channelId && threadTs ? { teamId, channelId, threadTs } : undefined;
}

/** "4 min", "1 h 05 min": how long someone has waited. */
export function waitedFor(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** The bulk-lane kind of a nudge. */
const NUDGE_POST = 'sla-nudge';

/** A nudge waiting for its channel: the thread and the waiting period it is the nudge of. */
interface WaitingNudge {
  threadTs: string;
  waitingSince: number;
}

export interface ThreadAt {
  channelId: string;
  threadTs: string;
}

/** How long a nudge's once-mark is kept: longer than a conversation waits. */
const NUDGE_MARK_TTL_MS = 7 * 24 * 60 * 60_000;

export class Waiting {
  constructor(
    private readonly store: Store,
    private readonly defaultSlaS: number,
    private readonly posts: IdempotentPosts,
    private readonly bulk: BulkPosts,
    private readonly logger: Logger,
  ) {
    bulk.on(NUDGE_POST, {
      post: (at, body, slack) => this.nudge(at.teamId, at.channelId, body as WaitingNudge, slack.client),
    });
  }

  /** The SLA of a channel in ms (its own setting, else `HANDOFF_SLA_S`). */
  async slaMs(teamId: string, channelId: string): Promise<number> {
    return ((await this.store.handoffSla.get(teamId, channelId))?.slaS ?? this.defaultSlaS) * 1000;
  }

  /**
   * A customer message landed in a thread: its words become the card's latest; true when it started a new
   * waiting period (with its SLA timer).
   */
  async customerWrote(
    teamId: string,
    channelId: string,
    threadTs: string,
    words: string | undefined,
  ): Promise<boolean> {
    const now = this.store.now();
    await this.store.conversations.noteCustomerWords(teamId, channelId, threadTs, words);
    if (!(await this.store.conversations.startWaiting(teamId, channelId, threadTs, now))) return false;
    await this.store.timers.set(
      SLA_TIMER,
      slaTimerId(teamId, channelId, threadTs),
      now + (await this.slaMs(teamId, channelId)),
    );
    return true;
  }

  /**
   * An answer reached the customer: nobody waits in any of the conversation's threads any more, and they name
   * who answered. Returns the threads whose card now reads differently.
   */
  async answered(ref: ConversationRef, by: Answerer): Promise<ThreadAt[]> {
    const conversations = this.store.conversations;
    const changed: ThreadAt[] = [];
    for (const [channelId, threadTs] of await conversations.threads(ref)) {
      const before = await conversations.findThread(ref.teamId, channelId, threadTs);
      if (!before) continue;
      await conversations.answered(ref.teamId, channelId, threadTs, by);
      await this.store.timers.cancel(SLA_TIMER, slaTimerId(ref.teamId, channelId, threadTs));
      if (before.waitingSince !== undefined || !sameAnswerer(before.answeredBy, by))
        changed.push({ channelId, threadTs });
    }
    return changed;
  }

  /** The thread's card shows what the store says in its own channel's turn (on the road: another channel's card). */
  showCardInTurn(teamId: string, at: ThreadAt): Promise<void> {
    return cardUpdate(this.bulk, teamId, at);
  }

  /** Re-renders a thread's card from the store (Slack errors other than a gone card are thrown). */
  async showCard(slack: WebClient, teamId: string, at: ThreadAt, logger: Logger): Promise<void> {
    const info = await this.store.conversations.findThread(teamId, at.channelId, at.threadTs);
    if (info) await updateCard(slack, info, logger);
  }

  /**
   * The `handoff-sla` timer of a thread fired. Returns when to look again (the SLA was raised since the timer
   * was set), or undefined: the nudge waits for its channel, or there is nothing to nudge (answered, closed,
   * nudged already).
   */
  async fire(timerId: string, now: number): Promise<number | undefined> {
    const where = parseTimerId(timerId);
    if (!where) return undefined;
    const { teamId, channelId, threadTs } = where;
    const info = await this.store.conversations.findThread(teamId, channelId, threadTs);
    if (!info || !stillWaiting(info)) return undefined;
    const dueAt = info.waitingSince + (await this.slaMs(teamId, channelId));
    if (dueAt > now) return dueAt;
    const nudge: WaitingNudge = { threadTs, waitingSince: info.waitingSince };
    await this.bulk.add(
      { teamId, channelId },
      NUDGE_POST,
      { key: `${threadTs}:${info.waitingSince}`, order: dueAt },
      nudge,
    );
    return undefined;
  }

  /** The nudge's turn in its channel: posted once, if the customer still waits since then; the card marked overdue. */
  private async nudge(teamId: string, channelId: string, nudge: WaitingNudge, slack: WebClient): Promise<void> {
    const { threadTs, waitingSince } = nudge;
    const info = await this.store.conversations.findThread(teamId, channelId, threadTs);
    if (!info || !stillWaiting(info) || info.waitingSince !== waitingSince) return;
    const now = this.store.now();
    const sla = info.owner ? undefined : await this.store.handoffSla.get(teamId, channelId);
    const group = pagedWhenLate(sla);
    // A group paged only as conversations arrive (`page:new`) was chosen: no hint to choose one.
    const hint = !info.owner && !sla?.userGroup;
    // Once per waiting period, even when Slack's answer is lost (its next turn looks in the thread first).
    const id = `${channelId}:${threadTs}:${waitingSince}`;
    await this.posts.post(slack, { channel: channelId, threadTs }, renderNudge(info, now, group, hint), {
      teamId,
      mark: this.store.keys.dedup(teamId, 'nudge-post', id),
      key: createHash('sha256').update(`nudge:${id}`).digest('base64url').slice(0, 22),
      ttlMs: NUDGE_MARK_TTL_MS,
    });
    await this.store.conversations.markOverdue(teamId, channelId, threadTs, waitingSince);
    const log = { team: teamId, channel: channelId, thread: threadTs };
    this.logger.info(
      { ...log, owner: info.owner, userGroup: group, waitedMs: now - waitingSince },
      'handoff customer waited past the SLA: thread nudged',
    );
    // The card shows it overdue (as stored now) in its turn: a 429 there waits, it is not lost.
    await cardUpdate(this.bulk, teamId, { channelId, threadTs });
  }
}

/** An open, unresolved conversation whose customer waits and was not nudged for it yet. */
function stillWaiting(info: ThreadInfo): info is ThreadInfo & { waitingSince: number } {
  return info.state === 'open' && !info.resolvedBy && info.waitingSince !== undefined && !info.overdue;
}

function sameAnswerer(a: Answerer | undefined, b: Answerer): boolean {
  if (!a) return false;
  return 'user' in a && 'user' in b
    ? a.user === b.user
    : 'platformAgent' in a && 'platformAgent' in b && a.platformAgent === b.platformAgent;
}

/** The nudge: who should answer (the owner, else the user group), and for how long the customer has waited. */
function renderNudge(info: ThreadInfo, now: number, userGroup: string | undefined, hint: boolean) {
  const who = threadCustomer(info);
  const waited = `${waitedFor(now - (info.waitingSince ?? now))} (since ${clockTime(info.waitingSince ?? now)})`;
  const mention = info.owner ? `<@${info.owner}>` : userGroup ? `<!subteam^${userGroup}>` : undefined;
  const text = info.owner
    ? `⏰ ${mention} ${customerLabel(who)} has been waiting ${waited} for an answer — reply in this thread.`
    : mention
      ? `⏰ ${mention} nobody has claimed this conversation and ${customerLabel(who)} has been waiting ${waited} for an answer — press *Claim* on the card and reply in this thread.`
      : `⏰ Nobody has claimed this conversation and ${customerLabel(who)} has been waiting ${waited} for an answer — press *Claim* on the card and reply in this thread.` +
        (hint
          ? ' _An admin can choose a user group to mention here with `/campaign handoff-sla &lt;minutes&gt; @group`._'
          : '');
  // The mention leads the fallback text too, so the notification reaches whoever it names.
  return message(`${mention ? `${mention} ` : ''}${customerPlain(who)} is waiting for an answer`, [section(text)]);
}
