import { z } from 'zod';
import { redactKey } from './mask.js';

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

/** Where an error happened. `endpoint` is the route template ("GET /campaign/{campaignId}/bookings"), never the concrete URL, so it is safe to log and to use as a metric label. */
export interface ErrorContext {
  method: HttpMethod;
  endpoint: string;
}

/** Root of every error the platform client throws. */
export class PlatformError extends Error {
  override name = 'PlatformError';
  readonly method: HttpMethod;
  readonly endpoint: string;

  constructor(message: string, ctx: ErrorContext, options?: { cause?: unknown }) {
    super(message, options);
    this.method = ctx.method;
    this.endpoint = ctx.endpoint;
  }
}

export interface ApiErrorInit extends ErrorContext {
  status: number;
  /** `error.code` of the envelope, or 'UNKNOWN' when the body carried none. */
  code: string;
  /** `error.message` of the envelope, or the (truncated) body text. Already free of the API key. */
  message: string;
  requestId: string | undefined;
}

/** The platform answered with a non-2xx status. `message` is the platform's own text, fit to show a user. */
export class ApiError extends PlatformError {
  override name = 'ApiError';
  readonly status: number;
  readonly code: string;
  readonly requestId: string | undefined;

  constructor(init: ApiErrorInit) {
    super(init.message, init);
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
  }
}

export class BadRequestError extends ApiError {
  override name = 'BadRequestError';
}
/** 401 or 403: the api-key is missing, unknown or not allowed. */
export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
}
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}
export class ConflictError extends ApiError {
  override name = 'ConflictError';
}
export class UnprocessableError extends ApiError {
  override name = 'UnprocessableError';
}
export class RateLimitError extends ApiError {
  override name = 'RateLimitError';
}
export class ServerError extends ApiError {
  override name = 'ServerError';
}

/** No answer in time. `phase` says which timeout fired. */
export class ApiTimeoutError extends PlatformError {
  override name = 'ApiTimeoutError';
  readonly phase: 'connect' | 'headers' | 'body';

  constructor(ctx: ErrorContext, phase: 'connect' | 'headers' | 'body', options?: { cause?: unknown }) {
    super(`${ctx.endpoint}: timed out waiting for the platform (${phase})`, ctx, options);
    this.phase = phase;
  }
}

/** The connection failed or broke (refused, reset, closed mid-response). `code` is the system/undici code when known. */
export class ApiConnectionError extends PlatformError {
  override name = 'ApiConnectionError';
  readonly code: string | undefined;

  constructor(ctx: ErrorContext, code: string | undefined, options?: { cause?: unknown }) {
    super(`${ctx.endpoint}: connection to the platform failed${code ? ` (${code})` : ''}`, ctx, options);
    this.code = code;
  }
}

/** Which of a workspace's turns a request waits for: ordinary calls, or uploads (voice cloning). */
export type PlatformLane = 'calls' | 'uploads';

/**
 * The request was never sent: its workspace already had as many requests waiting in this lane as it may
 * (`full`), or its turn did not come in time (`waited`). Other workspaces are not affected.
 */
export class PlatformBusyError extends PlatformError {
  override name = 'PlatformBusyError';
  readonly lane: PlatformLane;
  readonly reason: 'full' | 'waited';
  /** The lane's limits per workspace: running at once, waiting beyond those, and the longest wait. */
  readonly limits: { concurrency: number; maxWaiting: number; maxWaitMs: number };

  constructor(
    ctx: ErrorContext,
    lane: PlatformLane,
    reason: 'full' | 'waited',
    limits: { concurrency: number; maxWaiting: number; maxWaitMs: number },
  ) {
    super(
      reason === 'full'
        ? `${ctx.endpoint}: not sent, ${limits.maxWaiting} of this workspace's ${lane} were already waiting for their turn`
        : `${ctx.endpoint}: not sent, its turn among this workspace's ${lane} did not come within ${limits.maxWaitMs} ms`,
      ctx,
    );
    this.lane = lane;
    this.reason = reason;
    this.limits = limits;
  }
}

export interface SchemaIssue {
  /** Dotted path into the response body, e.g. `value.0.Status`; '' for the body itself. */
  path: string;
  message: string;
}

/** A 2xx body that is not JSON or does not match the documented shape. Never carries the body itself (it may hold keys). */
export class ApiSchemaError extends PlatformError {
  override name = 'ApiSchemaError';
  readonly status: number;
  readonly issues: readonly SchemaIssue[];

  constructor(ctx: ErrorContext, status: number, issues: readonly SchemaIssue[]) {
    const shown = issues
      .slice(0, 5)
      .map((i) => `${i.path || '(body)'}: ${i.message}`)
      .join('; ');
    super(`${ctx.endpoint}: unexpected response body: ${shown}`, ctx);
    this.status = status;
    this.issues = issues;
  }

  get paths(): string[] {
    return this.issues.map((i) => i.path);
  }
}

type ApiErrorClass = new (init: ApiErrorInit) => ApiError;

/** The one place that maps an HTTP status to an error class. */
export function apiErrorClassFor(status: number): ApiErrorClass {
  if (status === 400) return BadRequestError;
  if (status === 401 || status === 403) return AuthenticationError;
  if (status === 404) return NotFoundError;
  if (status === 409) return ConflictError;
  if (status === 422) return UnprocessableError;
  if (status === 429) return RateLimitError;
  if (status >= 500 && status <= 599) return ServerError;
  return ApiError;
}

const MAX_ERROR_TEXT = 200;
/** A code or request id is a reference, not prose: longer than this is cut. */
const MAX_REFERENCE_TEXT = 100;

const errorEnvelope = z.looseObject({
  error: z.looseObject({
    message: z.string().optional(),
    code: z.string().optional(),
    requestId: z.string().optional(),
  }),
});

function truncate(text: string, max = MAX_ERROR_TEXT): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Builds the error for a non-2xx answer. Reads the `error` envelope when there is one; otherwise keeps a
 * readable, truncated copy of the body with code 'UNKNOWN'. Every text the platform sent — message, code,
 * request id — is scrubbed alike: the API key and secret-shaped strings masked (they are shown in Slack and
 * logged); code and request id are also made one bounded line. Escaping for Slack is the renderer's job.
 */
export function createApiError(args: {
  ctx: ErrorContext;
  status: number;
  bodyText: string;
  headerRequestId: string | undefined;
  apiKey: string;
}): ApiError {
  const { ctx, status, bodyText, headerRequestId, apiKey } = args;
  const envelope = errorEnvelope.safeParse(tryParseJson(bodyText));
  const error = envelope.success ? envelope.data.error : undefined;
  const rawMessage = error?.message ?? (bodyText.trim() ? truncate(redactKey(bodyText, apiKey)) : `HTTP ${status}`);
  const requestId = error?.requestId ?? headerRequestId;
  // Masked before it is cut, so a cut can't leave part of a key unrecognised.
  const reference = (text: string) => truncate(redactKey(text, apiKey), MAX_REFERENCE_TEXT);
  const ErrorClass = apiErrorClassFor(status);
  return new ErrorClass({
    ...ctx,
    status,
    code: error?.code?.trim() ? reference(error.code) : 'UNKNOWN',
    message: redactKey(rawMessage, apiKey),
    requestId: requestId?.trim() ? reference(requestId) : undefined,
  });
}

/** Turns zod issues into dotted paths (`value.0.Status`) for ApiSchemaError. */
export function schemaIssuesFrom(error: z.ZodError): SchemaIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
  }));
}
