/**
 * Customers first: the urgent lane of a channel's outbox. The worker hands every routed conversation event (a
 * customer's message, an agent's line, the session's end) to the urgent lane of each of its channels, and the
 * queue is done with it; the scheduler posts a channel's urgent lane oldest first, in the order the workspace's
 * events arrived (src/delivery/scheduler.ts), at Slack's pace. When one goes out it may carry the customer's
 * messages waiting right behind it (src/handoff/deliveries.ts), which are then done here too. Each post is a
 * step of the event's own id, so a post tried again never shows twice.
 */
import type { ChannelRef, QueueEntry, WaitingItem } from '../store/index.js';
import { withTraceNow } from '../util/spans.js';
import { LaneFailure, type ChannelScheduler, type LaneHandler } from './scheduler.js';
import type { PostContext } from './post-context.js';
import { letterOf, triggerOf } from '../events/job.js';

/** What the worker does with an event in its channel's turn (`EventWorker.runInChannel`). */
export interface LaneRunner {
  /**
   * Runs the event's handler for `channel` only, with `behind` as the same conversation's events waiting right
   * after it there; resolves with the ids of those whose work it did. Slack's refusals are thrown as they are.
   */
  runInChannel(entry: QueueEntry, channel: string, behind: readonly QueueEntry[]): Promise<readonly string[]>;
}

interface UrgentItem {
  payload: unknown;
  orderKey: string;
  enqueuedAt: number;
  attempt: number;
  /** The span it was handed on in (the worker's run), which the channel's post continues. */
  traceparent?: string;
}

export class ConversationLane implements LaneHandler {
  private runner: LaneRunner | undefined;

  constructor(
    private readonly context: PostContext,
    private readonly scheduler: Pick<ChannelScheduler, 'added'>,
  ) {}

  /** The worker runs the events in their channel's turn (it hands them here too: set once, at wiring). */
  runWith(runner: LaneRunner): void {
    this.runner = runner;
  }

  /** The entry waits in the channel's urgent lane; the queue is done with it for this channel. */
  async add(entry: QueueEntry, channel: string): Promise<void> {
    const at = { teamId: entry.teamId, channelId: channel };
    const waiting: UrgentItem = {
      payload: entry.payload,
      orderKey: entry.orderKey,
      enqueuedAt: entry.enqueuedAt,
      attempt: entry.attempt,
    };
    const json = JSON.stringify(withTraceNow(waiting));
    await this.context.store.outbox.add(at, 'urgent', { id: entry.id, json });
    this.scheduler.added(at);
  }

  async postNext(at: ChannelRef, items: WaitingItem[]): Promise<number | undefined> {
    const first = items[0];
    const entry = first && this.entryOf(at, first);
    if (!first || !entry) {
      if (first) await this.context.store.outbox.remove(at, [first.id]);
      return undefined;
    }
    const behind = items
      .slice(1)
      .map((i) => this.entryOf(at, i))
      .filter((e): e is QueueEntry => e?.orderKey === entry.orderKey);
    if (!this.runner) throw new Error('the conversation lane has no runner');
    let done: readonly string[];
    try {
      done = await this.runner.runInChannel(entry, at.channelId, behind);
    } catch (err) {
      throw new LaneFailure([first], err);
    }
    await this.context.store.outbox.remove(at, [entry.id, ...done]);
    return undefined;
  }

  /** The event's dead letter, with this channel's cause (one per event): Retry queues it again (dead-letters.ts). */
  async giveUp(at: ChannelRef, items: WaitingItem[], cause: string, attempts: number): Promise<void> {
    for (const item of items) {
      const entry = this.entryOf(at, item);
      if (entry) {
        const letter = letterOf({ ...entry, attempt: Math.max(attempts, entry.attempt) }, cause, [
          { channel: at.channelId, error: cause },
        ]);
        if (await this.context.store.queue.bury({ ...letter, error: `posting failed in ${at.channelId}: ${cause}` }))
          this.context.metrics?.eventsDeadLettered.inc({ trigger: triggerOf(entry.payload) });
      }
      await this.context.store.outbox.remove(at, [item.id]);
    }
  }

  traceparentOf(item: WaitingItem): string | undefined {
    return this.read(item)?.traceparent;
  }

  enqueuedAt(item: WaitingItem): number {
    return this.read(item)?.enqueuedAt ?? Date.now();
  }

  async forget(): Promise<void> {
    // Nothing beyond the items.
  }

  private entryOf(at: ChannelRef, item: WaitingItem): QueueEntry | undefined {
    const waiting = this.read(item);
    if (!waiting) {
      this.context.logger.error(
        { channel: at.channelId, entry: item.id },
        'a waiting conversation event does not read',
      );
      return undefined;
    }
    const { payload, orderKey, enqueuedAt, attempt } = waiting;
    return { id: item.id, teamId: at.teamId, payload, orderKey, enqueuedAt, attempt };
  }

  private read(item: WaitingItem): UrgentItem | undefined {
    try {
      const raw = JSON.parse(item.json) as Partial<UrgentItem>;
      if (typeof raw.orderKey !== 'string' || typeof raw.enqueuedAt !== 'number') return undefined;
      return {
        payload: raw.payload,
        orderKey: raw.orderKey,
        enqueuedAt: raw.enqueuedAt,
        attempt: typeof raw.attempt === 'number' ? raw.attempt : 1,
        ...(typeof raw.traceparent === 'string' ? { traceparent: raw.traceparent } : {}),
      };
    } catch {
      return undefined;
    }
  }
}
