/**
 * Call notifications: the routine lane of a channel's outbox (src/delivery/scheduler.ts posts it at
 * Slack's pace, after the channel's waiting customers). The worker hands each routed call event to its
 * channel's outbox (in the store, so every replica sees it) and is done with it; this lane posts a channel's
 * waiting calls:
 *
 * - one by one (card, then transcript in its thread) while the channel keeps up;
 * - rolled up once the channel's oldest waiting call is older than `rollupAfterMs`: the next post carries
 *   every waiting call (ROLLUP_MAX_CALLS a post), their transcripts together in its thread — unless a call route
 *   of the channel says `compact:off`. A call whose route mentions someone (`notify:`, a hot lead) is never
 *   rolled up: it keeps its own card with the mention, in its turn, so it is not buried in a list.
 *
 * A card posted on its own then gets its recording copied into its thread (recordings.ts), after it and on its
 * own time; a roll-up keeps each call's recording link: a recording each would be a post each in a channel
 * that is already behind.
 *
 * Calls are routine traffic: they leave one post of a channel's burst to customer conversations. Every post
 * is a remembered step, so a retry never posts twice, and a roll-up tried again covers the same calls.
 */
import type { ChannelRef, QueueEntry, WaitingItem } from '../store/index.js';
import { parseEvent, type CallCompleted } from '../events/events.js';
import { readJob } from '../events/job.js';
import { sealRecording } from '../events/recording-button.js';
import { sealCallDetails } from '../events/call-details.js';
import {
  renderCallCompleted,
  renderCallStarted,
  renderTranscript,
  type TranscriptReply,
} from '../events/render/index.js';
import {
  rollupFits,
  callsToShow,
  renderRollup,
  renderRollupTranscripts,
  ROLLUP_MAX_CALLS,
  type RolledCall,
} from '../events/render/call-rollup.js';
import type { PostContext } from './post-context.js';
import type { Routed } from '../events/router.js';
import { LaneFailure, type ChannelScheduler, type LaneHandler } from './scheduler.js';
import { StepLog, type StepRef } from './steps.js';
import type { CallRecordings } from '../events/recordings.js';
import type { FileShares } from '../slack/external-upload.js';
import type { WebClient } from '@slack/web-api';
import { withTraceNow } from '../util/spans.js';

export interface CallOutboxOptions {
  /** A channel whose oldest waiting call is older than this rolls up every waiting call in its next post. Default 3 s. */
  rollupAfterMs?: number;
}

const STEP_TTL_MS = 7 * 24 * 60 * 60 * 1000;

type Waiting = RolledCall & {
  id: string;
  enqueuedAt: number;
  asks?: Routed;
  item: WaitingItem;
  /** Its dead letter's id, when an admin retried it: given up again, it is that letter again. */
  retryOf?: string;
};

/** What a given-up call's dead letter holds (its `payload.outbox`). */
interface OutboxLetter {
  channelId: string;
  trigger: RolledCall['trigger'];
  data: unknown;
  asks?: Routed;
}

/** Whom a call's post mentions, when its routes ask for anyone. */
function mentioning(asks: Routed | undefined): Routed | undefined {
  return asks && asks.notify.length > 0 ? asks : undefined;
}

function readAsks(raw: unknown): Routed | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { notify, hot } = raw as { notify?: unknown; hot?: unknown };
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  return mentioning({ notify: strings(notify), hot: strings(hot) });
}

/** The steps of a roll-up are remembered under its first call and size (its ids are written down first). */
function rollupId(batch: readonly Waiting[]): string {
  return `rollup:${batch[0]!.id}:${batch.length}`;
}

/** The oldest waiting calls up to the first that mentions someone: what a roll-up may carry, in order. */
function unmentioned(waiting: readonly Waiting[]): Waiting[] {
  const stop = waiting.findIndex((c) => c.asks !== undefined);
  return stop < 0 ? [...waiting] : waiting.slice(0, stop);
}

export class CallOutbox implements LaneHandler {
  private readonly steps: StepLog;
  private readonly rollupAfterMs: number;

  constructor(
    private readonly context: PostContext,
    private readonly scheduler: Pick<ChannelScheduler, 'added' | 'resumed'>,
    private readonly files: FileShares,
    private readonly options: CallOutboxOptions = {},
    /** Copies a card's recording into its thread afterwards (cards posted one by one only). */
    private readonly recordings?: Pick<CallRecordings, 'add'>,
  ) {
    this.steps = new StepLog(this.context.store, (err) => this.context.pace.judge(err));
    this.rollupAfterMs = options.rollupAfterMs ?? 3_000;
  }

  /** Queues a call event for a channel (again: no second copy) in its routine lane. */
  async add(to: ChannelRef, entry: QueueEntry, call: RolledCall, asks?: Routed): Promise<void> {
    const mention = mentioning(asks);
    const retryOf = readJob(entry.payload).data?.retryOf;
    const json = JSON.stringify(
      withTraceNow({
        trigger: call.trigger,
        data: call.data,
        enqueuedAt: entry.enqueuedAt,
        ...(mention ? { asks: mention } : {}),
        ...(retryOf ? { retryOf } : {}),
      }),
    );
    await this.context.store.outbox.add(to, 'routine', { id: entry.id, json });
    this.scheduler.added(to);
  }

  traceparentOf(item: WaitingItem): string | undefined {
    try {
      const { traceparent } = JSON.parse(item.json) as { traceparent?: unknown };
      return typeof traceparent === 'string' ? traceparent : undefined;
    } catch {
      return undefined;
    }
  }

  enqueuedAt(item: WaitingItem): number {
    try {
      const raw = JSON.parse(item.json) as { enqueuedAt?: unknown };
      return typeof raw.enqueuedAt === 'number' ? raw.enqueuedAt : Date.now();
    } catch {
      return Date.now();
    }
  }

  /** The workspace uninstalled the app: a roll-up under way goes with its calls. */
  async forget(at: ChannelRef, items: WaitingItem[]): Promise<void> {
    if (items.length > 0) await this.context.store.outbox.finishRollup(at, []);
  }

  private parse(at: ChannelRef, stored: Array<{ id: string; json: string }>): Waiting[] {
    const calls: Waiting[] = [];
    const broken: string[] = [];
    for (const { id, json } of stored) {
      try {
        const raw = JSON.parse(json) as {
          trigger?: unknown;
          data?: unknown;
          enqueuedAt?: unknown;
          asks?: unknown;
          retryOf?: unknown;
        };
        const trigger = raw.trigger === 'call_started' || raw.trigger === 'call_completed' ? raw.trigger : undefined;
        const parsed = trigger ? parseEvent(raw.data, trigger) : undefined;
        if (
          parsed?.ok &&
          parsed.event.known &&
          (parsed.event.trigger === 'call_started' || parsed.event.trigger === 'call_completed')
        ) {
          const enqueuedAt = typeof raw.enqueuedAt === 'number' ? raw.enqueuedAt : Date.now();
          const asks = readAsks(raw.asks);
          calls.push({
            id,
            item: { id, json, lane: 'routine' },
            enqueuedAt,
            trigger: parsed.event.trigger,
            data: parsed.event.data,
            ...(asks ? { asks } : {}),
            ...(typeof raw.retryOf === 'string' ? { retryOf: raw.retryOf } : {}),
          });
          continue;
        }
      } catch {
        // fall through: kept out of the posts below
      }
      broken.push(id);
    }
    if (broken.length > 0) {
      this.context.logger.error(
        { channel: at.channelId, count: broken.length },
        'call outbox: waiting calls that no longer read as call events were dropped',
      );
      void this.context.store.outbox.remove(at, broken);
    }
    return calls;
  }

  /** Posts the next call (or roll-up) of the channel; undefined when done, else ms to wait. */
  async postNext(at: ChannelRef, items: WaitingItem[]): Promise<number | undefined> {
    const waiting = this.parse(at, items);
    const first = waiting[0];
    if (!first) return undefined;
    const underWay = await this.context.store.outbox.rollupUnderWay(at);
    let batch: Waiting[] | undefined;
    if (underWay) {
      batch = this.parse(at, await this.context.store.outbox.pick(at, underWay));
      if (batch.length === 0) {
        await this.context.store.outbox.finishRollup(at, underWay);
        return undefined;
      }
    } else if (
      unmentioned(waiting).length >= 2 &&
      Date.now() - first.enqueuedAt >= this.rollupAfterMs &&
      (await this.mayRollUp(at)) &&
      // A call already (partly) posted on its own finishes that way, so no call shows twice.
      !(await this.anyStarted(at, unmentioned(waiting).slice(0, ROLLUP_MAX_CALLS)))
    ) {
      const calls = unmentioned(waiting);
      batch = calls.slice(0, rollupFits(calls));
      await this.context.store.outbox.startRollup(
        at,
        batch.map((c) => c.id),
        STEP_TTL_MS,
      );
    }
    const concerned = batch ?? [first];
    try {
      const slack = await this.context.slack(at.teamId, 'routine');
      if (batch) {
        await this.postRollup(slack, at, batch);
        await this.context.store.outbox.finishRollup(
          at,
          batch.map((c) => c.id),
        );
      } else {
        await this.postOne(slack, at, first);
        await this.context.store.outbox.remove(at, [first.id]);
      }
    } catch (err) {
      if (batch && (await this.steps.done(this.stepOf(at, rollupId(batch), 'post')))) {
        // The roll-up is out and shows these calls; only its transcripts are missing.
        const heals = this.context.pace.judge(err).delayMs;
        if (heals !== undefined) return heals;
        this.context.logger.warn({ err, channel: at.channelId }, 'a roll-up was posted, its transcripts could not be');
        await this.context.store.outbox.finishRollup(
          at,
          batch.map((c) => c.id),
        );
        await this.countPosted(at, batch);
        return undefined;
      }
      throw new LaneFailure(
        concerned.map((c) => c.item),
        err,
      );
    }
    await this.countPosted(at, concerned);
    return undefined;
  }

  /** `campaign_events_posted_total` counts a call once: in the first channel showing it, not when a post runs again. */
  private async countPosted(at: ChannelRef, calls: readonly Waiting[]): Promise<void> {
    for (const c of calls) {
      const counted = { teamId: at.teamId, entryId: c.id, channel: '*', step: 'counted' };
      if ((await this.steps.once(counted, () => Promise.resolve('posted'))).ran)
        this.context.metrics?.eventsPosted.inc({ trigger: c.trigger });
    }
  }

  /** Whether one of these calls has a post of its own already (its card, or its call_started line). */
  private async anyStarted(at: ChannelRef, calls: readonly Waiting[]): Promise<boolean> {
    const done = await Promise.all(
      // A card whose answer was lost (pending) may be in Slack already: it finishes on its own, never rolled up.
      calls.map((c) => this.steps.tried(this.stepOf(at, c.id, c.trigger === 'call_started' ? 'post' : 'card'))),
    );
    return done.some(Boolean);
  }

  /** False when a call route of the channel says `compact:off`: its calls then go one by one, and lag. */
  private async mayRollUp(at: ChannelRef): Promise<boolean> {
    const routes = await this.context.store.routes.listForChannel(at.teamId, at.channelId);
    return !routes.some((r) => r.triggerName.startsWith('call_') && r.filters?.compact === false);
  }

  /** The call's Recording button value: its address sealed for this workspace, opened by the bot on a press. */
  private recordingOf(at: ChannelRef, call: CallCompleted): string | undefined {
    return sealRecording(this.context.store.secrets, at.teamId, call.audioUrl);
  }

  private stepOf(at: ChannelRef, entryId: string, step: string): StepRef {
    return { teamId: at.teamId, entryId, channel: at.channelId, step };
  }

  private async postOne(slack: WebClient, at: ChannelRef, call: Waiting): Promise<void> {
    const channel = at.channelId;
    const view = await this.context.audiences.viewFor(slack, { teamId: at.teamId }, channel);
    if (call.trigger === 'call_started') {
      await this.steps.post(
        this.stepOf(at, call.id, 'post'),
        slack,
        { channel },
        renderCallStarted(view.fields(call.data), call.asks),
      );
      return;
    }
    const data = view.fields(call.data);
    // The short card unless a call route here says `cards:full`; its Details button carries the full one.
    const full = await this.context.store.routes.fullCards(at.teamId, channel);
    const details = full ? undefined : sealCallDetails(this.context.store.secrets, at.teamId, data);
    const shown = { ...data, recording: this.recordingOf(at, call.data), details };
    const card = await this.steps.post(
      this.stepOf(at, call.id, 'card'),
      slack,
      { channel },
      renderCallCompleted(shown, call.asks),
    );
    const transcript = renderTranscript(shown);
    if (transcript) await this.postTranscript(slack, this.stepOf(at, call.id, 'transcript'), card.result, transcript);
    // The audio holds the customer's voice and details: copied only into a channel that shows customers in
    // full. Elsewhere the card's button lets full members open it, one by one.
    if (!view.full) return;
    // Queued, not awaited: the transfer runs on its own, and the channel's next card does not wait for it.
    await this.recordings?.add(
      { teamId: at.teamId, channelId: channel, entryId: call.id, threadTs: card.result },
      call.data,
    );
  }

  private async postRollup(slack: WebClient, at: ChannelRef, batch: Waiting[]): Promise<void> {
    const id = rollupId(batch);
    const view = await this.context.audiences.viewFor(slack, { teamId: at.teamId }, at.channelId);
    const shown = callsToShow(batch).map((c): RolledCall =>
      c.trigger === 'call_started'
        ? { trigger: c.trigger, data: view.fields(c.data) }
        : { trigger: c.trigger, data: { ...view.fields(c.data), recording: this.recordingOf(at, c.data) } },
    );
    const post = await this.steps.post(
      this.stepOf(at, id, 'post'),
      slack,
      { channel: at.channelId },
      renderRollup(shown),
    );
    const transcripts = renderRollupTranscripts(shown);
    if (transcripts) await this.postTranscript(slack, this.stepOf(at, id, 'transcript'), post.result, transcripts);
    this.context.logger.info({ channel: at.channelId, calls: batch.length }, 'calls rolled up into one post');
  }

  private async postTranscript(
    slack: WebClient,
    step: StepRef,
    threadTs: string,
    reply: TranscriptReply,
  ): Promise<void> {
    if (reply.kind === 'message') {
      await this.steps.post(step, slack, { channel: step.channel, threadTs }, reply.payload);
      return;
    }
    await this.files.post(slack, step, { ...reply, threadTs, data: Buffer.from(reply.content, 'utf8') });
  }

  /** The calls become dead letters (an admin sees them in `/campaign failed` and can post them again). */
  async giveUp(at: ChannelRef, items: WaitingItem[], cause: string, attempts: number): Promise<void> {
    const calls = this.parse(at, items);
    const ids = calls.map((c) => c.id);
    const failedAt = Date.now();
    for (const c of calls) {
      const outbox: OutboxLetter = {
        channelId: at.channelId,
        trigger: c.trigger,
        data: c.data,
        ...(c.asks ? { asks: c.asks } : {}),
      };
      const counted = await this.context.store.queue.bury({
        id: c.retryOf ?? c.id,
        teamId: at.teamId,
        orderKey: `call-outbox:${c.retryOf ?? c.id}`,
        payload: { outbox },
        error: `posting failed in ${at.channelId}: ${cause}`,
        causes: [{ channel: at.channelId, error: cause }],
        attempts,
        enqueuedAt: c.enqueuedAt,
        failedAt,
        ...(c.retryOf ? { retried: true } : {}),
      });
      if (counted) this.context.metrics?.eventsDeadLettered.inc({ trigger: c.trigger });
    }
    const underWay = await this.context.store.outbox.rollupUnderWay(at);
    if (underWay?.some((id) => ids.includes(id))) await this.context.store.outbox.finishRollup(at, underWay);
    await this.context.store.outbox.remove(at, ids);
  }

  /**
   * A dead letter of this outbox back in the channels it was given up in (`channels`), under its own id (so nothing
   * posted before is posted again); given up again, it is the same letter.
   */
  async retry(teamId: string, id: string, payload: unknown, channels: readonly string[]): Promise<boolean> {
    const outbox = (payload as { outbox?: Partial<OutboxLetter> } | null)?.outbox;
    if (!outbox || typeof outbox.channelId !== 'string') return false;
    const parsed =
      outbox.trigger === 'call_started' || outbox.trigger === 'call_completed'
        ? parseEvent(outbox.data, outbox.trigger)
        : undefined;
    if (!parsed?.ok || !parsed.event.known) return false;
    const asks = readAsks(outbox.asks);
    const json = JSON.stringify({
      trigger: parsed.event.trigger,
      data: parsed.event.data,
      enqueuedAt: Date.now(),
      ...(asks ? { asks } : {}),
      retryOf: id,
    });
    for (const channelId of channels.length > 0 ? channels : [outbox.channelId]) {
      const to = { teamId, channelId };
      await this.context.store.channelPauses.resume(teamId, channelId);
      await this.context.store.outbox.add(to, 'routine', { id, json });
      this.scheduler.resumed(to);
    }
    return true;
  }
}
