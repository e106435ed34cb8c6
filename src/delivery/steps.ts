/**
 * Idempotent steps of one queue entry. A handler that posts to several channels, or a card and then its
 * transcript, may fail half-way and run again; every step that succeeded is remembered per
 * (entry, channel, step) with its result (the card's ts, which the transcript's thread needs), so a retry
 * — by this worker or one that took the entry over — never posts anything twice.
 *
 * A step that posts goes through `post`: the message carries the step's idempotency key in its metadata and
 * a post whose outcome is unknown (its answer lost, a crash between Slack's answer and the mark) is looked up in
 * Slack before it is sent again (src/delivery/idempotent-posts.ts), so not even a crash shows it twice.
 *
 * A mark the store does not take because it is not answering is tried again for a while (the post is out:
 * without its mark a retry would post it again, after a look-up).
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WebClient } from '@slack/web-api';
import type { MessagePayload } from '../slack/blocks.js';
import { IdempotentPosts, type JudgeFailure, type PostTarget } from './idempotent-posts.js';
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
  private readonly posts: IdempotentPosts;

  constructor(
    private readonly store: Store,
    judge: JudgeFailure,
    private readonly ttlMs = STEP_TTL_MS,
  ) {
    this.posts = new IdempotentPosts(store, judge);
  }

  /** Whether this step already succeeded. */
  async done(ref: StepRef): Promise<boolean> {
    return (await this.read(ref)) !== null;
  }

  /** Whether the step succeeded or was tried with an unknown outcome (a post that may be in Slack already). */
  async tried(ref: StepRef): Promise<boolean> {
    return (await this.store.kv.get(this.key(ref))) !== null;
  }

  /** The step's result when it succeeded, else null (a post whose outcome is unknown has none yet). */
  read(ref: StepRef): Promise<string | null> {
    return this.posts.posted(this.key(ref));
  }

  /** Posts the step's message once, even across lost answers and crashes; resolves with its ts. */
  async post(
    ref: StepRef,
    slack: WebClient,
    to: PostTarget,
    payload: MessagePayload,
  ): Promise<{ result: string; ran: boolean }> {
    const done = await this.read(ref);
    if (done !== null) return { result: done, ran: false };
    const key = createHash('sha256').update(JSON.stringify(ref)).digest('base64url').slice(0, 22);
    const result = await this.posts.post(slack, to, payload, {
      teamId: ref.teamId,
      mark: this.key(ref),
      key,
      ttlMs: this.ttlMs,
    });
    return { result, ran: true };
  }

  /** Records (or replaces) the step's result without running anything. */
  async record(ref: StepRef, result: string): Promise<void> {
    await this.store.kv.set(this.key(ref), result, { ttlMs: this.ttlMs });
  }

  private key(ref: StepRef): string {
    return this.store.keys.dedup(ref.teamId, 'event-step', JSON.stringify([ref.entryId, ref.channel, ref.step]));
  }

  /** Runs `work` unless this step already succeeded; either way returns the step's result. */
  async once(ref: StepRef, work: () => Promise<string>): Promise<{ result: string; ran: boolean }> {
    const done = await this.read(ref);
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
