/**
 * When the worker gives way to intake. Acknowledging webhooks comes first (the platform waits, and retries what
 * times out) while a queued event is safe — but only up to a point: past `limit` events queued, the worker
 * works at full pace again even while intake is busy, so a flood that lasts never builds a backlog without
 * bound.
 */
import type { EventQueue } from '../store/index.js';
import type { IntakeLoad } from './intake.js';

/** How old the queue depth may be when it decides (read only while intake is busy). */
const DEPTH_MAX_AGE_MS = 100;

export class GiveWay {
  private depth = 0;
  private readAt = Number.NEGATIVE_INFINITY;
  private reading = false;

  constructor(
    private readonly load: IntakeLoad,
    private readonly queue: Pick<EventQueue, 'depth'>,
    private readonly limit: number,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** True while intake is busy and fewer than `limit` events are queued (as of at most DEPTH_MAX_AGE_MS ago). */
  yielding(): boolean {
    if (!this.load.busy()) return false;
    this.refresh();
    return this.depth < this.limit;
  }

  private refresh(): void {
    const at = this.clock();
    if (this.reading || at - this.readAt < DEPTH_MAX_AGE_MS) return;
    this.reading = true;
    this.queue.depth().then(
      (d) => {
        this.depth = d.total;
        this.readAt = this.clock();
        this.reading = false;
      },
      () => {
        // Store unreachable: the worker is failing anyway; keep the last figure and try again later.
        this.readAt = this.clock();
        this.reading = false;
      },
    );
  }
}
