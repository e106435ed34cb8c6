/**
 * Call budgets shared by every replica, each a GCRA bucket: one call per `intervalMs` on average, up to `burst`
 * back to back after a quiet spell. In Redis one key per budget, updated by a script on the Redis clock; without
 * Redis, in this process.
 */
import type { Keys } from './keys.js';
import type { RedisClient } from './redis-connection.js';
import { withScripts } from './redis-scripts.js';

export interface PaceRule {
  /** One call per this many ms on average. */
  intervalMs: number;
  /** Calls that may go back to back after a quiet spell (≥ 1). */
  burst: number;
}

export interface RateBudget {
  /**
   * Takes one call from the budget `key`: 0 when taken, otherwise how many ms until one could be (nothing is
   * taken then). `reserve`: calls of the burst this caller leaves to more urgent traffic on the same budget.
   */
  take(key: string, rule: PaceRule, reserve?: number): Promise<number>;
  /** Slack refused a call with Retry-After: nothing is taken from `key` for `ms`, by any replica. */
  hold(key: string, rule: PaceRule, ms: number): Promise<void>;
  /** Nothing is taken from `key` for `ms` on the store's clock (holds of minutes: a test's clock moves past them). */
  holdLong(key: string, ms: number): Promise<void>;
}

/** How long a long hold's record outlives its end (only for garbage collection). */
const HOLD_KEPT_MS = 60 * 60_000;

/** How far ahead of now a budget's next free call may sit before `take` says wait (GCRA's tolerance); rule checked. */
function tolerance(rule: PaceRule, reserve: number): number {
  if (!(rule.intervalMs > 0) || !Number.isSafeInteger(rule.burst) || rule.burst < 1)
    throw new RangeError('a pace rule needs intervalMs > 0 and an integer burst ≥ 1');
  return Math.max(0, rule.burst - 1 - reserve) * rule.intervalMs;
}

/** In-process budgets (embedded mode), on `now`; long holds on `storeNow`. */
export class MemoryRateBudget implements RateBudget {
  /** key → theoretical arrival time (epoch ms) of the next call; dropped once in the past. */
  private readonly due = new Map<string, number>();
  /** key → end of its long hold (`storeNow`). */
  private readonly held = new Map<string, number>();
  private takes = 0;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly storeNow: () => number = now,
  ) {}

  take(key: string, rule: PaceRule, reserve = 0): Promise<number> {
    const ahead = tolerance(rule, reserve);
    const now = this.now();
    if (++this.takes % 1024 === 0) this.sweep(now);
    const held = (this.held.get(key) ?? 0) - this.storeNow();
    if (held > 0) return Promise.resolve(Math.ceil(held));
    const due = Math.max(this.due.get(key) ?? now, now);
    const wait = due - now - ahead;
    if (wait > 0) return Promise.resolve(Math.ceil(wait));
    this.due.set(key, due + rule.intervalMs);
    return Promise.resolve(0);
  }

  hold(key: string, rule: PaceRule, ms: number): Promise<void> {
    this.due.set(key, Math.max(this.due.get(key) ?? 0, this.now() + Math.max(0, ms) + tolerance(rule, 0)));
    return Promise.resolve();
  }

  holdLong(key: string, ms: number): Promise<void> {
    this.held.set(key, Math.max(this.held.get(key) ?? 0, this.storeNow() + ms));
    return Promise.resolve();
  }

  private sweep(now: number): void {
    for (const [key, due] of this.due) if (due <= now) this.due.delete(key);
    const storeNow = this.storeNow();
    for (const [key, until] of this.held) if (until <= storeNow) this.held.delete(key);
  }
}

/** Budgets in Redis (see TAKE_BUDGET / HOLD_BUDGET in redis-scripts.ts). */
export class RedisRateBudget implements RateBudget {
  private readonly redis: RedisClient;

  constructor(
    redis: RedisClient,
    private readonly keys: Keys,
    private readonly now: () => number = Date.now,
  ) {
    this.redis = withScripts(redis);
  }

  async take(key: string, rule: PaceRule, reserve = 0): Promise<number> {
    const wait = await this.redis.campaignTakeBudget(
      this.keys.rateBudget(key),
      this.keys.rateHold(key),
      Math.ceil(rule.intervalMs),
      Math.ceil(tolerance(rule, reserve)),
      this.now(),
    );
    return Number(wait);
  }

  async hold(key: string, rule: PaceRule, ms: number): Promise<void> {
    await this.redis.campaignHoldBudget(this.keys.rateBudget(key), Math.ceil(Math.max(0, ms) + tolerance(rule, 0)));
  }

  async holdLong(key: string, ms: number): Promise<void> {
    const kept = Math.ceil(Math.max(0, ms)) + HOLD_KEPT_MS;
    await this.redis.set(this.keys.rateHold(key), String(Math.ceil(this.now() + Math.max(0, ms))), 'PX', kept);
  }
}
