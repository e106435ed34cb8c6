/**
 * Call notifications: the routine lane of a channel's outbox. Calls go one by one (card, then transcript in its
 * thread) while the channel keeps up, and are rolled up once its oldest waiting call is older than `rollupAfterMs`,
 * unless a call route there says `compact:off`. A call whose route mentions someone keeps its own card, in its turn,
 * not buried in a list; a roll-up keeps recording links: a recording each would be a post each in a channel behind.
 */
import type { ChannelRef, QueueEntry, WaitingItem, WaitingWork } from '../store/index.js';
import { parseEvent } from '../events/events.js';
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
import { STEP_TTL_MS, StepLog, type StepRef } from './steps.js';
import { buryFor } from './dead-letters.js';
import type { CallRecordings } from '../events/recordings.js';
import type { FileShares } from '../slack/external-upload.js';
import type { WebClient } from '@slack/web-api';
import type { MessagePayload } from '../slack/blocks.js';
import { withTraceNow } from '../util/spans.js';

export interface CallOutboxOptions {
  /** A channel whose oldest waiting call is older than this rolls up every waiting call in its next post. Default 3 s. */
  rollupAfterMs?: number;
}

type Waiting = RolledCall & {
  item: WaitingItem;
  enqueuedAt: number;
  asks?: Routed;
  /** Its dead letter's id, when an admin retried it: given up again, it is that letter again. */
  retryOf?: string;
};

/** A stored call event, when it still reads as one. */
function readCall(trigger: unknown, data: unknown): RolledCall | undefined {
  if (trigger !== 'call_started' && trigger !== 'call_completed') return undefined;
  const parsed = parseEvent(data, trigger);
  if (!parsed.ok || !parsed.event.known) return undefined;
  const { event } = parsed;
  if (event.trigger === 'call_started') return { trigger: event.trigger, data: event.data };
  return event.trigger === 'call_completed' ? { trigger: event.trigger, data: event.data } : undefined;
}

/** A waiting call as stored, when it still reads as a call event. */
function readWaiting({ id, json }: WaitingWork): Waiting | undefined {
  try {
    const raw = JSON.parse(json) as Record<string, unknown>;
    const call = readCall(raw.trigger, raw.data);
    const enqueuedAt = typeof raw.enqueuedAt === 'number' ? raw.enqueuedAt : Date.now();
    const retryOf = typeof raw.retryOf === 'string' ? raw.retryOf : undefined;
    return call && { ...call, item: { id, json, lane: 'routine' }, enqueuedAt, asks: readAsks(raw.asks), retryOf };
  } catch {
    return undefined;
  }
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
  return `rollup:${batch[0]!.item.id}:${batch.length}`;
}

/** A call as it waits in the outbox (JSON leaves out what is undefined). */
function storedCall({ trigger, data }: RolledCall, enqueuedAt: number, asks?: Routed, retryOf?: string): string {
  return JSON.stringify(withTraceNow({ trigger, data, enqueuedAt, asks, retryOf }));
}

const idsOf = (calls: readonly Waiting[]) => calls.map((c) => c.item.id);
const itemsOf = (calls: readonly Waiting[]) => calls.map((c) => c.item);

export class CallOutbox implements LaneHandler {
  private readonly steps: StepLog;

  constructor(
    private readonly context: PostContext,
    private readonly scheduler: Pick<ChannelScheduler, 'added' | 'resumed'>,
    private readonly files: FileShares,
    private readonly options: CallOutboxOptions = {},
    /** Copies a card's recording into its thread afterwards (cards posted one by one only). */
    private readonly recordings?: Pick<CallRecordings, 'add'>,
  ) {
    this.steps = new StepLog(this.context.store, (err) => this.context.pace.judge(err));
  }

  /** Queues a call event for a channel (again: no second copy) in its routine lane. */
  async add(to: ChannelRef, entry: QueueEntry, call: RolledCall, asks?: Routed): Promise<void> {
    const json = storedCall(call, entry.enqueuedAt, mentioning(asks), readJob(entry.payload).data?.retryOf);
    await this.context.store.outbox.add(to, 'routine', { id: entry.id, json });
    this.scheduler.added(to, entry.id);
  }

  /** The waiting calls that read as call events; those that no longer do are dropped. */
  private parse(at: ChannelRef, stored: readonly WaitingWork[]): Waiting[] {
    const calls = stored.map(readWaiting);
    const broken = stored.filter((_, i) => calls[i] === undefined).map((w) => w.id);
    if (broken.length > 0) {
      this.context.logger.error(
        { channel: at.channelId, count: broken.length },
        'call outbox: waiting calls that no longer read as call events were dropped',
      );
      void this.context.store.outbox.remove(at, broken);
    }
    return calls.filter((c) => c !== undefined);
  }

  async postNext(at: ChannelRef, items: WaitingItem[]): Promise<number | undefined> {
    const waiting = this.parse(at, items);
    const first = waiting[0];
    if (!first) return undefined;
    const batch = await this.rollupOf(at, waiting);
    if (batch?.length === 0) return undefined;
    const calls = batch ?? [first];
    try {
      const slack = await this.context.slack(at.teamId, 'routine');
      await (batch ? this.postRollup(slack, at, batch) : this.postOne(slack, at, first));
    } catch (err) {
      // A roll-up that is out shows its calls already: only its transcripts are missing.
      const shown = batch && (await this.steps.done(this.stepOf(at, rollupId(batch), 'post')));
      if (!shown) throw new LaneFailure(itemsOf(calls), err);
      const heals = this.context.pace.judge(err).delayMs;
      if (heals !== undefined) return heals;
      this.context.logger.warn({ err, channel: at.channelId }, 'a roll-up was posted, its transcripts could not be');
    }
    const { outbox } = this.context.store;
    await (batch ? outbox.finishRollup(at, idsOf(batch)) : outbox.remove(at, idsOf(calls)));
    // `campaign_events_posted_total` counts a call once: in the first channel showing it, not when a post runs again.
    for (const c of calls) {
      const counted = { teamId: at.teamId, entryId: c.item.id, channel: '*', step: 'counted' };
      if ((await this.steps.once(counted, () => Promise.resolve('posted'))).ran)
        this.context.metrics?.eventsPosted.inc({ trigger: c.trigger });
    }
    return undefined;
  }

  /** The roll-up under way (empty: its calls are gone), else one the lagging channel starts (written down first). */
  private async rollupOf(at: ChannelRef, waiting: Waiting[]): Promise<Waiting[] | undefined> {
    const { outbox } = this.context.store;
    const underWay = await outbox.rollupUnderWay(at);
    if (underWay) {
      const batch = this.parse(at, underWay);
      if (batch.length === 0) await outbox.finishRollup(at, []);
      return batch;
    }
    const stop = waiting.findIndex((c) => c.asks !== undefined);
    const calls = stop < 0 ? waiting : waiting.slice(0, stop);
    if (calls.length < 2 || Date.now() - calls[0]!.enqueuedAt < (this.options.rollupAfterMs ?? 3_000)) return undefined;
    // A call route here saying `compact:off`: its calls go one by one, and lag.
    const routes = await this.context.store.routes.listForChannel(at.teamId, at.channelId);
    if (routes.some((r) => r.triggerName.startsWith('call_') && r.filters?.compact === false)) return undefined;
    // A call already (partly) posted on its own, or whose answer was lost, finishes that way: no call shows twice.
    const started = calls
      .slice(0, ROLLUP_MAX_CALLS)
      .map((c) => this.steps.tried(this.stepOf(at, c.item.id, c.trigger === 'call_started' ? 'post' : 'card')));
    if ((await Promise.all(started)).some(Boolean)) return undefined;
    const batch = calls.slice(0, rollupFits(calls));
    await outbox.startRollup(at, idsOf(batch), STEP_TTL_MS);
    return batch;
  }

  private stepOf(at: ChannelRef, entryId: string, step: string): StepRef {
    return { teamId: at.teamId, entryId, channel: at.channelId, step };
  }

  /** Posts the `step` of a call (or roll-up) `id` in the channel once; resolves with its ts. */
  private async postStep(
    slack: WebClient,
    at: ChannelRef,
    id: string,
    step: string,
    payload: MessagePayload,
    threadTs?: string,
  ) {
    const to = { channel: at.channelId, threadTs };
    return (await this.steps.post(this.stepOf(at, id, step), slack, to, payload)).result;
  }

  private async postOne(slack: WebClient, at: ChannelRef, call: Waiting): Promise<void> {
    const { teamId, channelId } = at;
    const { id } = call.item;
    const view = await this.context.audiences.viewFor(slack, { teamId }, channelId);
    const data = view.fields(call.data);
    if (call.trigger === 'call_started') {
      await this.postStep(slack, at, id, 'post', renderCallStarted(data, call.asks));
      return;
    }
    // The short card unless a call route here says `cards:full`; its Details button carries the full one.
    const full = await this.context.store.routes.fullCards(teamId, channelId);
    const details = full ? undefined : sealCallDetails(this.context.store.secrets, teamId, data);
    const recording = sealRecording(this.context.store.secrets, teamId, call.data.audioUrl);
    const shown = { ...data, recording, details };
    const card = await this.postStep(slack, at, id, 'card', renderCallCompleted(shown, call.asks));
    const transcript = renderTranscript(shown);
    if (transcript) await this.postTranscript(slack, at, id, card, transcript);
    // The audio holds the customer's voice: copied only into a channel that shows customers in full. Queued, not
    // awaited: the channel's next card does not wait for the transfer.
    if (view.full) await this.recordings?.add({ teamId, channelId, entryId: id, threadTs: card }, call.data);
  }

  private async postRollup(slack: WebClient, at: ChannelRef, batch: Waiting[]): Promise<void> {
    const id = rollupId(batch);
    const view = await this.context.audiences.viewFor(slack, { teamId: at.teamId }, at.channelId);
    const shown = callsToShow(batch).map((c): RolledCall => {
      if (c.trigger === 'call_started') return { trigger: c.trigger, data: view.fields(c.data) };
      const recording = sealRecording(this.context.store.secrets, at.teamId, c.data.audioUrl);
      return { trigger: c.trigger, data: { ...view.fields(c.data), recording } };
    });
    const post = await this.postStep(slack, at, id, 'post', renderRollup(shown));
    const transcripts = renderRollupTranscripts(shown);
    if (transcripts) await this.postTranscript(slack, at, id, post, transcripts);
    this.context.logger.info({ channel: at.channelId, calls: batch.length }, 'calls rolled up into one post');
  }

  private async postTranscript(slack: WebClient, at: ChannelRef, id: string, threadTs: string, reply: TranscriptReply) {
    if (reply.kind === 'message') await this.postStep(slack, at, id, 'transcript', reply.payload, threadTs);
    else {
      const file = { ...reply, threadTs, data: Buffer.from(reply.content, 'utf8') };
      await this.files.post(slack, this.stepOf(at, id, 'transcript'), file);
    }
  }

  async giveUp(at: ChannelRef, items: WaitingItem[], cause: string, attempts: number): Promise<void> {
    const calls = this.parse(at, items);
    const ids = idsOf(calls);
    const failedAt = Date.now();
    for (const { item, retryOf, trigger, data, asks, enqueuedAt } of calls) {
      const id = retryOf ?? item.id;
      const payload = { outbox: { channelId: at.channelId, trigger, data, ...(asks ? { asks } : {}) } };
      const letter = { id, teamId: at.teamId, orderKey: `call-outbox:${id}`, payload, attempts, enqueuedAt, failedAt };
      await buryFor(this.context, at, { ...letter, ...(retryOf ? { retried: true } : {}) }, cause, trigger);
    }
    const { outbox } = this.context.store;
    const underWay = await outbox.rollupUnderWay(at);
    if (underWay?.some((w) => ids.includes(w.id)))
      await outbox.finishRollup(at, [...ids, ...underWay.map((w) => w.id)]);
    else await outbox.remove(at, ids);
  }

  /** A dead letter back in the channels it was given up in, under its own id: nothing posted before posts again. */
  async retry(teamId: string, id: string, payload: unknown, channels: readonly string[]): Promise<boolean> {
    const outbox = (payload as { outbox?: Record<string, unknown> } | null)?.outbox;
    if (!outbox || typeof outbox.channelId !== 'string') return false;
    const call = readCall(outbox.trigger, outbox.data);
    if (!call) return false;
    for (const channelId of channels.length > 0 ? channels : [outbox.channelId]) {
      const to = { teamId, channelId };
      await this.context.store.channelPauses.resume(teamId, channelId);
      await this.context.store.outbox.add(to, 'routine', {
        id,
        json: storedCall(call, Date.now(), readAsks(outbox.asks), id),
      });
      this.scheduler.resumed(to);
    }
    return true;
  }
}
