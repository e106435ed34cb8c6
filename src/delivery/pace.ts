/**
 * The one place that knows Slack's rate limits (https://docs.slack.dev/apis/web-api/rate-limits: "one message per
 * second per channel", "Short bursts >1 allowed"; tiers apply "per API method per workspace per app"). Every Web
 * API client sends through `fetch` here, which takes each call from a budget shared by every replica
 * (`RateBudget`); a 429 holds that budget — that method or channel — for its Retry-After. Background work is
 * refused at once with the time to wait (`SlackPaceWait`) and waits in its channel's outbox; a person's request
 * waits here, briefly. No client retries on its own: what a refusal means is decided by `judge`.
 */
import { createHash } from 'node:crypto';
import { ErrorCode, type FetchFunction } from '@slack/web-api';
import type { PaceRule, RateBudget } from '../store/index.js';
import { classOfSlackError, healsWithTime, WaitForSlack, type SlackErrorClass } from './slack-errors.js';
import { ATTR, inSpan, SpanKind } from '../util/spans.js';
import { currentTeam } from '../slack/team-scope.js';

/** The bot's budgets (`slackLimits`: Slack's own); tier 2 and 4 and the message-limit hold default to Slack's. */
export type SlackLimits = Record<'channelPosts' | 'workspacePosts' | 'tier3' | 'other' | 'history', PaceRule> &
  Partial<Record<'tier2' | 'tier4', PaceRule> & { messageLimitHoldMs: number }>;

/**
 * Slack's limits, with `historyPerMinute` history reads a workspace a minute (1 for apps outside the Marketplace
 * since 2025: https://docs.slack.dev/reference/methods/conversations.history).
 */
export function slackLimits(historyPerMinute: number): Required<SlackLimits> {
  return {
    // A bit under Slack's one a second, bursts of 3 ("short bursts >1 allowed").
    channelPosts: { intervalMs: 1_050, burst: 3 },
    // "Several hundred messages per minute": never limiting by itself.
    workspacePosts: { intervalMs: 10, burst: 100 },
    // Tier 3 ("50+ per minute"): at most 5 + 43 in any minute.
    tier3: { intervalMs: 1_400, burst: 5 },
    // Tier 2 ("20+ per minute", users.list): at most 4 + 17 in any minute.
    tier2: { intervalMs: 3_500, burst: 4 },
    // Tier 4 ("100+ per minute", users.info, conversations.members): at most 15 + 86 in any minute.
    tier4: { intervalMs: 700, burst: 15 },
    // Every other method: never limiting by itself, held by a 429 (Retry-After).
    other: { intervalMs: 10, burst: 100 },
    // conversations.history and .replies together (`SLACK_HISTORY_PER_MINUTE`). No burst: Slack's 1 a minute is a minute between two reads.
    history: { intervalMs: Math.ceil(60_000 / historyPerMinute), burst: 1 },
    // Slack names no wait for `message_limit_exceeded`: minutes, not the second a Retry-After would say.
    messageLimitHoldMs: 10 * 60_000,
  };
}

/** Each method's budget family (the two history reads share one); a method not listed has its own (`other`). */
const RULE_OF_METHOD: Readonly<Record<string, 'tier2' | 'tier3' | 'tier4' | 'history'>> = {
  'users.list': 'tier2',
  'chat.update': 'tier3',
  'chat.delete': 'tier3',
  'reactions.add': 'tier3',
  'reactions.remove': 'tier3',
  'users.info': 'tier4',
  'conversations.members': 'tier4',
  'conversations.history': 'history',
  'conversations.replies': 'history',
};
/** Methods that put a message in a channel (files.completeUploadExternal does when given `channel_id`). */
const CHANNEL_POST_METHODS = new Set(['chat.postMessage', 'files.completeUploadExternal']);

/** The longest one wait of `readWhenPaced`. */
const MAX_READ_WAIT_MS = 10_000;
/** How long a person's request waits for its budget at most before going out anyway. */
const MAX_INTERACTIVE_WAIT_MS = 5_000;
/**
 * Slack down: the first probe after this long, doubling up to the cap. One call every 2 s per process is nothing to
 * Slack, and posts resume within 2 s of its return (the slack-outage fault test: the last call shown ≤ 10 s).
 */
const FIRST_PROBE_MS = 1_000;
const MAX_PROBE_MS = 2_000;
/** Failures in a row before Slack counts as down: one dropped connection or lost answer is not an outage. */
const DOWN_AFTER_FAILURES = 3;

/** `routine` (calls) leaves one call of a channel's burst to `urgent` (customers, people), never the reverse. */
export type Urgency = 'urgent' | 'routine';

/** How a SlackPaceWait's message starts (WebClient logs the failed fetch; `isPaceWait` quiets that line). */
const PACE_WAIT = 'paced, not sent:';

/** A background call not sent: its budget (or Slack's health) says wait `delayMs`. Nothing reached Slack. */
class SlackPaceWait extends Error {
  override readonly name = 'SlackPaceWait';
  constructor(
    readonly delayMs: number,
    reason: 'its Slack budget' | 'Slack is down',
    method: string,
  ) {
    super(`${PACE_WAIT} ${method} (${reason}), retry in ${delayMs} ms`);
  }
}

/** A log line about a call this module held back on purpose (not a failure). */
export function isPaceWait(line: string): boolean {
  return line.includes(PACE_WAIT);
}

/**
 * One call's budget, and a post's `workspace`: the workspace-wide posting budget it also takes from. Slack's limits
 * are per workspace, never per token (an org-wide token acts for every workspace of its org); only a call for no
 * known workspace (the readiness check's auth.test) is budgeted by token.
 */
function budgetFor(limits: Required<SlackLimits>, method: string, workspace: string | undefined, init: Init) {
  const token = tokenOf(init) ?? '';
  const team = workspace ?? `token.${createHash('sha256').update(token).digest('base64url').slice(0, 16)}`;
  const channel = channelOf(init?.body);
  if (CHANNEL_POST_METHODS.has(method) && channel)
    return {
      key: `${team}:post:${channel}`,
      rule: limits.channelPosts,
      workspace: { key: `${team}:posts`, rule: limits.workspacePosts, team, channel },
    };
  const family = Object.hasOwn(RULE_OF_METHOD, method) ? RULE_OF_METHOD[method]! : 'other';
  return { key: `${team}:${family === 'history' ? family : method}`, rule: limits[family] };
}

/** What a failed call means for background work, Slack's error code if any, and (`wait`, `unknown`) when to retry. */
export type SlackVerdict = { class: SlackErrorClass; code?: string; delayMs?: number };

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
  down = false;
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

  /** A call failed for Slack's sake: a few in a row and Slack is down, probed less and less often. */
  failed(): void {
    if (!this.down && ++this.failuresInARow < DOWN_AFTER_FAILURES) return;
    this.probeEveryMs = this.down ? Math.min(this.probeEveryMs * 2, MAX_PROBE_MS) : FIRST_PROBE_MS;
    this.down = true;
    this.nextProbeAt = Math.max(this.nextProbeAt, this.now() + this.probeEveryMs);
  }

  /** True when Slack was down until this answer. */
  answered(): boolean {
    const wasDown = this.down;
    this.down = false;
    this.failuresInARow = 0;
    return wasDown;
  }

  retryInMs(): number {
    return this.down ? Math.max(FIRST_PROBE_MS, this.nextProbeAt - this.now()) : FIRST_PROBE_MS;
  }
}

export interface SlackPaceHooks {
  /** Slack answered 429 (counted per method). */
  onRateLimited?(method: string): void;
  /** `token_expired`: the workspace's newer token (refreshed once across replicas), if any; sent once more with it. */
  renewToken?(team: string | undefined, expired: string): Promise<string | undefined>;
  /** Slack took the call but warned (`response_metadata.warnings`): e.g. metadata it dropped. */
  onWarnings?(method: string, warnings: string[]): void;
}

type Init = Parameters<FetchFunction>[1];
/** `team`: the workspace the client acts for (else the request's own, `currentTeam`). */
type PaceMode = { background: boolean; urgency: Urgency; team?: string };

export class SlackPace {
  private readonly health: SlackHealth;
  private readonly limits: Required<SlackLimits>;
  /**
   * Per workspace, which channel last had a post answered 429 and until when (per process: a replica's own posts
   * are enough to tell a workspace's limit from a channel's).
   */
  private readonly refusals = new Map<string, { channel: string; until: number }>();
  private readonly back = new Set<() => void>();

  constructor(
    private readonly budgets: RateBudget,
    private readonly hooks: SlackPaceHooks = {},
    limits?: SlackLimits,
    private readonly now: () => number = Date.now,
  ) {
    this.limits = { ...slackLimits(1), ...limits };
    this.health = new SlackHealth(now);
  }

  /**
   * A `fetch` for WebClient. `background`: a call over budget (or while Slack is down) is refused with
   * `SlackPaceWait` instead of waiting; otherwise it waits for its budget (at most a few seconds).
   */
  fetch(mode: PaceMode): FetchFunction {
    // One client span per call: its method, HTTP status and Slack's error (never the query, body or token).
    return (url, init) => {
      const method = methodOf(url);
      return inSpan(
        `slack ${method ?? 'request'}`,
        { kind: SpanKind.CLIENT, attributes: { [ATTR.slackMethod]: method ?? 'unknown' } },
        async (span) => {
          const { response, slackError } = await this.paced(mode, method, url, init);
          span.setAttribute(ATTR.httpStatus, response.status);
          if (slackError) span.setAttribute(ATTR.slackError, slackError);
          return response;
        },
      );
    };
  }

  private async paced(
    mode: PaceMode,
    method: string | undefined,
    url: Parameters<FetchFunction>[0],
    init: Init,
    renewed = false,
  ): Promise<{ response: Response; slackError?: string }> {
    const team = mode.team ?? currentTeam();
    const budget = method ? budgetFor(this.limits, method, team, init) : undefined;
    if (method && mode.background) {
      const down = this.health.waitMs();
      if (down > 0) throw new SlackPaceWait(down, 'Slack is down', method);
    }
    // The workspace's posting budget first: while a workspace-wide 429 holds it, no channel's is spent.
    for (const { key, rule } of budget?.workspace ? [budget.workspace, budget] : budget ? [budget] : []) {
      const waited = this.now();
      for (;;) {
        let wait: number;
        try {
          wait = await this.budgets.take(key, rule, mode.urgency === 'routine' ? 1 : 0);
        } catch (err) {
          // The budget store is unreachable: background work waits; a person's request goes out unpaced.
          if (mode.background) throw err;
          break;
        }
        if (wait === 0) break;
        if (mode.background) throw new SlackPaceWait(wait, 'its Slack budget', method!);
        if (this.now() - waited + wait > MAX_INTERACTIVE_WAIT_MS) break;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
    const response = await fetch(url, init).catch((err: unknown) => {
      if (method) this.health.failed();
      throw err;
    });
    if (!method || !budget) return { response };
    if (response.status >= 500) this.health.failed();
    else if (response.status !== 200) this.answered();
    if (response.status === 429) {
      this.hooks.onRateLimited?.(method);
      const seconds = Number.parseInt(response.headers.get('retry-after') ?? '', 10);
      const ms = (Number.isFinite(seconds) ? seconds : 1) * 1000;
      await this.budgets.hold(budget.key, budget.rule, ms);
      const ws = budget.workspace;
      // A second channel refused while the first one waits: the workspace's limit, not the channel's.
      if (ws && this.refusedElsewhere(ws.team, ws.channel, ms)) await this.budgets.hold(ws.key, ws.rule, ms);
      return { response };
    }
    if (response.status !== 200) return { response };
    // An `ok:false` that time heals is read here, once for every replica and client: Slack degraded counts as
    // Slack down; `ratelimited` holds the method's budget.
    const text = await response.text();
    const { code, warnings } = answerOf(text);
    if (code === undefined && warnings.length > 0) this.hooks.onWarnings?.(method, warnings);
    const verdict = code === undefined ? undefined : classOfSlackError(code);
    const limited = code === 'ratelimited' || code === 'rate_limited';
    // Slack degraded (an error that heals) counts as Slack down; any other answer, a limit of the workspace's or the
    // method's included, as Slack up: one workspace over its message limit must not stop every workspace's posts.
    if (!limited && code !== 'message_limit_exceeded' && healsWithTime(verdict)) this.health.failed();
    else this.answered();
    if (limited) {
      this.hooks.onRateLimited?.(method);
      await this.budgets.hold(budget.key, budget.rule, 1_000);
    } else if (code === 'message_limit_exceeded') {
      // Every channel's posts, on every replica, wait on the workspace's one posting budget.
      await this.budgets.holdLong((budget.workspace ?? budget).key, this.limits.messageLimitHoldMs);
    } else if (code === 'token_expired' && !renewed && this.hooks.renewToken) {
      // Nothing was carried out: the same call once more with the token that replaced the expired one (a renewal
      // that fails leaves Slack's refusal as it is).
      const expired = tokenOf(init);
      const fresh =
        expired === undefined ? undefined : await this.hooks.renewToken(team, expired).catch(() => undefined);
      if (fresh !== undefined && fresh !== expired) return this.paced(mode, method, url, withToken(init, fresh), true);
    }
    // The body read here, given back with the answer's status and headers.
    return { response: new Response(text, response), ...(code === undefined ? {} : { slackError: code }) };
  }

  /** Whether this process sees Slack down (a few failures in a row; only probes go until it answers). */
  get slackDown(): boolean {
    return this.health.down;
  }

  /** `listener` is called when Slack answers again after it was down: what waits for it may go at once. */
  onSlackBack(listener: () => void): () => void {
    this.back.add(listener);
    return () => this.back.delete(listener);
  }

  private answered(): void {
    if (this.health.answered()) for (const listener of this.back) listener();
  }

  /** Records a 429 in `channel`; true when another channel of the workspace had one whose wait still runs. */
  private refusedElsewhere(team: string, channel: string, ms: number): boolean {
    const now = this.now();
    const before = this.refusals.get(team);
    this.refusals.set(team, { channel, until: Math.max(now + ms, before?.until ?? 0) });
    if (this.refusals.size > 10_000) for (const [t, r] of this.refusals) if (r.until <= now) this.refusals.delete(t);
    return before !== undefined && before.until > now && before.channel !== channel;
  }

  /**
   * What a failed call means for background work: Slack's documented error, or what the transport saw — our
   * pacing, a 429 or a connection never made (`wait`); a 5xx, a timeout or a connection dropped after sending
   * (`unknown`: Slack may have carried it out).
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
    const { statusCode, data } = err as { statusCode?: unknown; data?: { error?: unknown } };
    if (code === ErrorCode.HTTPError && typeof statusCode === 'number' && statusCode >= 500)
      return { class: 'unknown', delayMs: this.health.retryInMs() };
    const slackCode = code === ErrorCode.PlatformError ? data?.error : undefined;
    if (typeof slackCode !== 'string') return { class: 'other' };
    const verdict = classOfSlackError(slackCode);
    const heals = healsWithTime(verdict);
    return { class: verdict, code: slackCode, ...(heals && { delayMs: this.health.retryInMs() }) };
  }

  /** A background read (people, members; never a post) told to wait, sent again after the wait — a few times. */
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
}

/** An answer's `ok:false` error and `response_metadata.warnings` (https://docs.slack.dev/apis/web-api/#responses). */
function answerOf(text: string): { code?: string; warnings: string[] } {
  const failed = text.includes('"ok":false');
  if (!failed && !text.includes('"warnings"')) return { warnings: [] };
  try {
    const body = JSON.parse(text) as { ok?: unknown; error?: unknown; response_metadata?: { warnings?: unknown } };
    const warnings = body.response_metadata?.warnings;
    return {
      ...(failed && body.ok === false && typeof body.error === 'string' ? { code: body.error } : {}),
      warnings: Array.isArray(warnings) ? warnings.filter((w): w is string => typeof w === 'string') : [],
    };
  } catch {
    return { warnings: [] };
  }
}

function methodOf(url: string | URL): string | undefined {
  return /\/api\/([A-Za-z0-9.]+)$/.exec(new URL(url).pathname)?.[1];
}

function formOf(body: string | FormData | undefined): URLSearchParams | FormData | undefined {
  return typeof body === 'string' ? new URLSearchParams(body) : body;
}

function tokenOf(init: Init): string | undefined {
  const auth = init?.headers?.Authorization ?? init?.headers?.authorization;
  if (auth) return auth.replace(/^Bearer\s+/i, '');
  const token = formOf(init?.body)?.get('token');
  return typeof token === 'string' ? token : undefined;
}

/** The same request with `token` instead of the one it carried (in its Authorization header or its form). */
function withToken(init: Init, token: string): Init {
  if (!init) return init;
  const headers = { ...init.headers };
  for (const name of ['Authorization', 'authorization'] as const)
    if (headers[name] !== undefined) headers[name] = `Bearer ${token}`;
  const form = formOf(init.body);
  if (!form?.has('token')) return { ...init, headers };
  form.set('token', token);
  return { ...init, headers, body: form instanceof URLSearchParams ? form.toString() : form };
}

function channelOf(body: string | FormData | undefined): string | undefined {
  const form = formOf(body);
  const channel = form?.get('channel') ?? form?.get('channel_id');
  return typeof channel === 'string' && channel !== '' ? channel : undefined;
}
