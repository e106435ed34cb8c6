/**
 * Idempotent steps of one queue entry. A handler that posts to several channels, or a card and then its
 * transcript, may fail half-way and run again; every step that succeeded is remembered per
 * (entry, channel, step) with its result (the card's ts, which the transcript's thread needs), so a retry
 * — by this worker or one that took the entry over — never posts anything twice.
 *
 * A mark the store does not take because it is not answering is tried again for a while (the post is out:
 * without its mark a retry would post it again). The one window left is a crash between Slack's answer and
 * the write of the mark; at-least-once delivery cannot close it without an idempotency key on Slack's side.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { isStoreUnavailable, type Store } from '../store/index.js';

/** Longer than any entry lives: retries are bounded, and even Slack rate limits end within hours. */
const STEP_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** How long a mark is tried again while the store does not answer (a Redis restart takes seconds), and how often. */
const MARK_PATIENCE_MS = 30_000;
const MARK_RETRY_MS = 500;

export interface StepRef {
  teamId: string;
  entryId: string;
  channel: string;
  step: string;
}

export class StepLog {
  constructor(
    private readonly store: Store,
    private readonly ttlMs = STEP_TTL_MS,
  ) {}

  /** Whether this step already succeeded. */
  async done(ref: StepRef): Promise<boolean> {
    return (await this.result(ref)) !== null;
  }

  /** The step's result when it succeeded, else null. */
  read(ref: StepRef): Promise<string | null> {
    return this.store.kv.get(this.key(ref));
  }

  /** Records (or replaces) the step's result without running anything. */
  async record(ref: StepRef, result: string): Promise<void> {
    await this.store.kv.set(this.key(ref), result, { ttlMs: this.ttlMs });
  }

  private key(ref: StepRef): string {
    return this.store.keys.dedup(ref.teamId, 'event-step', JSON.stringify([ref.entryId, ref.channel, ref.step]));
  }

  /** The step's result, if it succeeded (here, or under an earlier version's key while one may still exist). */
  private async result(ref: StepRef): Promise<string | null> {
    const { kv, keys } = this.store;
    const [mark, before] = await Promise.all([
      kv.get(this.key(ref)),
      kv.get(keys.dedupBefore('event-step', JSON.stringify([ref.teamId, ref.entryId, ref.channel, ref.step]))),
    ]);
    return mark ?? before;
  }

  /** Runs `work` unless this step already succeeded; either way returns the step's result. */
  async once(ref: StepRef, work: () => Promise<string>): Promise<{ result: string; ran: boolean }> {
    const done = await this.result(ref);
    if (done !== null) return { result: done, ran: false };
    const result = await work();
    await this.remember(this.key(ref), result);
    return { result, ran: true };
  }

  private async remember(key: string, result: string): Promise<void> {
    const giveUpAt = Date.now() + MARK_PATIENCE_MS;
    for (;;) {
      try {
        await this.store.kv.set(key, result, { ttlMs: this.ttlMs });
        return;
      } catch (err) {
        if (!isStoreUnavailable(err) || Date.now() >= giveUpAt) throw err;
        await sleep(MARK_RETRY_MS);
      }
    }
  }
}
