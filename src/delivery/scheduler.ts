/**
 * The one road to Slack for work that waits: every post that is not the direct answer to a person goes to its
 * channel's outbox (src/store/channel-outbox.ts) in a lane — urgent (customers), routine (calls), bulk — and
 * this scheduler posts each channel's outbox at Slack's pace, its most urgent lane first.
 *
 * - Cost with work: replicas ask the store for the channels due now (one sorted set), never list them all; a
 *   channel waiting for Slack (its budget, a 429, an outage, a pause) is due again when that wait ends, and a
 *   channel a replica is posting in is due again only when its lease would have run out.
 * - In arrival order: the urgent and routine lanes hold queued events, and one is posted only once every event its
 *   workspace queued before it has been handed to its channels (`EventQueue.firstUnfinished`), so a conversation's
 *   or a call's events show in the order they came, whichever replica handed each on.
 * - One replica at a time posts for a channel (an owner-checked lease, renewed on a timer while it drains; a
 *   drain that lost it stops before its next post). Every post is a remembered step of its lane, so nothing shows twice.
 * - What Slack's answers mean is read once (`SlackPace.judge`, src/delivery/slack-errors.ts): time heals it (the channel
 *   waits, no try counted, up to RETENTION_MS); the channel refuses (paused, its subscriber told once, its work
 *   kept and probed); the workspace refuses (held, tried every minute); the message is wrong, or fails again
 *   and again (its lane gives it up as a dead letter, which Retry in `/campaign failed` posts again).
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { slackErrorCode } from '../slack/post.js';
import { ATTR, inSpan, traceContext } from '../util/spans.js';
import { LEASE_MS, type ChannelRef, type KeptLease, type Lane, type WaitingItem } from '../store/index.js';
import { compareEntryIds } from '../store/queue-backend.js';
import { holdsOnlyTopLevel, PROBE_EVERY_MS, pauseAdvice } from './channel-pause.js';
import { RETENTION_MS, waitClock, type PostContext } from './post-context.js';

/** One lane's way of posting its work (calls: one by one or rolled up; customers: their conversation's turn). */
export interface LaneHandler {
  /**
   * Posts the next post of the lane from `items` (the lane's head in the channel, oldest first) and removes
   * what it posted. Resolves undefined when done (or nothing was left to do), or with ms to wait; a failure
   * is a `LaneFailure` naming the items it concerned.
   */
  postNext(at: ChannelRef, items: WaitingItem[]): Promise<number | undefined>;
  /** These items become dead letters (`/campaign failed` shows them; Retry posts them again). */
  giveUp(at: ChannelRef, items: WaitingItem[], cause: string, attempts: number): Promise<void>;
  /** When the item was first queued: how long it may still wait. */
  enqueuedAt(item: WaitingItem): number;
  /** The trace the item's event arrived in (W3C `traceparent`), when tracing was on. */
  traceparentOf(item: WaitingItem): string | undefined;
  /** The workspace uninstalled the app: these items go, unposted and not kept. */
  forget(at: ChannelRef, items: WaitingItem[]): Promise<void>;
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

export interface SchedulerOptions {
  /** How often the channels due now are asked for (work other replicas added). Default 500 ms. */
  scanMs?: number;
  /** How often a paused channel is tried again with one post (`PROBE_EVERY_MS`; tests shorten it). */
  probeEveryMs?: number;
  /**
   * Channels posted for at the same time by this process. Default 8: more drain a many-channel backlog faster but
   * take the CPU a saturated replica's queue needs for customers (busy fleet, 32 slots: customers' p99 6.7 s
   * against 2.5 s with 8; docs/SCALING.md).
   */
  concurrency?: number;
}

/** How a drain ended: nothing more to do, its outbox empty, or due again (now, or in ms). */
type DrainEnd = 'done' | 'empty' | { due: 'now' | number };
/** The most of a lane read at once: a roll-up's worth (src/events/render/call-rollup.ts). */
const HEAD_LIMIT = 45;
/** Failures time does not heal (a refused payload…) before the items concerned are given up. */
const MAX_FAILURES = 5;
/** A paused channel: how often it is looked at (a pause lifted by `subscribe` or Resume is seen this soon). */
const PAUSE_RECHECK_MS = 2_000;
/** A workspace that refuses the app (token revoked, access removed): how often its work is tried again. */
const WORKSPACE_HOLD_MS = 60_000;
/** How soon a channel whose next event waits for an earlier one still being handed on is looked at again. */
const IN_ORDER_WAIT_MS = 25;
/** A queue entry's id (`<ms>-<seq>`): what the urgent and routine lanes' items are named by. */
const ENTRY_ID = /^\d+-\d+$/;

function member(at: ChannelRef): string {
  return `${at.teamId} ${at.channelId}`;
}

export class ChannelScheduler {
  private readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly lanes = new Map<Lane, LaneHandler>();
  /** Posts of a kind (src/delivery/bulk-lane.ts), in whichever lane they wait. */
  private kinds: (LaneHandler & { owns(item: WaitingItem): boolean }) | undefined;
  private readonly concurrency: number;
  /** When channels are due (`waitClock`: a test moves it past a long hold, `RateBudget.holdLong`). */
  private readonly now: () => number;
  private readonly probeEveryMs: number;
  /** Channels being posted for by this process. */
  private readonly busy = new Set<string>();
  /** Channel → when this process may try it again (saves a lease round trip for a channel that waits). */
  private readonly notBefore = new Map<string, number>();
  /** Channel → failures in a row that time does not heal. */
  private readonly failures = new Map<string, number>();
  private readonly wakeups = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  private scanTimer: NodeJS.Timeout | undefined;
  private scanning = false;
  private stopped = true;

  constructor(
    private readonly context: PostContext,
    private readonly options: SchedulerOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 8;
    this.now = waitClock(context.store);
    this.probeEveryMs = options.probeEveryMs ?? PROBE_EVERY_MS;
  }

  /** Registers the handler of one lane (one each; a second registration is a wiring mistake). */
  lane(name: Lane, handler: LaneHandler): void {
    if (this.lanes.has(name)) throw new Error(`the ${name} lane has a handler already`);
    this.lanes.set(name, handler);
  }

  /** Registers the handler of posts of a kind: in any lane, those items are its. */
  posts(handler: LaneHandler & { owns(item: WaitingItem): boolean }): void {
    this.kinds = handler;
  }

  /** Work was added to the channel's outbox: post it now if this process may (else its due time brings it). */
  added(at: ChannelRef): void {
    this.kick(at);
  }

  /** The channel takes posts again (an admin resumed it): forget this process's waits for it. */
  resumed(at: ChannelRef): void {
    this.failures.delete(member(at));
    this.notBefore.delete(member(at));
    this.kick(at);
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
    const free = this.concurrency - this.busy.size;
    if (this.scanning || this.stopped || free <= 0) return;
    this.scanning = true;
    this.context.store.outbox
      .due(this.now(), free)
      .then((channels) => {
        for (const at of channels) this.kick(at);
      })
      .catch((err: unknown) => this.context.logger.warn({ err }, 'delivery: could not read the channels due now'))
      .finally(() => (this.scanning = false));
  }

  private kick(at: ChannelRef): void {
    const id = member(at);
    if (this.stopped || this.busy.has(id) || this.busy.size >= this.concurrency) return;
    const notBefore = this.notBefore.get(id);
    if (notBefore !== undefined) {
      if (notBefore > this.now()) return;
      this.notBefore.delete(id);
    }
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

  /**
   * Posts the channel's waiting work until none is left, the channel has to wait, or the lease is lost. The
   * lease is renewed on a timer while the drain runs (a post in flight included), and the channel is due again
   * only when it would run out: a replica killed mid-drain leaves the channel to another within `LEASE_MS`.
   */
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

  /** When the channel is due again after a drain that ended so. */
  private async settle(at: ChannelRef, end: DrainEnd): Promise<void> {
    if (end === 'done') return;
    if (end === 'empty') {
      this.failures.delete(member(at));
      await this.context.store.outbox.forgetIfEmpty(at);
    } else if (end.due === 'now') await this.context.store.outbox.dueAt(at, this.now());
    else await this.later(at, end.due);
  }

  /** The drain's posts, while this replica holds the channel's lease. */
  private async postAll(at: ChannelRef, kept: KeptLease): Promise<DrainEnd> {
    if (!(await this.context.installed(at.teamId))) {
      await this.forget(at);
      return 'done';
    }
    while (!this.stopped) {
      // Lost (it outlived its lease: another replica may be posting here now): stop, post nothing more.
      if (!kept.held()) {
        this.context.logger.warn({ channel: at.channelId }, 'delivery: lease lost mid-drain; another replica goes on');
        return 'done';
      }
      const head = await this.context.store.outbox.head(at, HEAD_LIMIT);
      if (head.length === 0) return 'empty';
      const laneName = head[0]!.lane;
      const ofKind = (i: WaitingItem) => this.kinds?.owns(i) === true;
      const kind = ofKind(head[0]!);
      const lane = kind ? this.kinds : this.lanes.get(laneName);
      if (!lane) {
        this.context.logger.error({ channel: at.channelId, lane: laneName }, 'delivery: no handler for a lane');
        return { due: WORKSPACE_HOLD_MS };
      }
      const items = head.filter((i) => i.lane === laneName && ofKind(i) === kind);
      const ready = kind ? items : await this.inArrivalOrder(at, items);
      if (ready.length === 0) return { due: IN_ORDER_WAIT_MS };
      const waitMs = await this.postNext(at, lane, ready);
      if (waitMs !== undefined) return { due: waitMs };
    }
    // Stopped mid-drain (shutdown): due now, for another replica.
    return { due: 'now' };
  }

  /**
   * The items that may go now: those queued no later than the workspace's oldest event not yet handed on (that
   * one's own item included: every event before it is in its outboxes already).
   */
  private async inArrivalOrder(at: ChannelRef, items: WaitingItem[]): Promise<WaitingItem[]> {
    const first = await this.context.store.queue.firstUnfinished(at.teamId);
    if (first === undefined) return items;
    return items.filter((i) => !ENTRY_ID.test(i.id) || compareEntryIds(i.id, first) <= 0);
  }

  /** One post of the lane, or the wait a paused channel or a failure asks for (ms). */
  private async postNext(at: ChannelRef, lane: LaneHandler, items: WaitingItem[]): Promise<number | undefined> {
    const paused = await this.context.pauses.get(at.teamId, at.channelId);
    // A thread-only channel still takes replies: an open conversation goes on in its thread.
    const pause = paused && !(holdsOnlyTopLevel(paused.reason) && items[0]?.lane === 'urgent') ? paused : undefined;
    if (pause) {
      // Kept while someone fixes the channel, up to a day; then they become dead letters (Retry).
      const expired = items.filter((i) => Date.now() - lane.enqueuedAt(i) > RETENTION_MS);
      if (expired.length > 0) {
        await lane.giveUp(at, expired, pause.reason, 0);
        return undefined;
      }
      // Nothing is sent until the probe is due; a lifted pause (subscribe, Resume) is seen within seconds.
      const probeIn = pause.since + this.probeEveryMs - Date.now();
      if (probeIn > 0) return Math.min(probeIn, PAUSE_RECHECK_MS);
    }
    const oldest = items[0] ? lane.enqueuedAt(items[0]) : Date.now();
    try {
      const waitMs = await this.postTraced(at, lane, items);
      if (waitMs !== undefined) return waitMs;
      this.context.metrics?.deliveryLag.observe({ lane: items[0]?.lane ?? 'routine' }, (Date.now() - oldest) / 1000);
    } catch (err) {
      const failure = err instanceof LaneFailure ? err : new LaneFailure(items.slice(0, 1), err);
      return this.failed(at, lane, failure);
    }
    this.failures.delete(member(at));
    if (pause) await this.context.pauses.lifted(at.teamId, at.channelId);
    return undefined;
  }

  /** The lane's post, in a span of the trace its first item's event arrived in. */
  private postTraced(at: ChannelRef, lane: LaneHandler, items: WaitingItem[]): Promise<number | undefined> {
    const first = items[0];
    const attributes = {
      [ATTR.team]: at.teamId,
      [ATTR.channel]: at.channelId,
      ...(first ? { [ATTR.lane]: first.lane, [ATTR.entry]: first.id } : {}),
    };
    const parent = traceContext(first && lane.traceparentOf(first));
    return inSpan('channel post', { attributes, parent }, () => lane.postNext(at, items));
  }

  /** The workspace uninstalled the app: its channel's waiting work goes, unposted and not kept. */
  private async forget(at: ChannelRef): Promise<void> {
    const { outbox } = this.context.store;
    let dropped = 0;
    for (let head = await outbox.head(at, 1_000); head.length > 0; head = await outbox.head(at, 1_000)) {
      for (const [name, lane] of this.lanes)
        await lane.forget(
          at,
          head.filter((i) => i.lane === name),
        );
      await outbox.remove(
        at,
        head.map((i) => i.id),
      );
      dropped += head.length;
    }
    await outbox.forgetIfEmpty(at);
    this.failures.delete(member(at));
    this.context.logger.info(
      { team: at.teamId, channel: at.channelId, dropped },
      'waiting posts dropped: their workspace uninstalled the app',
    );
  }

  private async later(at: ChannelRef, ms: number): Promise<void> {
    await this.context.store.outbox.dueAt(at, this.now() + ms);
    if (this.stopped) return;
    this.notBefore.set(member(at), this.now() + ms);
    const timer = setTimeout(() => {
      this.wakeups.delete(timer);
      this.kick(at);
    }, ms);
    this.wakeups.add(timer);
  }

  /**
   * What a failed post means (Slack's documented errors, src/delivery/slack-errors.ts): ms to wait — time heals it, the
   * channel or the workspace refuses until someone acts (the work is kept) — or undefined once the items
   * concerned are given up (the message is wrong, repeated failures, or older than a day).
   */
  private async failed(at: ChannelRef, lane: LaneHandler, failure: LaneFailure): Promise<number | undefined> {
    const { concerned, cause: err } = failure;
    const oldest = Math.min(...concerned.map((i) => lane.enqueuedAt(i)));
    const young = Date.now() - oldest <= RETENTION_MS;
    const verdict = this.context.pace.judge(err);
    if (verdict.code === 'message_limit_exceeded') await this.context.pauses.overMessageLimit(at.teamId, at.channelId);
    if ((verdict.class === 'wait' || verdict.class === 'unknown') && young) return verdict.delayMs;
    const code = verdict.code ?? slackErrorCode(err);
    const log = { err, channel: at.channelId, team: at.teamId, slackError: code };
    if (verdict.class === 'channel' && code && young) {
      // No retry storm: nothing goes there until the probe, and its subscriber is told once.
      if (await this.context.pauses.get(at.teamId, at.channelId))
        await this.context.pauses.probed(at.teamId, at.channelId, code);
      else await this.context.pauses.pause(at.teamId, at.channelId, code);
      this.context.logger.warn(
        { ...log, waiting: await this.context.store.outbox.size(at) },
        `posts wait: ${pauseAdvice(at.channelId, code)}`,
      );
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
