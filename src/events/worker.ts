/**
 * The queue's consumer: a typed dispatcher (one handler per trigger, `on`) that routes each queued event and hands
 * it to every channel it goes to — a conversation's to the channel's urgent lane, a call to its routine lane — and
 * posts nothing. In the channel's turn the scheduler runs the handler again for that channel alone
 * (`runInChannel`), and it posts. A run that fails before it handed the event on is retried with backoff, then a
 * dead letter; an event the app cannot handle is a dead letter at once; one of an uninstalled workspace is dropped.
 */
import { hostname } from 'node:os';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logger.js';
import type { Consumer, QueueEntry, Store } from '../store/index.js';
import type { ConsumeOptions } from '../store/queue.js';
import { isTriggerName, type EventMap, type KnownEvent, type TriggerName } from './events.js';
import { jobEvent, letterOf, readJob, triggerOf, type EventJob } from './job.js';
import { channelsFor } from './router.js';
import type { PostContext } from '../delivery/post-context.js';
import { StepLog, type StepRef } from '../delivery/steps.js';
import { noteUnrouted } from './unrouted.js';
import type { ConversationLane, LaneRunner } from '../delivery/urgent-lane.js';
import { ATTR, inSpan, traceContext } from '../util/spans.js';

/** The queue's settings (tests shorten them). */
export type WorkerOptions = Pick<ConsumeOptions, 'blockMs' | 'claimIdleMs' | 'retryDelayMs'>;

/** An entry in its channel's turn: with the same conversation's events waiting right behind it there, oldest first. */
type InTurn = QueueEntry & { behind?: readonly QueueEntry[] };

type EventOf<T extends TriggerName> = { [K in T]: { known: true; trigger: K; data: EventMap[K] } }[T];

/** What a handler gets for one queue entry. */
export interface QueuedEvent<T extends TriggerName = TriggerName> {
  readonly entry: QueueEntry;
  readonly event: EventOf<T>;
  readonly log: Logger;
  readonly store: Store;
  /** Idempotent steps of this entry (see src/delivery/steps.ts). */
  readonly steps: StepLog;
  /** The id this entry's steps are remembered under: its own, or that of the dead letter an admin retried. */
  readonly stepsOf: string;
  /** The step `name` of this entry in `channel` (`*` for one that is not per channel). */
  step(channel: string, name: string): StepRef;
  /** The workspace's Slack client; throws while the workspace has no bot token. */
  slack(): Promise<WebClient>;
  /** The channels routed to this event now. */
  channels(): Promise<string[]>;
  /** The queue's run hands the event to each channel's urgent lane; in a channel's turn, `work` runs there. */
  eachChannel(channels: readonly string[], work: (channel: string) => Promise<void>): Promise<void>;
  /** `post` in every routed channel, in its turn (`handed-on` from the queue's run); `skipped` when none is. */
  toEachRoute(post: (slack: WebClient, channel: string) => Promise<void>): Promise<EventOutcome>;
  /** Events of this trigger waiting right behind this one in the channel, oldest first (see `carry`). */
  waitingBehind(): { entryId: string; event: EventOf<T> }[];
  /** This entry does these waiting entries' work: recorded for each (see `carriedBy`); they leave the lane with it. */
  carry(entryIds: readonly string[]): Promise<void>;
  /** The entry that took over this one's work (`carry`), if one did. */
  carriedBy(): Promise<string | undefined>;
}

/** `posted` is counted (once per event); `skipped`: nowhere to go (or an echo); `handed-on`: waits in outboxes. */
export type EventOutcome = 'posted' | 'skipped' | 'handed-on';
export type EventHandler<T extends TriggerName> = (queued: QueuedEvent<T>) => Promise<EventOutcome>;

/** Raised for an event this app cannot handle: a dead letter at once (kept, counted). */
class UnhandledEventError extends Error {
  override readonly name = 'UnhandledEventError';
}

/** Failed tries before an entry is a dead letter. */
const MAX_ATTEMPTS = 5;

let consumersInProcess = 0;

export class EventWorker implements LaneRunner {
  private consumer: Consumer | undefined;
  /** The urgent lane the queue's run hands a conversation's event to, in each of its channels (set at wiring). */
  private lane: Pick<ConversationLane, 'add'> | undefined;
  private readonly steps: StepLog;
  private readonly handlers = new Map<TriggerName, EventHandler<TriggerName>>();

  constructor(
    private readonly context: PostContext,
    private readonly options: WorkerOptions = {},
    /** Told each queue entry finished: its channels may post it now. */
    private readonly finished: (id: string) => void = () => undefined,
  ) {
    this.steps = new StepLog(this.context.store, (err) => this.context.pace.judge(err));
  }

  /** Registers the handler of one trigger (one each; a second registration is a wiring mistake). */
  on<T extends TriggerName>(trigger: T, handler: EventHandler<T>): void {
    if (this.handlers.has(trigger)) throw new Error(`a handler for ${trigger} is registered already`);
    this.handlers.set(trigger, handler as unknown as EventHandler<TriggerName>);
  }

  /** Where the queue's run hands a conversation's event to its channels. */
  handTo(lane: Pick<ConversationLane, 'add'>): void {
    this.lane = lane;
  }

  start(): void {
    if (this.consumer) return;
    // Stable across restarts of the same container.
    const name = `${hostname()}:${process.pid}:${++consumersInProcess}`;
    this.consumer = this.context.store.queue.consume((entry) => this.handleCounted(entry), {
      ...this.options,
      consumer: name,
      onFinished: this.finished,
    });
    this.context.logger.info({ consumer: name }, 'event worker started');
  }

  /** Stops taking work; resolves when the posts already under way are done. */
  async stop(): Promise<void> {
    const consumer = this.consumer;
    this.consumer = undefined;
    await consumer?.stop();
  }

  /**
   * `run`; its last failed try (or one trying again cannot help) makes the event's dead letter — one per event,
   * merged with one a channel's outbox kept already — and the queue is done with it.
   */
  private async handleCounted(entry: QueueEntry): Promise<void> {
    try {
      await this.run(entry);
    } catch (caught) {
      if (entry.attempt < MAX_ATTEMPTS && !(caught instanceof UnhandledEventError)) throw caught;
      const error = caught instanceof Error ? caught.message || caught.name : String(caught);
      this.context.logger.error(
        { team: entry.teamId, entry: entry.id, attempt: entry.attempt, err: caught },
        'event given up: kept as a dead letter (see /campaign failed)',
      );
      if (await this.context.store.queue.bury(letterOf(entry, error.slice(0, 2_000))))
        this.context.metrics?.eventsDeadLettered.inc({ trigger: triggerOf(entry.payload) });
    }
  }

  /** The event's turn in a channel it waited for (see `LaneRunner`): Slack's refusals are thrown as they are. */
  runInChannel(entry: QueueEntry, channel: string, behind: readonly QueueEntry[]): Promise<readonly string[]> {
    return this.run({ ...entry, behind }, channel);
  }

  /** Runs the entry's handler (for `onlyChannel` alone: a run in its channel); the ids of entries whose work it did. */
  private async run(entry: InTurn, onlyChannel?: string): Promise<string[]> {
    const job = readJob(entry.payload);
    if (!job.success) throw new UnhandledEventError('queue entry is not an event job (v1): kept as a dead letter');
    const attributes = {
      [ATTR.team]: entry.teamId,
      [ATTR.trigger]: isTriggerName(job.data.trigger) ? job.data.trigger : 'unknown',
      [ATTR.entry]: entry.id,
      ...(onlyChannel ? { [ATTR.channel]: onlyChannel } : {}),
    };
    // From the queue: a child of the webhook's intake. A run in its channel: of the channel's post that runs it.
    const parent = onlyChannel === undefined ? { parent: traceContext(job.data.traceparent) } : {};
    return inSpan('event handle', { attributes, ...parent }, () => this.runJob(entry, job.data, onlyChannel));
  }

  /** `run`'s work, in its span. */
  private async runJob(entry: InTurn, data: EventJob, onlyChannel: string | undefined): Promise<string[]> {
    const { trigger, event: raw } = data;
    const log = this.context.logger.child({
      team: entry.teamId,
      trigger,
      entry: entry.id,
      attempt: entry.attempt,
      ...(onlyChannel ? { channel: onlyChannel } : {}),
    });
    if (!(await this.context.store.workspaces.exists(entry.teamId))) {
      log.info('event dropped: its workspace uninstalled the app');
      return [];
    }
    if (!isTriggerName(trigger)) {
      log.warn(
        { fields: Object.keys(raw).slice(0, 40) },
        'event with an unknown trigger: kept as a dead letter, not posted',
      );
      throw new UnhandledEventError(`unknown trigger "${trigger}": not posted, kept for inspection`);
    }
    const parsed = jobEvent(data);
    if (!parsed.ok || !parsed.event.known) {
      throw new UnhandledEventError(
        `queued ${trigger} event no longer validates: ${parsed.ok ? 'unknown' : parsed.problem}`,
      );
    }
    const { event } = parsed;
    // The workspace's catalog learns the event's campaign and agent; a failure never holds the event up.
    await this.context.store.catalog
      .noteSighting(entry.teamId, event.data)
      .catch((err: unknown) => log.warn({ err }, 'could not record the campaign and agent of an event in the catalog'));
    const handler = this.handlers.get(trigger);
    if (!handler) throw new UnhandledEventError(`no handler for ${trigger}: not posted, kept for inspection`);
    const alsoDone: string[] = [];
    const queued = this.queuedEvent(entry, event, data, log, onlyChannel, alsoDone);
    const outcome = await handler(queued);
    if (outcome === 'posted' && onlyChannel !== undefined) {
      // Counted once per event, when its first channel posts it.
      const counted = await this.steps.once(queued.step('*', 'counted'), () => Promise.resolve('posted'));
      if (counted.ran) this.context.metrics?.eventsPosted.inc({ trigger });
    }
    if (outcome === 'handed-on') log.debug('event handed on');
    return alsoDone;
  }

  /** What a trigger's handler sees of one event: its channels, its steps, and the events waiting behind it. */
  private queuedEvent(
    entry: InTurn,
    event: KnownEvent,
    data: EventJob,
    log: Logger,
    onlyChannel: string | undefined,
    alsoDone: string[],
  ): QueuedEvent {
    const { trigger } = data;
    // Whose steps count: this entry's, or those of the dead letter an admin retried.
    const stepsOf = data.retryOf ?? entry.id;
    const carriedStep = (entryId: string) => ({ teamId: entry.teamId, entryId, channel: '*', step: 'absorbed' });
    const queued: QueuedEvent = {
      entry,
      event,
      log,
      store: this.context.store,
      steps: this.steps,
      stepsOf,
      step: (channel, step) => ({ teamId: entry.teamId, entryId: stepsOf, channel, step }),
      slack: () => this.context.slack(entry.teamId),
      channels: async () => {
        const routed = await channelsFor(this.context.store, entry.teamId, event);
        return onlyChannel === undefined ? routed : routed.filter((c) => c === onlyChannel);
      },
      eachChannel: async (channels, work) => {
        if (onlyChannel !== undefined) {
          if (channels.includes(onlyChannel)) await work(onlyChannel);
          return;
        }
        if (!this.lane) throw new Error('the worker has no lane to hand events to');
        for (const channel of channels) await this.lane.add(entry, channel);
      },
      toEachRoute: async (post) => {
        const channels = await queued.channels();
        if (channels.length > 0 && onlyChannel === undefined) {
          await queued.eachChannel(channels, () => Promise.resolve());
          return 'handed-on';
        }
        if (channels.length > 0) {
          const slack = await queued.slack();
          await queued.eachChannel(channels, (channel) => post(slack, channel));
          log.info({ channel: onlyChannel }, 'event posted');
          return 'posted';
        }
        if (onlyChannel !== undefined) {
          log.info('the channel this event waited for is not subscribed to it any more: nothing to post');
          return 'skipped';
        }
        log.info(
          { campaignId: event.data.campaignId },
          'no channel is subscribed to this event any more: nothing to post',
        );
        const { teamId, enqueuedAt } = entry;
        await noteUnrouted(this.context.store, log, { teamId, event, enqueuedAt, stepsOf });
        return 'skipped';
      },
      // Up to the first entry of another trigger (or one that does not read).
      waitingBehind: () => {
        const found: { entryId: string; event: KnownEvent }[] = [];
        for (const next of entry.behind ?? []) {
          const job = readJob(next.payload);
          if (!job.success || job.data.trigger !== trigger || job.data.retryOf !== undefined) break;
          const parsed = jobEvent(job.data);
          if (!parsed.ok || !parsed.event.known) break;
          found.push({ entryId: next.id, event: parsed.event });
        }
        return found;
      },
      carry: async (entryIds) => {
        for (const id of entryIds) {
          await this.steps.once(carriedStep(id), () => Promise.resolve(stepsOf));
          alsoDone.push(id);
        }
      },
      carriedBy: async () => (await this.steps.read(carriedStep(entry.id))) ?? undefined,
    };
    return queued;
  }
}
