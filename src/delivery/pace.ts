/**
 * The one place that knows Slack's rate limits. Every Web API client the bot makes sends through `fetch` from
 * here, which takes each call from a budget shared by every replica (`RateBudget`) before it goes out:
 *
 * - `chat.postMessage` (and a file shared into a channel): one per second per channel, short bursts allowed;
 * - Tier 3 methods the bot uses (`chat.update`, `chat.delete`, `reactions.add` / `reactions.remove`): 50+ a
 *   minute per method per workspace;
 * - who is who (https://docs.slack.dev/reference/methods/users.list: Tier 2, 20+ a minute;
 *   https://docs.slack.dev/reference/methods/users.info and …/conversations.members: Tier 4, 100+ a minute),
 *   per method per workspace.
 *
 * Source: https://docs.slack.dev/apis/web-api/rate-limits ("chat.postMessage generally allows posting one
 * message per second per channel", "Short bursts >1 allowed"; tiers apply "per API method per workspace per
 * app"). A 429 that still happens holds that budget — that method and channel only — for its Retry-After.
 * Slack also limits a workspace's posts as a whole ("several hundred messages per minute", beyond the one per
 * channel): a 429 on posts in a second channel of the workspace while the first one's Retry-After runs is not
 * the channel's, and holds every post of the workspace for its Retry-After. A free workspace over its plan's
 * message limit (`message_limit_exceeded`) holds every post of the workspace for minutes.
 *
 * Every other method has a budget too, which only a 429 fills: a 429 on `reactions.add` delays
 * `reactions.add` (for every replica), never `views.open`. No client retries or pauses on its own (every
 * WebClient is made with `retries: 0` and `rejectRateLimitedCalls`): what a refusal means is decided by `judge`,
 * from Slack's documented errors (src/delivery/slack-errors.ts).
 *
 * Two ways to wait for a budget: background work (the event worker) is *refused* at once with the time to
 * wait (`SlackPaceWait`), so the entry waits in the queue without holding a worker; a person's request waits
 * here, briefly, and then goes out. Slack being down (5xx, timeouts, refused connections, `ok:false`
 * `service_unavailable`…) is tracked per process: background calls are refused until the next probe, so a
 * queue of events does not hammer a Slack that is down, and resumes within seconds of its return.
 */
import { createHash } from 'node:crypto';
import { ErrorCode, type FetchFunction } from '@slack/web-api';
import type { PaceRule, RateBudget } from '../store/index.js';
import { classOfSlackError, WaitForSlack, type SlackErrorClass } from './slack-errors.js';
import { ATTR, inSpan, SpanKind } from '../util/spans.js';
import { currentTeam } from '../slack/team-scope.js';

export interface SlackLimits {
  /** Posts into one channel. */
  channelPosts: PaceRule;
  /** A workspace's posts, every channel: never limiting by itself, held by 429s of two channels. */
  workspacePosts: PaceRule;
  /** Each Tier 3 method, per workspace. */
  tier3: PaceRule;
  /** Each Tier 2 method (users.list), per workspace; Slack's own numbers when left out. */
  tier2?: PaceRule;
  /** Each Tier 4 method (users.info, conversations.members), per workspace; Slack's own numbers when left out. */
  tier4?: PaceRule;
  /** Every other method, per workspace: never limiting by itself, held by a 429 (Retry-After). */
  other: PaceRule;
  /** conversations.history and .replies together, per workspace (`SLACK_HISTORY_PER_MINUTE`). */
  history: PaceRule;
  /** How long a workspace's posts wait once Slack says it is over its plan's message limit. */
  messageLimitHoldMs?: number;
}

/**
 * Slack's limits, with `historyPerMinute` reads of history a workspace a minute: since 2025 Slack allows apps
 * distributed outside the Marketplace 1 (https://docs.slack.dev/reference/methods/conversations.history; internal
 * and Marketplace apps keep Tier 3's "50+").
 */
export function slackLimits(historyPerMinute: number): Required<SlackLimits> {
  return {
    // A bit under Slack's one a second, bursts of 3 (Slack: "short bursts >1 allowed").
    channelPosts: { intervalMs: 1_050, burst: 3 },
    workspacePosts: { intervalMs: 10, burst: 100 },
    // Tier 3 ("50+ per minute"): at most 5 + 43 in any minute, under 50 whatever the burst.
    tier3: { intervalMs: 1_400, burst: 5 },
    // Tier 2 ("20+ per minute"): at most 4 + 17 in any minute.
    tier2: { intervalMs: 3_500, burst: 4 },
    // Tier 4 ("100+ per minute"): at most 15 + 86 in any minute.
    tier4: { intervalMs: 700, burst: 15 },
    other: { intervalMs: 10, burst: 100 },
    // No burst: Slack's 1 a minute is a minute between two reads.
    history: { intervalMs: Math.ceil(60_000 / historyPerMinute), burst: 1 },
    // Slack names no wait for `message_limit_exceeded`: minutes, not the second a Retry-After would say.
    messageLimitHoldMs: 10 * 60_000,
  };
}

const TIER_2_METHODS = new Set(['users.list']);
const TIER_4_METHODS = new Set(['users.info', 'conversations.members']);
const TIER_3_METHODS = new Set(['chat.update', 'chat.delete', 'reactions.add', 'reactions.remove']);
/** Looking up posts whose answer was lost (src/delivery/idempotent-posts.ts): one budget for both methods. */
const HISTORY_METHODS = new Set(['conversations.history', 'conversations.replies']);
/** Methods that put a message in a channel (files.completeUploadExternal does when given `channel_id`). */
const CHANNEL_POST_METHODS = new Set(['chat.postMessage', 'files.completeUploadExternal']);

/** The longest one wait of `readWhenPaced`. */
const MAX_READ_WAIT_MS = 10_000;
/** How long a person's request waits for its budget at most before going out anyway. */
const MAX_INTERACTIVE_WAIT_MS = 5_000;
/** Slack down: the first probe after this long, doubling up to the cap. */
const FIRST_PROBE_MS = 1_000;
const MAX_PROBE_MS = 5_000;
/** Failures in a row before Slack counts as down: one dropped connection or lost answer is not an outage. */
const DOWN_AFTER_FAILURES = 3;

/**
 * `urgent`: customer conversations, a person's request — may use the whole burst. `routine`: call notifications
 * — leave one call of a channel's burst to urgent traffic, so a waiting customer never queues behind them.
 */
export type Urgency = 'urgent' | 'routine';

/** How a SlackPaceWait's message starts (WebClient logs the failed fetch; `isPaceWait` quiets that line). */
const PACE_WAIT = 'paced, not sent:';

/** A background call not sent: its budget (or Slack's health) says wait `delayMs`. Nothing reached Slack. */
class SlackPaceWait extends Error {
  override readonly name = 'SlackPaceWait';
  constructor(
    readonly delayMs: number,
    readonly reason: 'rate-limit' | 'slack-down',
    readonly method: string,
  ) {
    super(
      `${PACE_WAIT} ${method} (${reason === 'rate-limit' ? 'its Slack budget' : 'Slack is down'}), retry in ${delayMs} ms`,
    );
  }
}

/** A log line about a call this module held back on purpose (not a failure). */
export function isPaceWait(line: string): boolean {
  return line.includes(PACE_WAIT);
}

interface Budget {
  key: string;
  rule: PaceRule;
  /** A post into a channel: the workspace-wide posting budget it also takes from. */
  workspace?: { key: string; rule: PaceRule; team: string; channel: string };
}

/**
 * One budget of one call: its key (workspace, method family, channel) and rule. Slack's limits are per
 * workspace, never per token: one org-wide token acts for every workspace of an Enterprise Grid org, and each
 * workflow run has a token of its own. Only a call made for no known workspace (the readiness check's auth.test)
 * is budgeted by its token.
 */
function budgetFor(
  limits: Required<SlackLimits>,
  method: string,
  workspace: string | undefined,
  token: string,
  channel: string | undefined,
): Budget {
  const team = workspace ?? `token.${createHash('sha256').update(token).digest('base64url').slice(0, 16)}`;
  if (CHANNEL_POST_METHODS.has(method) && channel)
    return {
      key: `${team}:post:${channel}`,
      rule: limits.channelPosts,
      workspace: { key: `${team}:posts`, rule: limits.workspacePosts, team, channel },
    };
  if (TIER_3_METHODS.has(method)) return { key: `${team}:${method}`, rule: limits.tier3 };
  if (TIER_2_METHODS.has(method)) return { key: `${team}:${method}`, rule: limits.tier2 };
  if (TIER_4_METHODS.has(method)) return { key: `${team}:${method}`, rule: limits.tier4 };
  if (HISTORY_METHODS.has(method)) return { key: `${team}:history`, rule: limits.history };
  return { key: `${team}:${method}`, rule: limits.other };
}

/**
 * Which channel of a workspace last had a post answered 429, and until when its Retry-After runs (per process:
 * what one replica sees of its own posts is enough to tell a workspace's limit from a channel's).
 */
class PostRefusals {
  private readonly last = new Map<string, { channel: string; until: number }>();

  constructor(private readonly now: () => number) {}

  /** Records a 429 in `channel`; true when another channel of the workspace had one whose wait still runs. */
  refused(team: string, channel: string, ms: number): boolean {
    const now = this.now();
    const before = this.last.get(team);
    this.last.set(team, { channel, until: Math.max(now + ms, before?.until ?? 0) });
    if (this.last.size > 10_000) for (const [t, r] of this.last) if (r.until <= now) this.last.delete(t);
    return before !== undefined && before.until > now && before.channel !== channel;
  }
}

/** What a failed Slack call means for background work (see `SlackErrorClass`), and when to try again. */
export interface SlackVerdict {
  class: SlackErrorClass;
  /** Slack's error code, when it answered one. */
  code?: string;
  /** `wait` and `unknown`: ms until trying again. */
  delayMs?: number;
}

/** Network failures that happen before a request reaches Slack: nothing was carried out. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'EHOSTUNREACH']);

function networkCode(original: unknown): string | undefined {
  let cause: unknown = original;
  for (let depth = 0; depth < 4 && typeof cause === 'object' && cause !== null; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && code !== String(ErrorCode.RequestError)) return code;
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Slack's reachability as this process sees it (every client of the process feeds it). */
class SlackHealth {
  private down = false;
  private failuresInARow = 0;
  private probeEveryMs = FIRST_PROBE_MS;
  private nextProbeAt = 0;

  constructor(private readonly now: () => number) {}

  /** 0: send (as a probe while Slack is down); otherwise ms until the next probe. */
  waitMs(): number {
    if (!this.down) return 0;
    const now = this.now();
    if (now < this.nextProbeAt) return this.nextProbeAt - now;
    this.nextProbeAt = now + this.probeEveryMs; // this call is the probe; the others wait for its outcome
    return 0;
  }

  /** ms until background work should try again after a call failed for Slack's sake. */
  failed(): number {
    const now = this.now();
    if (!this.down && ++this.failuresInARow < DOWN_AFTER_FAILURES) return FIRST_PROBE_MS;
    if (!this.down) {
      this.down = true;
      this.probeEveryMs = FIRST_PROBE_MS;
    } else {
      this.probeEveryMs = Math.min(this.probeEveryMs * 2, MAX_PROBE_MS);
    }
    this.nextProbeAt = Math.max(this.nextProbeAt, now + this.probeEveryMs);
    return this.nextProbeAt - now;
  }

  answered(): void {
    this.down = false;
    this.failuresInARow = 0;
  }

  retryInMs(): number {
    return this.down ? Math.max(FIRST_PROBE_MS, this.nextProbeAt - this.now()) : FIRST_PROBE_MS;
  }
}

export interface SlackPaceHooks {
  /** Slack answered 429 (counted per method). */
  onRateLimited?(method: string): void;
  /**
   * Slack answered `token_expired` (token rotation): the workspace's token now — refreshed once across replicas
   * (src/app/slack-token.ts) — or undefined when there is none newer. The call is sent once more with it.
   */
  renewToken?(team: string | undefined, expired: string): Promise<string | undefined>;
  /** Slack took the call but warned (`response_metadata.warnings`): e.g. metadata it dropped. */
  onWarnings?(method: string, warnings: string[]): void;
}

export class SlackPace {
  private readonly health: SlackHealth;
  private readonly refusals: PostRefusals;
  private readonly limits: Required<SlackLimits>;

  constructor(
    private readonly budgets: RateBudget,
    private readonly hooks: SlackPaceHooks = {},
    limits: SlackLimits = slackLimits(1),
    private readonly now: () => number = Date.now,
  ) {
    this.limits = { ...slackLimits(1), ...limits };
    this.health = new SlackHealth(now);
    this.refusals = new PostRefusals(now);
  }

  /**
   * A `fetch` for WebClient. `background`: a call over budget (or while Slack is down) is refused with
   * `SlackPaceWait` instead of waiting; otherwise it waits for its budget (at most a few seconds).
   */
  fetch(mode: { background: boolean; urgency: Urgency; team?: string }): FetchFunction {
    const reserve = mode.urgency === 'routine' ? 1 : 0;
    // One client span per Web API call: its method, HTTP status and Slack's error code (never the URL's query,
    // the body or the token).
    return (url, init) => {
      const method = methodOf(url);
      return inSpan(
        `slack ${method ?? 'request'}`,
        { kind: SpanKind.CLIENT, attributes: { [ATTR.slackMethod]: method ?? 'unknown' } },
        async (span) => {
          const { response, slackError } = await this.paced(mode, reserve, method, url, init);
          span.setAttribute(ATTR.httpStatus, response.status);
          if (slackError) span.setAttribute(ATTR.slackError, slackError);
          return response;
        },
      );
    };
  }

  private async paced(
    mode: { background: boolean; team?: string },
    reserve: number,
    method: string | undefined,
    url: Parameters<FetchFunction>[0],
    init: Parameters<FetchFunction>[1],
    renewed = false,
  ): Promise<{ response: Response; slackError?: string }> {
    const team = mode.team ?? currentTeam();
    const budget = method
      ? budgetFor(this.limits, method, team, tokenOf(init) ?? '', channelOf(init?.body))
      : undefined;
    if (method && mode.background) {
      const down = this.health.waitMs();
      if (down > 0) throw new SlackPaceWait(down, 'slack-down', method);
    }
    // The workspace's posting budget first: while a workspace-wide 429 holds it, no channel's is spent.
    for (const { key, rule } of budget?.workspace ? [budget.workspace, budget] : budget ? [budget] : []) {
      const waited = this.now();
      for (;;) {
        let wait: number;
        try {
          wait = await this.budgets.take(key, rule, reserve);
        } catch (err) {
          // The budget store is unreachable: background work waits (it is failing anyway); a person's request
          // goes out unpaced rather than hang.
          if (mode.background) throw err;
          break;
        }
        if (wait === 0) break;
        if (mode.background) throw new SlackPaceWait(wait, 'rate-limit', method!);
        if (this.now() - waited + wait > MAX_INTERACTIVE_WAIT_MS) break;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
    let response;
    try {
      response = await fetch(url, init);
    } catch (err) {
      if (method) this.health.failed();
      throw err;
    }
    if (!method || !budget) return { response };
    if (response.status >= 500) this.health.failed();
    else this.health.answered();
    if (response.status === 429) {
      this.hooks.onRateLimited?.(method);
      const seconds = Number.parseInt(response.headers.get('retry-after') ?? '', 10);
      const ms = (Number.isFinite(seconds) ? seconds : 1) * 1000;
      await this.budgets.hold(budget.key, budget.rule, ms);
      const ws = budget.workspace;
      // A second channel refused while the first one waits: the workspace's limit, not the channel's.
      if (ws && this.refusals.refused(ws.team, ws.channel, ms)) await this.budgets.hold(ws.key, ws.rule, ms);
      return { response };
    }
    if (response.status !== 200) return { response };
    // An `ok:false` that time heals is read here, once for every replica's and client's sake: Slack degraded
    // (`service_unavailable`, `internal_error`…) counts as Slack down; `ratelimited` holds the method's budget.
    const text = await response.text();
    const code = text.includes('"ok":false') ? errorCodeOf(text) : undefined;
    if (code === undefined && text.includes('"warnings"')) {
      const warnings = warningsOf(text);
      if (warnings.length > 0) this.hooks.onWarnings?.(method, warnings);
    }
    const verdict = code === undefined ? undefined : classOfSlackError(code);
    if (code === 'ratelimited' || code === 'rate_limited') {
      this.hooks.onRateLimited?.(method);
      await this.budgets.hold(budget.key, budget.rule, 1_000);
    } else if (code === 'message_limit_exceeded') {
      // The workspace is over its plan's message limit (src/delivery/slack-errors.ts): every channel's posts, and every
      // replica's, wait on its one posting budget — not a refused try per channel.
      const held = budget.workspace ?? budget;
      await this.budgets.holdLong(held.key, this.limits.messageLimitHoldMs);
    } else if (verdict === 'wait' || verdict === 'unknown') {
      this.health.failed();
    } else if (code === 'token_expired' && !renewed && this.hooks.renewToken) {
      // Nothing was carried out: the same call once more with the token that replaced the expired one.
      const expired = tokenOf(init);
      // A renewal that fails (the store not answering) leaves Slack's refusal as it is: nothing was carried out.
      const fresh =
        expired === undefined ? undefined : await this.hooks.renewToken(team, expired).catch(() => undefined);
      if (fresh !== undefined && fresh !== expired)
        return this.paced(mode, reserve, method, url, withToken(init, fresh), true);
    }
    const answered = new Response(text, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    return { response: answered, ...(code === undefined ? {} : { slackError: code }) };
  }

  /**
   * What a failed call means for background work: Slack's documented error (src/delivery/slack-errors.ts), or what the
   * transport saw — our own pacing (`wait`), a 429 (`wait`), a connection never made (`wait`: nothing reached
   * Slack), a 5xx, a timeout or a connection dropped after sending (`unknown`: Slack may have carried it out —
   * one look-up per post after Slack is back, since a post waiting for a Slack that is down is not sent again).
   */
  judge(err: unknown): SlackVerdict {
    if (err instanceof SlackPaceWait || err instanceof WaitForSlack) return { class: 'wait', delayMs: err.delayMs };
    if (typeof err !== 'object' || err === null) return { class: 'other' };
    const { code, original, retryAfter } = err as { code?: unknown; original?: unknown; retryAfter?: unknown };
    if (original instanceof SlackPaceWait) return { class: 'wait', delayMs: original.delayMs };
    if (code === ErrorCode.RateLimitedError)
      return { class: 'wait', delayMs: typeof retryAfter === 'number' && retryAfter >= 0 ? retryAfter * 1000 : 1000 };
    if (code === ErrorCode.RequestError) {
      const sent = !NOT_SENT_CODES.has(networkCode(original) ?? '');
      return { class: sent ? 'unknown' : 'wait', delayMs: this.health.retryInMs() };
    }
    if (code === ErrorCode.HTTPError) {
      const status = (err as { statusCode?: unknown }).statusCode;
      if (typeof status === 'number' && status >= 500) return { class: 'unknown', delayMs: this.health.retryInMs() };
      return { class: 'other' };
    }
    if (code === ErrorCode.PlatformError) {
      const slackCode = (err as { data?: { error?: unknown } }).data?.error;
      if (typeof slackCode !== 'string') return { class: 'other' };
      const verdict = classOfSlackError(slackCode);
      if (verdict === 'wait' || verdict === 'unknown')
        return { class: verdict, code: slackCode, delayMs: this.health.retryInMs() };
      return { class: verdict, code: slackCode };
    }
    return { class: 'other' };
  }

  /**
   * A read that our pace or Slack's 429 told to wait, sent again after that wait — a few times at most. For
   * background reads that must finish (a workspace's people, a channel's members), never for a post.
   */
  async readWhenPaced<T>(read: () => Promise<T>, attempts = 6): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await read();
      } catch (err) {
        const verdict = this.judge(err);
        if (verdict.class !== 'wait' || attempt >= attempts) throw err;
        await new Promise((resolve) => setTimeout(resolve, Math.min(verdict.delayMs ?? 1_000, MAX_READ_WAIT_MS)));
      }
    }
  }

  /** ms to wait before trying a failed call again when time heals it (`wait` or `unknown`); else undefined. */
  retryDelayMs(err: unknown): number | undefined {
    return this.judge(err).delayMs;
  }
}

function errorCodeOf(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { ok?: unknown; error?: unknown };
    return body.ok === false && typeof body.error === 'string' ? body.error : undefined;
  } catch {
    return undefined;
  }
}

/** Slack's `response_metadata.warnings` of an answer (https://docs.slack.dev/apis/web-api/#responses). */
function warningsOf(text: string): string[] {
  try {
    const warnings = (JSON.parse(text) as { response_metadata?: { warnings?: unknown } }).response_metadata?.warnings;
    return Array.isArray(warnings) ? warnings.filter((w): w is string => typeof w === 'string') : [];
  } catch {
    return [];
  }
}

function methodOf(url: string | URL): string | undefined {
  const path = typeof url === 'string' ? new URL(url).pathname : url.pathname;
  return /\/api\/([A-Za-z0-9.]+)$/.exec(path)?.[1];
}

function tokenOf(init: Parameters<FetchFunction>[1]): string | undefined {
  const auth = init?.headers?.Authorization ?? init?.headers?.authorization;
  if (auth) return auth.replace(/^Bearer\s+/i, '');
  const body = init?.body;
  if (typeof body === 'string') return new URLSearchParams(body).get('token') ?? undefined;
  const token = body?.get('token');
  return typeof token === 'string' ? token : undefined;
}

/** The same request with `token` instead of the one it carried (in its Authorization header or its form). */
function withToken(init: Parameters<FetchFunction>[1], token: string): Parameters<FetchFunction>[1] {
  if (!init) return init;
  const headers = { ...init.headers };
  for (const name of ['Authorization', 'authorization'] as const)
    if (headers[name] !== undefined) headers[name] = `Bearer ${token}`;
  let body = init.body;
  if (typeof body === 'string') {
    const form = new URLSearchParams(body);
    if (form.has('token')) {
      form.set('token', token);
      body = form.toString();
    }
  } else if (body?.has('token')) {
    body.set('token', token);
  }
  return { ...init, headers, ...(body === undefined ? {} : { body }) };
}

function channelOf(body: string | FormData | undefined): string | undefined {
  if (body === undefined) return undefined;
  const form = typeof body === 'string' ? new URLSearchParams(body) : body;
  const channel = form.get('channel') ?? form.get('channel_id');
  return typeof channel === 'string' && channel !== '' ? channel : undefined;
}
