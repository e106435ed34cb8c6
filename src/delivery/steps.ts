/**
 * Idempotent steps of one queue entry: each step that succeeded is remembered per (entry, channel, step) with its
 * result (a card's ts, for its transcript's thread), so a handler run again never posts twice (idempotent-posts.ts).
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WebClient } from '@slack/web-api';
import type { MessagePayload } from '../slack/blocks.js';
import { IdempotentPosts, type JudgeFailure, type PostTarget } from './idempotent-posts.js';
import { isStoreUnavailable, type Store } from '../store/index.js';

/** Longer than any entry lives: retries are bounded, and even Slack rate limits end within hours. */
export const STEP_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** How long a mark is tried again while the store does not answer (a Redis restart takes seconds), and how often. */
const MARK_PATIENCE_MS = 30_000;
const MARK_RETRY_MS = 500;

export interface StepRef {
  teamId: string;
  entryId: string;
  channel: string;
  step: string;
}

/** A step's result, and whether it ran now (false: it had succeeded before). */
interface StepResult {
  result: string;
  ran: boolean;
}

export class StepLog {
  private readonly posts: IdempotentPosts;

  constructor(
    private readonly store: Store,
    judge: JudgeFailure,
  ) {
    this.posts = new IdempotentPosts(store, judge);
  }

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
  async post(ref: StepRef, slack: WebClient, to: PostTarget, payload: MessagePayload): Promise<StepResult> {
    const done = await this.read(ref);
    if (done !== null) return { result: done, ran: false };
    const key = createHash('sha256').update(JSON.stringify(ref)).digest('base64url').slice(0, 22);
    const once = { teamId: ref.teamId, mark: this.key(ref), key, ttlMs: STEP_TTL_MS };
    return { result: await this.posts.post(slack, to, payload, once), ran: true };
  }

  /** Records (or replaces) the step's result without running anything. */
  async record(ref: StepRef, result: string): Promise<void> {
    await this.store.kv.set(this.key(ref), result, { ttlMs: STEP_TTL_MS });
  }

  /** Runs `work` unless this step already succeeded; either way returns the step's result. */
  async once(ref: StepRef, work: () => Promise<string>): Promise<StepResult> {
    const done = await this.read(ref);
    if (done !== null) return { result: done, ran: false };
    const result = await work();
    // The work is done: without its mark it would run again, so the mark waits out a store that does not answer.
    for (const giveUpAt = Date.now() + MARK_PATIENCE_MS; ; await sleep(MARK_RETRY_MS)) {
      try {
        await this.record(ref, result);
        return { result, ran: true };
      } catch (err) {
        if (!isStoreUnavailable(err) || Date.now() >= giveUpAt) throw err;
      }
    }
  }

  private key(ref: StepRef): string {
    return this.store.keys.dedup(ref.teamId, 'event-step', JSON.stringify([ref.entryId, ref.channel, ref.step]));
  }
}
