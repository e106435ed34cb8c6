/**
 * Faults a test injects: 429s (per method, or per channel for chat.postMessage), `{ok:false}` errors, and answers
 * lost after the call was carried out.
 */

interface RateRule {
  method?: string;
  remaining: number;
  retryAfterSec: number;
  everyOther: boolean;
  seen: number;
}

interface FailRule {
  method: string;
  error: string;
  remaining: number;
}

export class InjectedFaults {
  private rateRules: RateRule[] = [];
  private failRules: FailRule[] = [];
  private lostAnswers: Array<{ method: string; remaining: number }> = [];
  private channelLimit: number | undefined;
  private readonly channelPosts = new Map<string, number[]>();

  rateLimit(rule: { method?: string; times?: number; retryAfterSec: number; everyOther?: boolean }): void {
    const everyOther = rule.everyOther ?? false;
    this.rateRules.push({
      method: rule.method,
      remaining: rule.times ?? (everyOther ? Number.POSITIVE_INFINITY : 1),
      retryAfterSec: rule.retryAfterSec,
      everyOther,
      seen: 0,
    });
  }

  channelRateLimit(perSecond: number): void {
    this.channelLimit = perSecond;
  }

  failMethod(method: string, error: string, times?: number): void {
    this.failRules.push({ method, error, remaining: times ?? Number.POSITIVE_INFINITY });
  }

  loseAnswer(method: string, times?: number): void {
    this.lostAnswers.push({ method, remaining: times ?? 1 });
  }

  /** Whether this call, carried out, gets no answer but a 503 (using up one of its `times`). */
  answerLost(method: string): boolean {
    const rule = this.lostAnswers.find((r) => r.method === method && r.remaining > 0);
    if (!rule) return false;
    rule.remaining -= 1;
    return true;
  }

  /** The rate rule that answers this call with a 429, using up one of its `times`. */
  rateLimited(method: string): RateRule | undefined {
    for (const rule of this.rateRules) {
      if (rule.remaining <= 0) continue;
      if (rule.method !== undefined && rule.method !== method) continue;
      rule.seen += 1;
      if (rule.everyOther && rule.seen % 2 === 0) continue;
      rule.remaining -= 1;
      return rule;
    }
    return undefined;
  }

  /** The error this call answers with, using up one of its `times`. */
  failure(method: string): string | undefined {
    const rule = this.failRules.find((r) => r.method === method && r.remaining > 0);
    if (!rule) return undefined;
    rule.remaining -= 1;
    return rule.error;
  }

  /** Seconds to wait when `channel` already had its posts this second; undefined when a post may go through. */
  channelRetryAfter(channel: string): number | undefined {
    const limit = this.channelLimit;
    if (limit === undefined) return undefined;
    const now = Date.now();
    const recent = (this.channelPosts.get(channel) ?? []).filter((t) => now - t < 1000);
    this.channelPosts.set(channel, recent);
    if (recent.length < limit) return undefined;
    const oldest = recent[0] ?? now;
    return Math.max(1, Math.ceil((oldest + 1000 - now) / 1000));
  }

  /** A chat.postMessage went through: it counts against the channel's limit. */
  posted(channel: string): void {
    const posts = this.channelPosts.get(channel) ?? [];
    posts.push(Date.now());
    this.channelPosts.set(channel, posts);
  }

  reset(): void {
    this.rateRules = [];
    this.failRules = [];
    this.lostAnswers = [];
    this.channelLimit = undefined;
    this.channelPosts.clear();
  }
}
