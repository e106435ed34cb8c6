import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import {
  ApiConnectionError,
  ApiError,
  ApiSchemaError,
  ApiTimeoutError,
  PlatformBusyError,
  PlatformError,
  createApiError,
  schemaIssuesFrom,
} from './errors.js';
import type { ErrorContext, HttpMethod, PlatformLane } from './errors.js';
import { redactKey } from './mask.js';
import { FileSizeMismatchError } from './multipart.js';
import type { MultipartBody } from './multipart.js';
import { KeyedTurns, TurnRefused, type Release, type TurnLimits } from './turns.js';
import { headerValue } from '../util/download.js';
import { ATTR, inSpan, SpanKind } from '../util/spans.js';

export interface TransportOptions {
  /** Base URL including the version prefix, e.g. https://api.example.com/v1/api */
  baseUrl: string;
  /** Max sockets to the platform for ordinary calls, shared by every workspace. */
  connections?: number;
  /** Max sockets for uploads (requests marked slow), a pool of their own: a slow upload never holds a call's socket. */
  uploadConnections?: number;
  /**
   * Per workspace, per lane: requests at once, how many more may wait for a turn, and for how long. Keeps one
   * workspace from taking every socket of a pool; in this process only (see turns.ts).
   */
  turns?: { [lane in PlatformLane]?: Partial<TurnLimits> };
  /** Only one workspace uses this transport (single-workspace mode): its calls may take the whole call pool. */
  oneWorkspace?: boolean;
  /** Called when a request is refused its turn (the user is told; nothing was sent). Must not throw. */
  onTurnRefused?: (info: { lane: PlatformLane; reason: 'full' | 'waited' }) => void;
  /** Time allowed until the response headers arrive. */
  headersTimeoutMs?: number;
  /** Max idle time between two chunks of the response body. */
  bodyTimeoutMs?: number;
  /** Headers timeout for requests marked slow (voice cloning uploads and processes audio before answering). */
  slowHeadersTimeoutMs?: number;
  /** Extra attempts for GETs after a network error, timeout or 502/503/504. POST/DELETE are never retried. */
  getRetries?: number;
  retryBaseDelayMs?: number;
  /** Called once per HTTP attempt (so a retried GET reports every try). Must not throw. */
  onRequest?: (info: { endpoint: string; status: number | 'error'; durationMs: number }) => void;
}

interface TransportRequest {
  method: HttpMethod;
  /** Route template relative to the base URL, e.g. '/campaign/{campaignId}/bookings'. Also the error/metric label. */
  path: string;
  /** Values for the `{name}` placeholders in `path`; URL-encoded here. */
  params?: Record<string, string>;
  query?: Record<string, string>;
  json?: unknown;
  multipart?: MultipartBody;
  /**
   * An upload the platform does heavy work on before answering (voice cloning): sent on the upload pool, in
   * the workspace's upload turns, with `slowHeadersTimeoutMs`.
   */
  slow?: boolean;
  /** Told when the request must wait for its workspace's turn, and (only then) when it starts. */
  turn?: TurnListener;
}

export interface TurnListener {
  /** `ahead`: this workspace's requests of the same lane running or waiting before this one. */
  queued(ahead: number): void;
  started(): void;
}

/** The transport with one workspace's API key bound: every request it sends carries that key. */
export interface KeyedTransport {
  /** Sends the request and validates the 2xx JSON body with `schema` (ApiSchemaError when it does not match). */
  requestJson<S extends z.ZodType>(req: TransportRequest, schema: S): Promise<z.output<S>>;
  /** Sends the request and discards the 2xx body unread (204s and the "no schema" 200s). */
  requestEmpty(req: TransportRequest): Promise<void>;
}

export interface PlatformTransport {
  /**
   * Binds an API key and the workspace whose turns its requests take. The key stays in closures, never on a
   * property, so inspecting a client cannot leak it.
   */
  withKey(apiKey: string, workspace: string): KeyedTransport;
  close(): Promise<void>;
}

type KeyedRequest = TransportRequest & { apiKey: string; workspace: string };

/**
 * A quarter of the call pool per workspace: a workspace whose calls all hang (a flood, or the platform slow
 * for its account) leaves three quarters to everyone else. 200 may wait (a digest of many campaigns asks many
 * at once); a turn is taken per attempt, so a timed-out GET queues again for its retry and a waiter is never
 * behind a whole retry chain. A command may wait 20 s for its turn (its user was told at 2 s it is coming).
 */
const CALL_TURNS: TurnLimits = { concurrency: 8, maxWaiting: 200, maxWaitMs: 20_000 };
/**
 * Voice clones: 2 at a time per workspace, 10 more waiting. At about a minute each, the last waits about
 * 5 minutes; 15 minutes at most, so its result still fits the 30 minutes a response_url takes posts for
 * (https://api.slack.com/interactivity/handling#message_responses).
 */
const UPLOAD_TURNS: TurnLimits = { concurrency: 2, maxWaiting: 10, maxWaitMs: 15 * 60_000 };

const DEFAULTS = {
  connections: 32,
  uploadConnections: 16,
  connectTimeoutMs: 5_000,
  headersTimeoutMs: 10_000,
  bodyTimeoutMs: 15_000,
  slowHeadersTimeoutMs: 60_000,
  getRetries: 2,
  retryBaseDelayMs: 200,
};
const MAX_RETRY_DELAY_MS = 5_000;
const RETRYABLE_STATUSES = new Set([502, 503, 504]);
/** Failures where the request can safely be sent again (for GETs): the connection never worked or broke. */
const RETRYABLE_CONNECTION_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'EAI_AGAIN', 'UND_ERR_SOCKET']);
const TIMEOUT_CODES: Record<string, ApiTimeoutError['phase']> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect',
  ETIMEDOUT: 'connect',
  UND_ERR_HEADERS_TIMEOUT: 'headers',
  UND_ERR_BODY_TIMEOUT: 'body',
};

/**
 * Two keep-alive undici Pools to the platform origin, shared by every workspace's CampaignClient: one for calls,
 * one for uploads (each with undici's own `connections` cap), and per-workspace turns in front of each.
 */
export function createTransport(opts: TransportOptions): PlatformTransport {
  return new UndiciTransport(opts);
}

type Body = 'json' | 'empty';

class UndiciTransport implements PlatformTransport {
  readonly #pools: Record<PlatformLane, Pool>;
  readonly #turns: Record<PlatformLane, KeyedTurns>;
  readonly #basePath: string;
  readonly #retries: number;
  readonly #retryBaseDelayMs: number;
  readonly #onRequest: TransportOptions['onRequest'];
  readonly #onTurnRefused: TransportOptions['onTurnRefused'];
  readonly #slowHeadersTimeoutMs: number;

  constructor(opts: TransportOptions) {
    const base = new URL(opts.baseUrl);
    this.#basePath = base.pathname.replace(/\/+$/, '');
    this.#retries = Math.max(0, opts.getRetries ?? DEFAULTS.getRetries);
    this.#retryBaseDelayMs = opts.retryBaseDelayMs ?? DEFAULTS.retryBaseDelayMs;
    this.#onRequest = opts.onRequest;
    this.#onTurnRefused = opts.onTurnRefused;
    this.#slowHeadersTimeoutMs = opts.slowHeadersTimeoutMs ?? DEFAULTS.slowHeadersTimeoutMs;
    // `connections` is undici's cap on sockets per Pool; requests beyond it wait inside the Pool
    // (https://github.com/nodejs/undici/blob/main/docs/docs/api/Pool.md).
    const pool = (connections: number) =>
      new Pool(base.origin, {
        connections,
        connect: { timeout: DEFAULTS.connectTimeoutMs },
        headersTimeout: opts.headersTimeoutMs ?? DEFAULTS.headersTimeoutMs,
        bodyTimeout: opts.bodyTimeoutMs ?? DEFAULTS.bodyTimeoutMs,
      });
    const connections = opts.connections ?? DEFAULTS.connections;
    this.#pools = {
      calls: pool(connections),
      uploads: pool(opts.uploadConnections ?? DEFAULTS.uploadConnections),
    };
    const callTurns = opts.oneWorkspace ? { ...CALL_TURNS, concurrency: connections } : CALL_TURNS;
    this.#turns = {
      calls: new KeyedTurns({ ...callTurns, ...opts.turns?.calls }),
      uploads: new KeyedTurns({ ...UPLOAD_TURNS, ...opts.turns?.uploads }),
    };
  }

  withKey(apiKey: string, workspace: string): KeyedTransport {
    return {
      requestJson: (req, schema) => this.#requestJson({ ...req, apiKey, workspace }, schema),
      requestEmpty: async (req) => {
        await this.#send({ ...req, apiKey, workspace }, 'empty');
      },
    };
  }

  async #requestJson<S extends z.ZodType>(req: KeyedRequest, schema: S): Promise<z.output<S>> {
    const { status, text } = await this.#send(req, 'json');
    const ctx = contextOf(req);
    let data: unknown;
    try {
      data = JSON.parse(text) as unknown;
    } catch {
      throw new ApiSchemaError(ctx, status, [{ path: '', message: 'response body is not JSON' }]);
    }
    const parsed = schema.safeParse(data);
    if (!parsed.success) throw new ApiSchemaError(ctx, status, schemaIssuesFrom(parsed.error));
    return parsed.data;
  }

  async close(): Promise<void> {
    // Waiting requests are refused at once; those under way finish.
    for (const turns of Object.values(this.#turns)) turns.close();
    await Promise.all(Object.values(this.#pools).map((p) => p.close()));
  }

  /** Runs the attempts: retries only GETs, only on connection failures, timeouts and 502/503/504. */
  async #send(req: KeyedRequest, body: Body): Promise<{ status: number; text: string }> {
    const ctx = contextOf(req);
    const path = this.#basePath + buildPath(req.path, req.params ?? {}, ctx) + buildQuery(req.query);
    const attempts = req.method === 'GET' ? 1 + this.#retries : 1;
    for (let attempt = 1; ; attempt++) {
      try {
        const release = await this.#takeTurn(req, ctx);
        try {
          return await this.#tracedAttempt(req, ctx, path, body);
        } finally {
          release();
        }
      } catch (err) {
        if (attempt >= attempts || !isRetryable(err)) throw err;
        await sleep(this.#backoff(attempt));
      }
    }
  }

  /** Waits for the workspace's turn in the request's lane; a refusal is a PlatformBusyError (never retried). */
  async #takeTurn(req: KeyedRequest, ctx: ErrorContext): Promise<Release> {
    const lane = laneOf(req);
    const turns = this.#turns[lane];
    let queued = false;
    try {
      const release = await turns.take(req.workspace, (ahead) => {
        queued = true;
        req.turn?.queued(ahead);
      });
      if (queued) {
        try {
          req.turn?.started();
        } catch {
          // Telling the user failed; the request goes ahead all the same.
        }
      }
      return release;
    } catch (err) {
      if (!(err instanceof TurnRefused)) throw err;
      if (err.reason === 'closed') throw new PlatformError(`${ctx.endpoint}: not sent, the bot is shutting down`, ctx);
      try {
        this.#onTurnRefused?.({ lane, reason: err.reason });
      } catch {
        // A broken metrics hook must not change what the user is told.
      }
      throw new PlatformBusyError(ctx, lane, err.reason, turns.limits);
    }
  }

  /** One client span per attempt: the method and route template (ids in the path can be a customer's), the status. */
  #tracedAttempt(
    req: KeyedRequest,
    ctx: ErrorContext,
    path: string,
    body: Body,
  ): Promise<{ status: number; text: string }> {
    const attributes = { [ATTR.httpMethod]: req.method, [ATTR.urlTemplate]: req.path, [ATTR.team]: req.workspace };
    return inSpan(`platform ${ctx.endpoint}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
      try {
        const answer = await this.#attempt(req, ctx, path, body);
        span.setAttribute(ATTR.httpStatus, answer.status);
        return answer;
      } catch (err) {
        if (err instanceof ApiError) span.setAttribute(ATTR.httpStatus, err.status);
        throw err;
      }
    });
  }

  async #attempt(
    req: KeyedRequest,
    ctx: ErrorContext,
    path: string,
    body: Body,
  ): Promise<{ status: number; text: string }> {
    const started = performance.now();
    let reported: number | 'error' = 'error';
    try {
      const res = await this.#pools[laneOf(req)].request({
        method: req.method,
        path,
        ...requestBody(req),
        ...(req.slow && { headersTimeout: this.#slowHeadersTimeoutMs }),
      });
      // Each branch consumes the body exactly once so the socket goes back to the pool.
      if (res.statusCode < 200 || res.statusCode > 299) {
        const text = await res.body.text();
        reported = res.statusCode;
        throw createApiError({
          ctx,
          status: res.statusCode,
          bodyText: text,
          headerRequestId: headerValue(res.headers['x-request-id']),
          apiKey: req.apiKey,
        });
      }
      let text = '';
      if (body === 'json') text = await res.body.text();
      else await res.body.dump(); // read and discarded, never parsed: '', '{}' or anything else is fine
      reported = res.statusCode;
      return { status: res.statusCode, text };
    } catch (err) {
      throw toPlatformError(err, ctx, req.apiKey);
    } finally {
      this.#report(ctx.endpoint, reported, performance.now() - started);
    }
  }

  #report(endpoint: string, status: number | 'error', durationMs: number): void {
    try {
      this.#onRequest?.({ endpoint, status, durationMs });
    } catch {
      // A broken metrics hook must not turn a successful platform call into a failure.
    }
  }

  /** Exponential backoff with "equal jitter": half fixed, half random, so retries spread out but still grow. */
  #backoff(attempt: number): number {
    const exp = Math.min(MAX_RETRY_DELAY_MS, this.#retryBaseDelayMs * 2 ** (attempt - 1));
    return exp / 2 + Math.random() * (exp / 2);
  }
}

function laneOf(req: TransportRequest): PlatformLane {
  return req.slow ? 'uploads' : 'calls';
}

function contextOf(req: TransportRequest): ErrorContext {
  return { method: req.method, endpoint: `${req.method} ${req.path}` };
}

function requestBody(req: KeyedRequest): Pick<Dispatcher.RequestOptions, 'headers' | 'body'> {
  const headers: Record<string, string> = { 'api-key': req.apiKey, accept: 'application/json' };
  if (req.multipart) {
    headers['content-type'] = req.multipart.contentType;
    if (req.multipart.length !== undefined) headers['content-length'] = String(req.multipart.length);
    return { headers, body: Readable.from(req.multipart.chunks(), { objectMode: false }) };
  }
  if (req.json !== undefined) {
    headers['content-type'] = 'application/json';
    return { headers, body: JSON.stringify(req.json) };
  }
  return { headers };
}

/**
 * Fills `{name}` placeholders with URL-encoded values. Empty, '.' and '..' values are refused: servers
 * normalise dot segments (even encoded ones), so they would address a different resource.
 */
function buildPath(template: string, params: Record<string, string>, ctx: ErrorContext): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === '' || value === '.' || value === '..') {
      throw new PlatformError(`${ctx.endpoint}: invalid ${name} ${JSON.stringify(value ?? '')}`, ctx);
    }
    return encodeURIComponent(value);
  });
}

function buildQuery(query: Record<string, string> | undefined): string {
  if (!query) return '';
  const qs = new URLSearchParams(query).toString();
  return qs ? `?${qs}` : '';
}

function isRetryable(err: unknown): boolean {
  if (err instanceof ApiTimeoutError) return true;
  if (err instanceof ApiConnectionError) return err.code !== undefined && RETRYABLE_CONNECTION_CODES.has(err.code);
  if (err instanceof ApiError) return RETRYABLE_STATUSES.has(err.status);
  return false;
}

/** System and undici errors carry `code`; Node's multi-address connect failures wrap them in an AggregateError. */
function errorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { code } = err as { code?: unknown };
  if (typeof code === 'string') return code;
  if (err instanceof AggregateError) return errorCode(err.errors[0]);
  return errorCode((err as { cause?: unknown }).cause);
}

function toPlatformError(err: unknown, ctx: ErrorContext, apiKey: string): PlatformError {
  if (err instanceof PlatformError) return err;
  if (err instanceof FileSizeMismatchError)
    return new PlatformError(`${ctx.endpoint}: ${err.message}`, ctx, { cause: err });
  const code = errorCode(err);
  const phase = code === undefined ? undefined : TIMEOUT_CODES[code];
  if (phase) return new ApiTimeoutError(ctx, phase, { cause: err });
  if (code !== undefined) return new ApiConnectionError(ctx, code, { cause: err });
  const detail = err instanceof Error ? err.message : String(err);
  return new PlatformError(`${ctx.endpoint}: request failed: ${redactKey(detail, apiKey)}`, ctx, { cause: err });
}
