/**
 * Customers first: the urgent lane of a channel's outbox, where the worker hands every routed conversation event. A
 * post may carry the customer's messages waiting right behind it (src/handoff/deliveries.ts): those are done too.
 */
import type { ChannelRef, QueueEntry, WaitingItem } from '../store/index.js';
import { withTraceNow } from '../util/spans.js';
import type { ChannelScheduler, LaneHandler } from './scheduler.js';
import type { PostContext } from './post-context.js';
import { buryFor } from './dead-letters.js';
import { letterOf, triggerOf } from '../events/job.js';

/** What the worker does with an event in its channel's turn (`EventWorker.runInChannel`). */
export interface LaneRunner {
  /** Runs the event for `channel` only, with its conversation's events `behind` it; resolves with the ids it did. */
  // Slack's refusals are thrown as they are: the scheduler judges them.
  runInChannel(entry: QueueEntry, channel: string, behind: readonly QueueEntry[]): Promise<readonly string[]>;
}

type UrgentItem = Pick<QueueEntry, 'payload' | 'orderKey' | 'enqueuedAt' | 'attempt'>;

export class ConversationLane implements LaneHandler {
  constructor(
    private readonly context: PostContext,
    private readonly scheduler: Pick<ChannelScheduler, 'added'>,
    /** The worker: it hands the events here, and runs them in their channel's turn. */
    private readonly runner: LaneRunner,
  ) {}

  /** The entry waits in the channel's urgent lane; the queue is done with it for this channel. */
  async add(entry: QueueEntry, channel: string): Promise<void> {
    const at = { teamId: entry.teamId, channelId: channel };
    const { payload, orderKey, enqueuedAt, attempt } = entry;
    const waiting: UrgentItem = { payload, orderKey, enqueuedAt, attempt };
    await this.context.store.outbox.add(at, 'urgent', { id: entry.id, json: JSON.stringify(withTraceNow(waiting)) });
    this.scheduler.added(at, entry.id);
  }

  async postNext(at: ChannelRef, [first, ...rest]: WaitingItem[]): Promise<number | undefined> {
    const entry = this.entryOf(at, first!);
    let done: readonly string[] = [];
    if (entry) {
      const behind = rest
        .map((i) => this.entryOf(at, i))
        .filter((e): e is QueueEntry => e?.orderKey === entry.orderKey);
      done = await this.runner.runInChannel(entry, at.channelId, behind);
    }
    await this.context.store.outbox.remove(at, [first!.id, ...done]);
    return undefined;
  }

  /** The event's dead letter, with this channel's cause (one per event): Retry queues it again (dead-letters.ts). */
  async giveUp(at: ChannelRef, items: WaitingItem[], cause: string, attempts: number): Promise<void> {
    for (const item of items) {
      const entry = this.entryOf(at, item);
      if (entry) {
        const letter = letterOf({ ...entry, attempt: Math.max(attempts, entry.attempt) }, cause);
        await buryFor(this.context, at, letter, cause, triggerOf(entry.payload));
      }
      await this.context.store.outbox.remove(at, [item.id]);
    }
  }

  private entryOf(at: ChannelRef, item: WaitingItem): QueueEntry | undefined {
    try {
      const { payload, orderKey, enqueuedAt, attempt } = JSON.parse(item.json) as Partial<UrgentItem>;
      const tries = typeof attempt === 'number' ? attempt : 1;
      if (typeof orderKey === 'string' && typeof enqueuedAt === 'number')
        return { id: item.id, teamId: at.teamId, payload, orderKey, enqueuedAt, attempt: tries };
    } catch {
      // logged below
    }
    this.context.logger.error({ channel: at.channelId, entry: item.id }, 'a waiting conversation event does not read');
    return undefined;
  }
}
