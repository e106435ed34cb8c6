/**
 * The one scheduler: posts each channel's outbox (src/store/channel-outbox.ts) at Slack's pace, its most urgent lane
 * first, one replica at a time per channel, urgent and routine events in their workspace's order (docs/DELIVERY.md).
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { slackErrorCode } from '../slack/post.js';
import { ATTR, inSpan, traceContext } from '../util/spans.js';
import { LEASE_MS, type ChannelRef, type KeptLease, type WaitingItem } from '../store/index.js';
import { compareEntryIds } from '../store/queue-backend.js';
import { PROBE_EVERY_MS, pauseAdvice } from './channel-pause.js';
import { healsWithTime, holdsOnlyTopLevel } from './slack-errors.js';
import { RETENTION_MS, waitClock, type PostContext } from './post-context.js';

/** One lane's way of posting its work. */
export interface LaneHandler {
  /**
   * Posts the next post from `items` (the lane's head, oldest first, never empty) and removes what it posted; or
   * resolves with ms to wait. A failure concerns the first item unless it is a `LaneFailure`.
   */
  postNext(at: ChannelRef, items: WaitingItem[]): Promise<number | undefined>;
  /** These items leave the outbox as dead letters (Retry in `/campaign failed` posts them again). */
  giveUp(at: ChannelRef, items: WaitingItem[], cause: string, attempts: number): Promise<void>;
}

/** A lane's post failed; `concerned` are the items it was posting. */
export class LaneFailure extends Error {
  override readonly name = 'LaneFailure';
  constructor(
    readonly concerned: WaitingItem[],
    override readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/** The lanes' handlers; the bulk lane's posts are its in whichever lane they wait (a person's action: urgent). */
export interface Lanes {
  urgent: LaneHandler;
  routine: LaneHandler;
  bulk: LaneHandler & { owns(item: WaitingItem): boolean };
}

export interface SchedulerOptions {
  /** How often the channels due now are asked for (work other replicas added). Default 500 ms. */
  scanMs?: number;
  /** How often a paused channel is tried again with one post (`PROBE_EVERY_MS`). */
  probeEveryMs?: number;
  /** Channels posted for at once by this process. Default 8: more take the CPU customers need (docs/SCALING.md). */
  concurrency?: number;
}

/** How a drain ended: nothing more to do, its outbox empty, or due again (now, or in ms). */
type DrainEnd = 'done' | 'empty' | { due: 'now' | number };
/** The most of a lane read at once: a roll-up's worth (src/events/render/call-rollup.ts). */
const HEAD_LIMIT = 45;
/** Failures time does not heal (a refused payload…) before the items concerned are given up. */
const MAX_FAILURES = 5;
/** How often a paused channel is looked at: a pause lifted by `subscribe` or Resume is seen this soon. */
const PAUSE_RECHECK_MS = 2_000;
/** A workspace that refuses the app (token revoked, access removed): how often its work is tried again. */
const WORKSPACE_HOLD_MS = 60_000;
/** How soon a channel whose next event waits for an earlier one still being handed on is looked at again. */
const IN_ORDER_WAIT_MS = 25;
/** Entries whose channels wait to be told they are finished; past this many, channels are told at once. */
const MAX_AFTER_ENTRY = 10_000;
/** A queue entry's id (`<ms>-<seq>`): what the urgent and routine lanes' items are named by. */
const ENTRY_ID = /^\d+-\d+$/;

/** When an item was first queued and the trace its event came in: every lane keeps both in its JSON. */
function stampOf(item: WaitingItem): { enqueuedAt: number; traceparent?: string } {
  try {
    const { enqueuedAt, traceparent } = JSON.parse(item.json) as { enqueuedAt?: unknown; traceparent?: unknown };
    return {
      enqueuedAt: typeof enqueuedAt === 'number' ? enqueuedAt : Date.now(),
      ...(typeof traceparent === 'string' ? { traceparent } : {}),
    };
  } catch {
    return { enqueuedAt: Date.now() };
  }
}

const isOld = (item: WaitingItem) => Date.now() - stampOf(item).enqueuedAt > RETENTION_MS;

export class ChannelScheduler {
  private readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private lanes: Lanes | undefined;
  private readonly now: () => number;
  private readonly concurrency: number;
  private readonly busy = new Set<string>();
  /** Channel → when this process may try it again (saves a lease round trip for a channel that waits). */
  private readonly notBefore = new Map<string, number>();
  /** Channel → failures in a row that time does not heal. */
  private readonly failures = new Map<string, number>();
  /** Channels told to wait while Slack was down: they go as soon as it answers again, not at their next try. */
  private readonly waitingForSlack = new Map<string, ChannelRef>();
  private offSlackBack: (() => void) | undefined;
  private readonly wakeups = new Set<NodeJS.Timeout>();
  /** Queue entry → channels it was handed to, told when the queue finishes it (an entry taken over elsewhere: the scan). */
  private readonly afterEntry = new Map<string, ChannelRef[]>();
  private readonly running = new Set<Promise<void>>();
  private scanTimer: NodeJS.Timeout | undefined;
  private scanning = false;
  private stopped = true;

  constructor(
    private readonly context: PostContext,
    private readonly options: SchedulerOptions = {},
  ) {
    this.now = waitClock(context.store);
    this.concurrency = options.concurrency ?? 8;
  }

  /** Wires the lanes' handlers (once, before `start`: they are made with this scheduler). */
  serve(lanes: Lanes): void {
    this.lanes = lanes;
  }

  /** The channel takes posts again (an admin resumed it): forget this process's waits for it. */
  resumed(at: ChannelRef): void {
    this.failures.delete(member(at));
    this.notBefore.delete(member(at));
    this.added(at);
  }

  start(): void {
    if (!this.lanes) throw new Error('the scheduler has no lanes');
    if (!this.stopped) return;
    this.stopped = false;
    this.offSlackBack = this.context.pace.onSlackBack(() => this.slackIsBack());
    this.scanTimer = setInterval(() => this.scan(), this.options.scanMs ?? 500);
    this.scan();
  }

  /** The queue finished this entry: the channels it was handed to may post it. */
  entryFinished(entryId: string): void {
    const channels = this.afterEntry.get(entryId);
    this.afterEntry.delete(entryId);
    for (const at of channels ?? []) this.added(at);
  }

  /** Resolves when the posts under way are done. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.offSlackBack?.();
    this.afterEntry.clear();
    this.waitingForSlack.clear();
    clearInterval(this.scanTimer);
    for (const t of this.wakeups) clearTimeout(t);
    this.wakeups.clear();
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** Slack answers again: its waiting channels are due now (the scan brings those past this process's share). */
  private slackIsBack(): void {
    const now = this.now();
    for (const [id, at] of this.waitingForSlack) {
      this.notBefore.delete(id);
      this.context.store.outbox.dueAt(at, now).then(
        () => this.added(at),
        (err: unknown) => this.context.logger.warn({ err }, 'delivery: could not say when a channel is due again'),
      );
    }
    this.waitingForSlack.clear();
  }

  private scan(): void {
    const free = this.concurrency - this.busy.size;
    if (this.scanning || this.stopped || free <= 0) return;
    this.scanning = true;
    this.context.store.outbox
      .due(this.now(), free)
      .then((channels) => channels.forEach((at) => this.added(at)))
      .catch((err: unknown) => this.context.logger.warn({ err }, 'delivery: could not read the channels due now'))
      .finally(() => (this.scanning = false));
  }

  /**
   * Work was added to the channel's outbox: post it now if this process may (else its due time brings it). Work a
   * queue entry handed on goes once the queue has finished that entry (`entryFinished`): posted before, it could
   * be handed on again if the entry ran again, and show twice.
   */
  added(at: ChannelRef, entryId?: string): void {
    if (entryId !== undefined && this.afterEntry.size < MAX_AFTER_ENTRY) {
      const waiting = this.afterEntry.get(entryId);
      if (waiting) waiting.push(at);
      else this.afterEntry.set(entryId, [at]);
      return;
    }
    const id = member(at);
    if (this.stopped || this.busy.has(id) || this.busy.size >= this.concurrency) return;
    if ((this.notBefore.get(id) ?? 0) > this.now()) return;
    this.notBefore.delete(id);
    this.busy.add(id);
    const task = this.drain(at)
      .catch((err: unknown) =>
        this.context.logger.warn({ err, channel: at.channelId }, 'delivery: posting stopped early'),
      )
      .finally(() => {
        this.busy.delete(id);
        this.running.delete(task);
      });
    this.running.add(task);
  }

  /** Posts the channel's work under its lease; due meanwhile at the lease's end, for when this replica dies. */
  private async drain(at: ChannelRef): Promise<void> {
    const { leases, outbox } = this.context.store;
    const lease = outbox.lease(at);
    if (!(await leases.take(lease, this.owner, LEASE_MS))) return;
    const dueAtLeaseEnd = () => outbox.dueAt(at, this.now() + LEASE_MS);
    await dueAtLeaseEnd();
    const kept = leases.keep(lease, this.owner, LEASE_MS, dueAtLeaseEnd);
    let end: DrainEnd = { due: 'now' };
    try {
      end = await this.postAll(at, kept);
    } finally {
      await kept.stop();
      await this.settle(at, end).catch((err: unknown) =>
        this.context.logger.warn({ err, channel: at.channelId }, 'delivery: could not say when a channel is due again'),
      );
      await leases.release(lease, this.owner);
    }
  }

  private async settle(at: ChannelRef, end: DrainEnd): Promise<void> {
    if (end === 'done') return;
    if (end === 'empty') {
      this.failures.delete(member(at));
      return this.context.store.outbox.forgetIfEmpty(at);
    }
    const ms = end.due === 'now' ? 0 : end.due;
    await this.context.store.outbox.dueAt(at, this.now() + ms);
    if (end.due === 'now' || this.stopped) return;
    this.notBefore.set(member(at), this.now() + ms);
    const timer = setTimeout(() => {
      this.wakeups.delete(timer);
      this.added(at);
    }, ms);
    this.wakeups.add(timer);
  }

  private async postAll(at: ChannelRef, kept: KeptLease): Promise<DrainEnd> {
    if (!(await this.context.installed(at.teamId))) {
      await this.forget(at);
      return 'done';
    }
    while (!this.stopped) {
      if (!kept.held()) {
        this.context.logger.warn({ channel: at.channelId }, 'delivery: lease lost mid-drain; another replica goes on');
        return 'done';
      }
      const head = await this.context.store.outbox.head(at, HEAD_LIMIT);
      if (head.length === 0) return 'empty';
      const lanes = this.lanes!;
      const first = head[0]!;
      const kind = lanes.bulk.owns(first);
      const lane = kind ? lanes.bulk : lanes[first.lane];
      const items = head.filter((i) => i.lane === first.lane && lanes.bulk.owns(i) === kind);
      // Urgent and routine items wait until the queue has finished their own event and every earlier one of the
      // workspace: an entry that runs again hands its event on again, and a post already out would show twice.
      const unfinished = kind ? undefined : await this.context.store.queue.firstUnfinished(at.teamId);
      const ready = items.filter((i) => !unfinished || !ENTRY_ID.test(i.id) || compareEntryIds(i.id, unfinished) < 0);
      if (ready.length === 0) return { due: IN_ORDER_WAIT_MS };
      const waitMs = await this.postNext(at, lane, ready);
      if (waitMs !== undefined) return { due: waitMs };
    }
    return { due: 'now' }; // shutdown: another replica goes on
  }

  /** One post of the lane, or the ms a paused channel or a failure asks to wait. */
  private async postNext(at: ChannelRef, lane: LaneHandler, items: WaitingItem[]): Promise<number | undefined> {
    const first = items[0]!;
    const paused = await this.context.pauses.get(at.teamId, at.channelId);
    // A thread-only channel still takes replies: an open conversation goes on in its thread.
    const pause = paused && !(holdsOnlyTopLevel(paused.reason) && first.lane === 'urgent') ? paused : undefined;
    if (pause) {
      // Kept while someone fixes the channel, up to a day.
      const expired = items.filter(isOld);
      if (expired.length > 0) {
        await lane.giveUp(at, expired, pause.reason, 0);
        return undefined;
      }
      const probeIn = pause.since + (this.options.probeEveryMs ?? PROBE_EVERY_MS) - Date.now();
      if (probeIn > 0) return Math.min(probeIn, PAUSE_RECHECK_MS);
    }
    const { enqueuedAt, traceparent } = stampOf(first);
    const attributes = {
      [ATTR.team]: at.teamId,
      [ATTR.channel]: at.channelId,
      [ATTR.lane]: first.lane,
      [ATTR.entry]: first.id,
    };
    try {
      const span = { attributes, parent: traceContext(traceparent) };
      const waitMs = await inSpan('channel post', span, () => lane.postNext(at, items));
      if (waitMs !== undefined) return waitMs;
      this.context.metrics?.deliveryLag.observe({ lane: first.lane }, (Date.now() - enqueuedAt) / 1000);
    } catch (err) {
      return this.failed(at, lane, err instanceof LaneFailure ? err : new LaneFailure([first], err));
    }
    this.failures.delete(member(at));
    if (pause) await this.context.pauses.lifted(at.teamId, at.channelId);
    return undefined;
  }

  /** The workspace uninstalled the app: its waiting work goes, not kept. */
  private async forget(at: ChannelRef): Promise<void> {
    const { outbox } = this.context.store;
    let dropped = 0;
    for (let head = await outbox.head(at, 1_000); head.length > 0; head = await outbox.head(at, 1_000)) {
      const ids = head.map((i) => i.id);
      await outbox.finishRollup(at, ids); // a roll-up under way goes with its calls
      dropped += head.length;
    }
    await outbox.forgetIfEmpty(at);
    this.failures.delete(member(at));
    this.context.logger.info(
      { team: at.teamId, channel: at.channelId, dropped },
      'waiting posts dropped: their workspace uninstalled the app',
    );
  }

  /** What a failed post means (slack-errors.ts): ms to wait, or undefined once the items concerned are given up. */
  private async failed(at: ChannelRef, lane: LaneHandler, { concerned, cause: err }: LaneFailure) {
    const young = !concerned.some(isOld);
    const verdict = this.context.pace.judge(err);
    const { pauses } = this.context;
    if (verdict.code === 'message_limit_exceeded') await pauses.overMessageLimit(at.teamId, at.channelId);
    if (healsWithTime(verdict.class) && young) {
      if (this.context.pace.slackDown) this.waitingForSlack.set(member(at), at);
      return verdict.delayMs;
    }
    const code = verdict.code ?? slackErrorCode(err);
    const log = { err, channel: at.channelId, team: at.teamId, slackError: code };
    if (verdict.class === 'channel' && code && young) {
      // No retry storm: nothing goes there until the probe, and its subscriber is told once.
      if (await pauses.get(at.teamId, at.channelId)) await pauses.probed(at.teamId, at.channelId, code);
      else await pauses.pause(at.teamId, at.channelId, code);
      const waiting = await this.context.store.outbox.size(at);
      this.context.logger.warn({ ...log, waiting }, `posts wait: ${pauseAdvice(at.channelId, code)}`);
      return PAUSE_RECHECK_MS;
    }
    if (verdict.class === 'workspace' && young) {
      this.context.logger.error(
        log,
        'the workspace refuses the app (token revoked or access removed): its posts wait until it is reinstalled',
      );
      return WORKSPACE_HOLD_MS;
    }
    const failures = verdict.class === 'payload' ? MAX_FAILURES : (this.failures.get(member(at)) ?? 0) + 1;
    this.failures.set(member(at), failures);
    if (failures < MAX_FAILURES) {
      this.context.logger.warn({ ...log, failures }, 'could not post to a channel; it will be tried again');
      return Math.min(1_000 * 2 ** (failures - 1), 60_000);
    }
    this.context.logger.error({ ...log, items: concerned.length }, 'posts given up: Slack will not take them');
    this.failures.delete(member(at));
    await lane.giveUp(at, concerned, code ?? (err instanceof Error ? err.message : String(err)), failures);
    return undefined;
  }
}

const member = (at: ChannelRef) => `${at.teamId} ${at.channelId}`;
