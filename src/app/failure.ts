/**
 * Turns any failure into the one sentence a Slack user reads: what happened and what to do.
 * Upstream errors keep their code and request id, so support can find the request.
 */
import {
  ApiConnectionError,
  ApiError,
  ApiSchemaError,
  ApiTimeoutError,
  AuthenticationError,
  NotFoundError,
  PlatformBusyError,
  RateLimitError,
  ServerError,
} from '../api/index.js';
import { NotConnectedError } from './platform-access.js';
import { isStoreUnavailable } from '../store/index.js';
import type { Logger } from '../logger.js';
import { escapeMrkdwn, truncate } from '../slack/blocks.js';

/** Platform refusals a user can act on (each is told as one sentence): expected, not a fault to chase. */
const EXPECTED_STATUSES: ReadonlySet<number> = new Set([400, 404, 409, 422]);

/**
 * Logs a failure that was told to the user: an expected platform refusal as one info line (its code and
 * request id are what support needs, a stack trace adds nothing); a request refused its workspace's turn as
 * one warning; anything else as a warning with the error and its stack.
 */
export function logFailure(logger: Logger, err: unknown, fields: Record<string, unknown>, msg: string): void {
  if (err instanceof ApiError && EXPECTED_STATUSES.has(err.status)) {
    logger.info(
      { ...fields, status: err.status, code: err.code, requestId: err.requestId, endpoint: err.endpoint },
      `${msg}: the platform refused it`,
    );
    return;
  }
  if (err instanceof PlatformBusyError) {
    // This workspace's own load, told to the user: worth a warning for the operator, not a stack trace.
    logger.warn(
      { ...fields, lane: err.lane, reason: err.reason, endpoint: err.endpoint },
      `${msg}: not sent, the workspace's turn did not come`,
    );
    return;
  }
  logger.warn({ ...fields, err }, msg);
}

export interface FailureWording {
  /** Sentence for a 404, e.g. "Campaign `x` was not found." */
  notFound?: string;
  /** Sentences for specific statuses (400, 409, 422…), used before the generic ones. */
  byStatus?: Partial<Record<number, string>>;
}

/**
 * The reference a user can quote: the platform's code and request id when there are any. Both are the
 * platform's text, so they are escaped like any other (and bounded: they are references, not prose).
 */
export function upstreamRef(err: ApiError): string {
  const parts = [`code ${escapeMrkdwn(truncate(err.code || 'unknown', 100))}`];
  if (err.requestId) parts.push(`request id ${escapeMrkdwn(truncate(err.requestId, 100))}`);
  return `(${parts.join(', ')})`;
}

/** What a user is told when Redis does not answer (a store read gave up: see COMMAND_TIMEOUT_MS). */
export const STORE_UNAVAILABLE = 'Our store is not answering; try again in a minute.';

export function describeFailure(err: unknown, wording: FailureWording = {}): string {
  if (isStoreUnavailable(err)) return STORE_UNAVAILABLE;
  if (err instanceof NotConnectedError) {
    return 'This workspace is not connected to the campaign platform yet — ask a Slack admin to run `/campaign connect`.';
  }
  if (err instanceof ApiError) {
    const specific = wording.byStatus?.[err.status];
    if (specific) return `${specific} ${upstreamRef(err)}`;
    if (err instanceof NotFoundError && wording.notFound) return `${wording.notFound} ${upstreamRef(err)}`;
    if (err instanceof AuthenticationError) {
      return `The platform rejected this workspace's API key ${upstreamRef(err)} — ask a Slack admin to run \`/campaign connect\` with a current key.`;
    }
    if (err instanceof RateLimitError) {
      return `The platform is limiting requests right now ${upstreamRef(err)} — try again in a minute.`;
    }
    if (err instanceof ServerError) {
      return `The platform had an internal error ${upstreamRef(err)} — try again in a minute; if it keeps happening, give support the request id.`;
    }
    const detail = err.message ? `: ${escapeMrkdwn(truncate(err.message, 300))}` : '';
    return `The platform refused the request (HTTP ${err.status}${detail}) ${upstreamRef(err)}.`;
  }
  if (err instanceof PlatformBusyError) {
    return 'This workspace already has many requests waiting for the campaign platform, so this one was not sent — try again in a minute.';
  }
  if (err instanceof ApiTimeoutError) {
    return 'The platform did not answer in time — try again in a minute.';
  }
  if (err instanceof ApiConnectionError) {
    return 'The campaign platform could not be reached — try again in a minute; if it keeps happening, tell your Slack admin.';
  }
  if (err instanceof ApiSchemaError) {
    return 'The platform answered with data this app does not understand — tell your Slack admin (the details are in the app logs).';
  }
  return 'Something went wrong on our side while handling that — try again; if it keeps happening, tell your Slack admin.';
}
