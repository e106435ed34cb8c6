/**
 * Faults a test injects: 429s (per method, per channel or per workspace for chat.postMessage), `{ok:false}`
 * errors (for a number of calls or for a while), and answers lost after the call was carried out.
 */
import type { LostAnswer } from './types.js';

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
  /** On the fault clock: the rule heals at this time (a `failMethodFor` rule). */
  until?: number;
  /** Only this workspace's calls. */
  teamId?: string;
}

interface LostRule {
  method: string;
  remaining: number;
  how: LostAnswer;
}

interface LostShare {
  method?: string;
  share: number;
  how: LostAnswer;
  random: () => number;
}

/** A small seeded generator (mulberry32): the same seed loses the same calls, run after run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export class InjectedFaults {
  private rateRules: RateRule[] = [];
  private failRules: FailRule[] = [];
  private lostAnswers: LostRule[] = [];
  private lostShares: LostShare[] = [];
  private channelLimit: number | undefined;
  private readonly channelPosts = new Map<string, number[]>();
  private workspaceLimit: number | undefined;
  /** Slack down (`setDown`): every Web API call answered 503, nothing carried out. */
  down = false;
  private readonly workspacePosts = new Map<string, number[]>();

  /** `now`: the clock time-bounded faults heal by and the workspace limit's minute runs on (`rateLimitClock`). */
  constructor(private readonly now: () => number = Date.now) {}

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

  workspacePostLimit(perMinute: number): void {
    if (!(perMinute >= 1) || !Number.isFinite(perMinute)) {
      throw new Error('workspacePostLimit needs a finite number of posts a minute, at least 1');
    }
    this.workspaceLimit = perMinute;
  }

  failMethod(method: string, error: string, times?: number): void {
    this.failRules.push({ method, error, remaining: times ?? Number.POSITIVE_INFINITY });
  }

  failMethodFor(method: string, error: string, ms: number, teamId?: string): void {
    if (!(ms > 0) || !Number.isFinite(ms)) throw new Error('failMethodFor needs a positive, finite duration in ms');
    this.failRules.push({
      method,
      error,
      remaining: Number.POSITIVE_INFINITY,
      until: this.now() + ms,
      ...(teamId === undefined ? {} : { teamId }),
    });
  }

  loseAnswer(method: string, times?: number, how: LostAnswer = 'connection-dropped'): void {
    this.lostAnswers.push({ method, remaining: times ?? 1, how });
  }

  loseAnswers(rule: { method?: string; share: number; seed?: number; how?: LostAnswer }): void {
    if (!(rule.share >= 0 && rule.share <= 1)) throw new Error('loseAnswers needs a share between 0 and 1');
    this.lostShares.push({
      method: rule.method,
      share: rule.share,
      how: rule.how ?? 'connection-dropped',
      random: seeded(rule.seed ?? 1),
    });
  }

  /** How this call, carried out, loses its answer (using up one of its `times`); undefined when it is answered. */
  answerLost(method: string): LostAnswer | undefined {
    const rule = this.lostAnswers.find((r) => r.method === method && r.remaining > 0);
    if (rule) {
      rule.remaining -= 1;
      return rule.how;
    }
    for (const share of this.lostShares) {
      if (share.method !== undefined && share.method !== method) continue;
      if (share.random() < share.share) return share.how;
    }
    return undefined;
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

  /** The error this call answers with, using up one of its `times`; a `failMethodFor` rule past its time has healed. */
  failure(method: string, teamId: string | undefined): string | undefined {
    const now = this.now();
    const rule = this.failRules.find(
      (r) =>
        r.method === method &&
        r.remaining > 0 &&
        (r.until === undefined || now < r.until) &&
        (r.teamId === undefined || r.teamId === teamId),
    );
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

  /** Seconds to wait when `teamId` already had its posts this minute (any channel); undefined when one may go through. */
  workspaceRetryAfter(teamId: string): number | undefined {
    const limit = this.workspaceLimit;
    if (limit === undefined) return undefined;
    const now = this.now();
    const recent = (this.workspacePosts.get(teamId) ?? []).filter((t) => now - t < 60_000);
    this.workspacePosts.set(teamId, recent);
    if (recent.length < limit) return undefined;
    const oldest = recent[0] ?? now;
    return Math.max(1, Math.ceil((oldest + 60_000 - now) / 1000));
  }

  /** A chat.postMessage went through: it counts against its channel's and its workspace's limits. */
  posted(channel: string, teamId: string): void {
    const posts = this.channelPosts.get(channel) ?? [];
    posts.push(Date.now());
    this.channelPosts.set(channel, posts);
    if (this.workspaceLimit === undefined) return;
    const teamPosts = this.workspacePosts.get(teamId) ?? [];
    teamPosts.push(this.now());
    this.workspacePosts.set(teamId, teamPosts);
  }

  reset(): void {
    this.down = false;
    this.rateRules = [];
    this.failRules = [];
    this.lostAnswers = [];
    this.lostShares = [];
    this.channelLimit = undefined;
    this.channelPosts.clear();
    this.workspaceLimit = undefined;
    this.workspacePosts.clear();
  }
}
