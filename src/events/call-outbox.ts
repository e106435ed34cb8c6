/**
 * Call notifications, posted at Slack's pace. The worker hands each routed call event to its channel's outbox
 * (in the store, so every replica sees it) and is done with it; this part posts a channel's waiting calls:
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
 * Calls are routine traffic: they leave one post of a channel's burst to customer conversations, and they
 * never hold a queue worker while a channel waits for its Slack budget, so other channels, workspaces and
 * conversations go on. A channel waits out its budget, a 429 or a Slack outage (time heals those) for up to
 * RETENTION_MS; one replica at a time posts for a channel (a short lease); every post is a remembered step, so
 * a retry never posts twice, and a roll-up tried again covers the same calls.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { slackErrorCode } from '../slack/post.js';
import { RetryLaterError, type ChannelRef, type QueueEntry } from '../store/index.js';
import { parseEvent } from './events.js';
import { renderCallCompleted, renderCallStarted, renderTranscript, type TranscriptReply } from './render/index.js';
import {
  rollupFits,
  callsToShow,
  renderRollup,
  renderRollupTranscripts,
  ROLLUP_MAX_CALLS,
  type RolledCall,
} from './render/call-rollup.js';
import type { PostingKit } from './posting-kit.js';
import type { Routed } from './router.js';
import { PROBE_EVERY_MS, pauseAdvice } from './channel-pause.js';
import { StepLog, type StepRef } from './steps.js';
import { RETENTION_MS } from './worker.js';
import type { CallRecordings } from './recordings.js';
import type { WebClient } from '@slack/web-api';

export interface CallOutboxOptions {
  /** A channel whose oldest waiting call is older than this rolls up every waiting call in its next post. Default 3 s. */
  rollupAfterMs?: number;
  /** How often the channels with waiting calls are looked at (calls other replicas added). Default 500 ms. */
  scanMs?: number;
  /** How often a paused channel is tried again with one post (`PROBE_EVERY_MS`; tests shorten it). */
  probeEveryMs?: number;
  /** Channels posted for at the same time by this process. Default 8. */
  concurrency?: number;
  /**
   * Calls that may wait for one channel (HOOK_MAX_BACKLOG); beyond, the queue keeps the next ones until the
   * channel has room. Waiting calls count toward the workspace's backlog caps either way. Default 20,000.
   */
  maxWaitingPerChannel?: number;
}

/**
 * A channel's lease: longer than one step takes at worst (a post, or a file upload's three calls, 30 s each;
 * renewed after each step), short enough that the calls of a process that crashed mid-post are soon posted by
 * another.
 */
const LEASE_MS = 120_000;
/** Failures time does not heal (a refused payload…) before the calls concerned are given up (logged, counted). */
const MAX_FAILURES = 5;
const STEP_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** A full channel: how long the next call waits in the queue before it tries again. */
const FULL_RETRY_MS = 1_000;
/** A paused channel: how often it is looked at (a pause lifted by `subscribe` or Retry is seen this soon). */
const PAUSE_RECHECK_MS = 2_000;
/** A workspace that refuses the app (token revoked, access removed): how often its calls are tried again. */
const WORKSPACE_HOLD_MS = 60_000;

type Waiting = RolledCall & { id: string; enqueuedAt: number; asks?: Routed };

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

function member(at: ChannelRef): string {
  return `${at.teamId} ${at.channelId}`;
}

/** The oldest waiting calls up to the first that mentions someone: what a roll-up may carry, in order. */
function unmentioned(waiting: readonly Waiting[]): Waiting[] {
  const stop = waiting.findIndex((c) => c.asks !== undefined);
  return stop < 0 ? [...waiting] : waiting.slice(0, stop);
}

export class CallOutbox {
  private readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly steps: StepLog;
  private readonly rollupAfterMs: number;
  private readonly concurrency: number;
  private readonly probeEveryMs: number;
  /** Channels being posted for by this process. */
  private readonly busy = new Set<string>();
  /** Channel → when it may be tried again (its budget, a 429, Slack down, a failure's backoff). */
  private readonly notBefore = new Map<string, number>();
  /** Channel → failures in a row that time does not heal. */
  private readonly failures = new Map<string, number>();
  private readonly wakeups = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  private scanTimer: NodeJS.Timeout | undefined;
  private scanning = false;
  private stopped = true;

  constructor(
    private readonly kit: PostingKit,
    private readonly options: CallOutboxOptions = {},
    /** Copies a card's recording into its thread afterwards (cards posted one by one only). */
    private readonly recordings?: Pick<CallRecordings, 'add'>,
  ) {
    this.steps = new StepLog(this.kit.store, (err) => this.kit.pace.judge(err));
    this.rollupAfterMs = options.rollupAfterMs ?? 3_000;
    this.concurrency = options.concurrency ?? 8;
    this.probeEveryMs = options.probeEveryMs ?? PROBE_EVERY_MS;
  }

  /**
   * Queues a call event for a channel (again: no second copy) and starts posting if this process may. A full
   * channel throws RetryLaterError: the entry stays queued and is tried again.
   */
  async add(to: ChannelRef, entry: QueueEntry, call: RolledCall, asks?: Routed): Promise<void> {
    const max = this.options.maxWaitingPerChannel ?? 20_000;
    if ((await this.kit.store.callOutbox.size(to)) >= max) {
      this.kick(to);
      throw new RetryLaterError(FULL_RETRY_MS, `${max} calls already wait for this channel`);
    }
    const mention = mentioning(asks);
    const json = JSON.stringify({
      trigger: call.trigger,
      data: call.data,
      enqueuedAt: entry.enqueuedAt,
      ...(mention ? { asks: mention } : {}),
    });
    await this.kit.store.callOutbox.add(to, { id: entry.id, json });
    this.kick(to);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.scanTimer = setInterval(() => this.scan(), this.options.scanMs ?? 500);
    this.scan();
  }

  /** Stops taking work; resolves when the posts under way are done. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.scanTimer);
    for (const t of this.wakeups) clearTimeout(t);
    this.wakeups.clear();
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  private scan(): void {
    if (this.scanning || this.stopped) return;
    this.scanning = true;
    this.kit.store.callOutbox
      .channels()
      .then((channels) => {
        for (const at of channels) this.kick(at);
      })
      .catch((err: unknown) =>
        this.kit.logger.warn({ err }, 'call outbox: could not list the channels with waiting calls'),
      )
      .finally(() => (this.scanning = false));
  }

  private kick(at: ChannelRef): void {
    const id = member(at);
    if (this.stopped || this.busy.has(id) || this.busy.size >= this.concurrency) return;
    const notBefore = this.notBefore.get(id);
    if (notBefore !== undefined) {
      if (notBefore > Date.now()) return;
      this.notBefore.delete(id);
    }
    this.busy.add(id);
    const task = this.drain(at)
      .catch((err: unknown) =>
        this.kit.logger.warn({ err, channel: at.channelId }, 'call outbox: posting stopped early'),
      )
      .finally(() => {
        this.busy.delete(id);
        this.running.delete(task);
      });
    this.running.add(task);
  }

  /** Posts the channel's waiting calls until none is left, the channel has to wait, or the lease is lost. */
  private async drain(at: ChannelRef): Promise<void> {
    const { leases, callOutbox } = this.kit.store;
    const lease = callOutbox.lease(at);
    if (!(await leases.take(lease, this.owner, LEASE_MS))) return;
    try {
      if (!(await this.kit.store.workspaces.exists(at.teamId))) {
        await this.dropForgotten(at);
        return;
      }
      while (!this.stopped) {
        // The oldest calls only: a post takes at most a roll-up's worth, and a long wait is never read whole.
        const waiting = this.parse(at, await callOutbox.waiting(at, ROLLUP_MAX_CALLS));
        if (waiting.length === 0) {
          this.failures.delete(member(at));
          await callOutbox.forgetIfEmpty(at);
          return;
        }
        const pause = await this.kit.pauses.get(at.teamId, at.channelId);
        if (pause) {
          // Kept while someone fixes the channel, up to a day; then they become failed events (Retry).
          const expired = waiting.filter((c) => Date.now() - c.enqueuedAt > RETENTION_MS);
          if (expired.length > 0) {
            await this.giveUp(at, expired, pause.reason, 0);
            continue;
          }
          // Nothing is sent until the probe is due; a lifted pause (subscribe, Retry) is seen within seconds.
          const probeIn = pause.since + this.probeEveryMs - Date.now();
          if (probeIn > 0) {
            this.later(at, Math.min(probeIn, PAUSE_RECHECK_MS));
            return;
          }
        }
        const waitMs = await this.postNext(at, waiting, pause !== undefined);
        if (waitMs !== undefined) {
          this.later(at, waitMs);
          return;
        }
        // Lost (it outlived its lease: another replica may be posting here now): stop, post nothing more.
        if (!(await leases.renew(lease, this.owner, LEASE_MS))) {
          this.kit.logger.warn({ channel: at.channelId }, 'call outbox: lease lost mid-drain; another replica goes on');
          return;
        }
      }
    } finally {
      await leases.release(lease, this.owner);
    }
  }

  /** The workspace uninstalled the app: its waiting calls go, unposted and not kept as dead letters. */
  private async dropForgotten(at: ChannelRef): Promise<void> {
    // Only the ids: the whole channel's backlog, without reading its events.
    const ids = await this.kit.store.callOutbox.ids(at);
    await this.kit.store.callOutbox.finishRollup(at, ids);
    await this.kit.store.callOutbox.forgetIfEmpty(at);
    this.failures.delete(member(at));
    this.kit.logger.info(
      { team: at.teamId, channel: at.channelId, calls: ids.length },
      'call notifications dropped: their workspace uninstalled the app',
    );
  }

  private later(at: ChannelRef, ms: number): void {
    if (this.stopped) return;
    this.notBefore.set(member(at), Date.now() + ms);
    const timer = setTimeout(() => {
      this.wakeups.delete(timer);
      this.kick(at);
    }, ms);
    this.wakeups.add(timer);
  }

  private parse(at: ChannelRef, stored: Array<{ id: string; json: string }>): Waiting[] {
    const calls: Waiting[] = [];
    const broken: string[] = [];
    for (const { id, json } of stored) {
      try {
        const raw = JSON.parse(json) as { trigger?: unknown; data?: unknown; enqueuedAt?: unknown; asks?: unknown };
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
            enqueuedAt,
            trigger: parsed.event.trigger,
            data: parsed.event.data,
            ...(asks ? { asks } : {}),
          });
          continue;
        }
      } catch {
        // fall through: kept out of the posts below
      }
      broken.push(id);
    }
    if (broken.length > 0) {
      this.kit.logger.error(
        { channel: at.channelId, count: broken.length },
        'call outbox: waiting calls that no longer read as call events were dropped',
      );
      void this.kit.store.callOutbox.remove(at, broken);
    }
    return calls;
  }

  /** Posts the next call (or roll-up) of the channel; undefined when done, else ms to wait. `probe`: the channel is paused. */
  private async postNext(at: ChannelRef, waiting: Waiting[], probe: boolean): Promise<number | undefined> {
    const first = waiting[0]!;
    const underWay = await this.kit.store.callOutbox.rollupUnderWay(at);
    let batch: Waiting[] | undefined;
    if (underWay) {
      batch = this.parse(at, await this.kit.store.callOutbox.pick(at, underWay));
      if (batch.length === 0) {
        await this.kit.store.callOutbox.finishRollup(at, underWay);
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
      await this.kit.store.callOutbox.startRollup(
        at,
        batch.map((c) => c.id),
        STEP_TTL_MS,
      );
    }
    const concerned = batch ?? [first];
    try {
      const slack = await this.kit.slack(at.teamId, 'routine');
      if (batch) {
        await this.postRollup(slack, at, batch);
        await this.kit.store.callOutbox.finishRollup(
          at,
          batch.map((c) => c.id),
        );
      } else {
        await this.postOne(slack, at, first);
        await this.kit.store.callOutbox.remove(at, [first.id]);
      }
    } catch (err) {
      if (batch && (await this.steps.done(this.stepOf(at, rollupId(batch), 'post')))) {
        // The roll-up is out and shows these calls; only its transcripts are missing.
        const heals = this.kit.pace.retryDelayMs(err);
        if (heals !== undefined) return heals;
        this.kit.logger.warn({ err, channel: at.channelId }, 'a roll-up was posted, its transcripts could not be');
        await this.kit.store.callOutbox.finishRollup(
          at,
          batch.map((c) => c.id),
        );
        return undefined;
      }
      return this.failed(at, concerned, err);
    }
    this.failures.delete(member(at));
    if (probe) await this.kit.pauses.lifted(at.teamId, at.channelId);
    for (const c of concerned) this.kit.metrics?.eventsPosted.inc({ trigger: c.trigger });
    return undefined;
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
    const routes = await this.kit.store.routes.listForChannel(at.teamId, at.channelId);
    return !routes.some((r) => r.triggerName.startsWith('call_') && r.filters?.compact === false);
  }

  private stepOf(at: ChannelRef, entryId: string, step: string): StepRef {
    return { teamId: at.teamId, entryId, channel: at.channelId, step };
  }

  private async postOne(slack: WebClient, at: ChannelRef, call: Waiting): Promise<void> {
    const channel = at.channelId;
    const view = await this.kit.audiences.viewFor(slack, { teamId: at.teamId }, channel);
    if (call.trigger === 'call_started') {
      await this.steps.post(
        this.stepOf(at, call.id, 'post'),
        slack,
        { channel },
        renderCallStarted(view.fields(call.data), call.asks),
      );
      return;
    }
    const shown = view.fields(call.data);
    const card = await this.steps.post(
      this.stepOf(at, call.id, 'card'),
      slack,
      { channel },
      renderCallCompleted(shown, call.asks),
    );
    const transcript = renderTranscript(shown);
    if (transcript) await this.postTranscript(slack, this.stepOf(at, call.id, 'transcript'), card.result, transcript);
    // Queued, not awaited: the transfer runs on its own, and the channel's next card does not wait for it.
    await this.recordings?.add(
      { teamId: at.teamId, channelId: channel, entryId: call.id, threadTs: card.result },
      call.data,
    );
  }

  private async postRollup(slack: WebClient, at: ChannelRef, batch: Waiting[]): Promise<void> {
    const id = rollupId(batch);
    const view = await this.kit.audiences.viewFor(slack, { teamId: at.teamId }, at.channelId);
    const shown = callsToShow(batch).map((c): RolledCall =>
      c.trigger === 'call_started'
        ? { trigger: c.trigger, data: view.fields(c.data) }
        : { trigger: c.trigger, data: view.fields(c.data) },
    );
    const post = await this.steps.post(
      this.stepOf(at, id, 'post'),
      slack,
      { channel: at.channelId },
      renderRollup(shown),
    );
    const transcripts = renderRollupTranscripts(shown);
    if (transcripts) await this.postTranscript(slack, this.stepOf(at, id, 'transcript'), post.result, transcripts);
    this.kit.logger.info({ channel: at.channelId, calls: batch.length }, 'calls rolled up into one post');
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
    await this.steps.once(step, async () => {
      await slack.filesUploadV2({
        channel_id: step.channel,
        thread_ts: threadTs,
        file: Buffer.from(reply.content, 'utf8'),
        filename: reply.filename,
        title: reply.title,
        initial_comment: reply.comment,
      });
      return 'file';
    });
  }

  /**
   * What a failed post means (Slack's documented errors, src/slack/errors.ts): ms to wait — time heals it, the
   * channel or the workspace refuses until someone acts (the calls are kept) — or undefined once the calls
   * concerned are given up (the message is wrong, repeated failures, or older than a day).
   */
  private async failed(at: ChannelRef, concerned: Waiting[], err: unknown): Promise<number | undefined> {
    const oldest = Math.min(...concerned.map((c) => c.enqueuedAt));
    const young = Date.now() - oldest <= RETENTION_MS;
    const verdict = this.kit.pace.judge(err);
    if ((verdict.class === 'wait' || verdict.class === 'unknown') && young) return verdict.delayMs;
    const code = verdict.code ?? slackErrorCode(err);
    const log = { err, channel: at.channelId, team: at.teamId, slackError: code };
    if (verdict.class === 'channel' && code && young) {
      // No retry storm: nothing goes there until the probe, and its subscriber is told once.
      if (await this.kit.pauses.get(at.teamId, at.channelId))
        await this.kit.pauses.probed(at.teamId, at.channelId, code);
      else await this.kit.pauses.pause(at.teamId, at.channelId, code);
      this.kit.logger.warn(
        { ...log, calls: await this.kit.store.callOutbox.size(at) },
        `call notifications wait: ${pauseAdvice(at.channelId, code)}`,
      );
      return PAUSE_RECHECK_MS; // the drain sees the pause and waits for its probe (or its lifting)
    }
    if (verdict.class === 'workspace' && young) {
      this.kit.logger.error(
        log,
        'the workspace refuses the app (token revoked or access removed): call notifications wait until it is reinstalled',
      );
      return WORKSPACE_HOLD_MS;
    }
    const failures = verdict.class === 'payload' ? MAX_FAILURES : (this.failures.get(member(at)) ?? 0) + 1;
    this.failures.set(member(at), failures);
    if (failures < MAX_FAILURES) {
      this.kit.logger.warn({ ...log, failures }, 'could not post a call notification; it will be tried again');
      return Math.min(1_000 * 2 ** (failures - 1), 60_000);
    }
    this.kit.logger.error({ ...log, calls: concerned.length }, 'call notifications given up: Slack will not take them');
    this.failures.delete(member(at));
    await this.giveUp(at, concerned, code ?? (err instanceof Error ? err.message : String(err)), failures);
    return undefined;
  }

  /** The calls become dead letters (an admin sees them in `/campaign failed` and can post them again). */
  private async giveUp(at: ChannelRef, calls: Waiting[], cause: string, attempts: number): Promise<void> {
    const ids = calls.map((c) => c.id);
    const failedAt = Date.now();
    for (const c of calls) {
      const outbox: OutboxLetter = {
        channelId: at.channelId,
        trigger: c.trigger,
        data: c.data,
        ...(c.asks ? { asks: c.asks } : {}),
      };
      await this.kit.store.queue.bury({
        id: c.id,
        teamId: at.teamId,
        orderKey: `call-outbox:${at.channelId}`,
        payload: { outbox },
        error: `posting failed in ${at.channelId}: ${cause}`,
        causes: [{ channel: at.channelId, error: cause }],
        attempts,
        enqueuedAt: c.enqueuedAt,
        failedAt,
      });
      this.kit.metrics?.eventsDeadLettered.inc({ trigger: c.trigger });
    }
    const underWay = await this.kit.store.callOutbox.rollupUnderWay(at);
    if (underWay?.some((id) => ids.includes(id))) await this.kit.store.callOutbox.finishRollup(at, underWay);
    await this.kit.store.callOutbox.remove(at, ids);
  }

  /** A dead letter of this outbox back in its channel, under its own id (so nothing posted before is posted again). */
  async retry(teamId: string, id: string, payload: unknown): Promise<boolean> {
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
    });
    const to = { teamId, channelId: outbox.channelId };
    this.failures.delete(member(to));
    await this.kit.store.channelPauses.resume(teamId, outbox.channelId);
    await this.kit.store.callOutbox.add(to, { id, json });
    this.kick(to);
    return true;
  }
}
