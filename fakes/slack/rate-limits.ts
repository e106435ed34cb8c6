/**
 * The rate limits the stand-in applies to every test unless the test opts out (`unlimitedBecause`), so an
 * app that does not pace itself gets refused here as it would be by Slack
 * (https://docs.slack.dev/apis/web-api/rate-limits):
 * - chat.postMessage, per workspace and channel: "generally allows posting one message per second per
 *   channel ... Short bursts >1 allowed". Modelled as a token bucket: 4 in a burst, refilled at 1 per second.
 * - Tier 3 methods (chat.update, chat.delete, reactions.add, reactions.remove), per workspace and method:
 *   "50+ per minute ... Sporadic bursts are welcome". A token bucket: 10 in a burst, refilled at 50 per 60 s.
 * - Tier 2 (users.list, https://docs.slack.dev/reference/methods/users.list): "20+ per minute". 5 in a burst,
 *   refilled at 20 per 60 s, per workspace and method.
 * - Tier 4 (users.info, conversations.members: https://docs.slack.dev/reference/methods/users.info,
 *   …/conversations.members): "100+ per minute". 20 in a burst, refilled at 100 per 60 s, per workspace and method.
 *
 * A call that arrives with its bucket empty gets HTTP 429, `Retry-After: <whole seconds until a token is
 * available, at least 1>` and `{ok:false,error:'ratelimited'}`. Any call that gets past the check takes a
 * token, even one the method then refuses (channel_not_found, invalid_blocks, …): the check happens once,
 * before the method looks at its arguments, which is simpler and no kinder than Slack.
 *
 * These 429s are not injected faults: the refusal ledger reports them like any refusal Slack would give a
 * broken app, so a test whose app floods Slack fails unless it declares the refusal (`expectRefusal`).
 */
import type { FakeSlackOptions } from './types.js';

/** Continuous refill: `capacity` tokens at most, `perMs` tokens added per millisecond. */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly capacity: number,
    private readonly perMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = capacity;
    this.last = now();
  }

  /** Takes a token and answers undefined, or answers the whole seconds (≥ 1) until one is available. */
  take(): number | undefined {
    const now = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + (now - this.last) * this.perMs);
    this.last = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - this.tokens) / this.perMs / 1000));
  }
}

interface Tier {
  capacity: number;
  perMinute: number;
}

interface RateLimitNumbers {
  postPerChannel: { capacity: number; perSecond: number };
  tier3: Tier;
  tier2: Tier;
  tier4: Tier;
}

const DEFAULT_RATE_LIMITS: RateLimitNumbers = {
  postPerChannel: { capacity: 4, perSecond: 1 },
  tier3: { capacity: 10, perMinute: 50 },
  tier2: { capacity: 5, perMinute: 20 },
  tier4: { capacity: 20, perMinute: 100 },
};

/** Methods limited by tier, per workspace and method. */
const TIERS = new Map<string, 'tier2' | 'tier3' | 'tier4'>([
  ['chat.update', 'tier3'],
  ['chat.delete', 'tier3'],
  ['reactions.add', 'tier3'],
  ['reactions.remove', 'tier3'],
  ['users.list', 'tier2'],
  ['users.info', 'tier4'],
  ['conversations.members', 'tier4'],
]);

function checkNumbers(what: string, capacity: number, rate: number): void {
  if (!(capacity >= 1) || !Number.isFinite(capacity) || !(rate > 0) || !Number.isFinite(rate)) {
    throw new Error(`startFakeSlack: rateLimits.${what} needs a capacity ≥ 1 and a positive, finite rate`);
  }
}

export class DefaultRateLimits {
  private readonly numbers: RateLimitNumbers | undefined;
  private readonly buckets = new Map<string, TokenBucket>();

  private readonly now: () => number;

  constructor(opts: Pick<FakeSlackOptions, 'unlimitedBecause' | 'rateLimits' | 'rateLimitClock'>) {
    this.now = opts.rateLimitClock ?? Date.now;
    if (opts.unlimitedBecause !== undefined && opts.unlimitedBecause.trim() === '') {
      throw new Error('startFakeSlack: unlimitedBecause must say why this stand-in has no rate limits');
    }
    if (opts.unlimitedBecause !== undefined && opts.rateLimits !== undefined) {
      throw new Error('startFakeSlack: give either unlimitedBecause or rateLimits, not both');
    }
    const post = { ...DEFAULT_RATE_LIMITS.postPerChannel, ...opts.rateLimits?.postPerChannel };
    const tier3 = { ...DEFAULT_RATE_LIMITS.tier3, ...opts.rateLimits?.tier3 };
    const tier2 = { ...DEFAULT_RATE_LIMITS.tier2, ...opts.rateLimits?.tier2 };
    const tier4 = { ...DEFAULT_RATE_LIMITS.tier4, ...opts.rateLimits?.tier4 };
    checkNumbers('postPerChannel', post.capacity, post.perSecond);
    for (const [what, t] of [
      ['tier3', tier3],
      ['tier2', tier2],
      ['tier4', tier4],
    ] as const)
      checkNumbers(what, t.capacity, t.perMinute);
    this.numbers = opts.unlimitedBecause === undefined ? { postPerChannel: post, tier3, tier2, tier4 } : undefined;
  }

  /**
   * Seconds to put in Retry-After when this call is over its limit (it is then refused with a 429);
   * undefined when it may go on (it took a token). `channel` gives the channel chat.postMessage posts to
   * (asked only for that method).
   */
  retryAfter(method: string, teamId: string, channel: () => string): number | undefined {
    const numbers = this.numbers;
    if (!numbers) return undefined;
    if (method === 'chat.postMessage') {
      const { capacity, perSecond } = numbers.postPerChannel;
      return this.bucket(`post\u0000${teamId}\u0000${channel()}`, capacity, perSecond / 1000).take();
    }
    const tier = TIERS.get(method);
    if (tier) {
      const { capacity, perMinute } = numbers[tier];
      return this.bucket(`${tier}\u0000${teamId}\u0000${method}`, capacity, perMinute / 60_000).take();
    }
    return undefined;
  }

  /**
   * Slack's 2025 limit for apps distributed outside the Marketplace: conversations.history and .replies once a
   * minute per workspace and method (https://docs.slack.dev/reference/methods/conversations.history). Seconds for
   * Retry-After when this call is over it; undefined when it may go on. Applies with `unlimitedBecause` too: it is
   * a switch a test turns on for what it is about.
   */
  historyRetryAfter(method: string, teamId: string): number | undefined {
    if (method !== 'conversations.history' && method !== 'conversations.replies') return undefined;
    return this.bucket(`history\u0000${teamId}\u0000${method}`, 1, 1 / 60_000).take();
  }

  /** The stand-in's `reset()`: every bucket full again, so one test's burst does not spill into the next. */
  reset(): void {
    this.buckets.clear();
  }

  private bucket(key: string, capacity: number, perMs: number): TokenBucket {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = new TokenBucket(capacity, perMs, this.now);
      this.buckets.set(key, bucket);
    }
    return bucket;
  }
}
