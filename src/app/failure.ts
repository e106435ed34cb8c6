/**
 * Turns any failure into what a Slack user reads: one sentence saying what happened and what to do, and — for
 * the platform's answers — a reference (HTTP status, the platform's code and request id) in a context line, so
 * support can find the request. Every sentence about a failure is written here once; a caller adds only what
 * is its own (`FailureWording`: which thing a 404 means, a field's own words).
 */
import {
  ApiConnectionError,
  ApiError,
  ApiSchemaError,
  ApiTimeoutError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  NotFoundError,
  PlatformBusyError,
  RateLimitError,
  ServerError,
  UnprocessableError,
} from '../api/index.js';
import { NotConnectedError, OperatorKeyRefusedError } from './platform-access.js';
import { isStoreUnavailable } from '../store/index.js';
import type { Logger } from '../logger.js';
import { context, escapeMrkdwn, message, section, truncate, type MessagePayload } from '../slack/blocks.js';
import type { KnownBlock } from '@slack/types';

/** Platform refusals a user or admin can act on (each is told as one sentence): expected, not a fault to chase. */
const EXPECTED_STATUSES: ReadonlySet<number> = new Set([400, 401, 403, 404, 409, 422]);

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

/** What a user reads about a failure. */
export interface Failure {
  /** What happened and what to do, in one sentence (mrkdwn: the platform's words in it are escaped). */
  sentence: string;
  /** `HTTP 400 · code BAD_REQUEST · request id req_1` for a context line: the platform's answers only. */
  reference?: string;
}

/**
 * The reference a user can quote: the HTTP status, the platform's code and its request id. Code and id are the
 * platform's text, so they are escaped like any other (and bounded: they are references, not prose).
 */
export function upstreamRef(err: ApiError): string {
  const parts = [`HTTP ${err.status}`, `code ${escapeMrkdwn(truncate(err.code || 'unknown', 100))}`];
  if (err.requestId) parts.push(`request id ${escapeMrkdwn(truncate(err.requestId, 100))}`);
  return parts.join(' · ');
}

/** What a user is told when Redis does not answer (a store read gave up: see COMMAND_TIMEOUT_MS). */
export const STORE_UNAVAILABLE = 'Our store is not answering; try again in a minute.';

/** Our own fault, not the user's. `doing`: what failed, e.g. `sending that reply`. */
export function ourFault(doing = 'handling that'): string {
  return `Something went wrong on our side while ${doing} — try again; if it keeps happening, tell your Slack admin.`;
}

/** The platform's own words about a refusal, quoted and escaped; empty when it gave none (`HTTP 400`). */
function platformWords(err: ApiError): string {
  const text = err.message.trim();
  if (text === '' || /^HTTP \d+$/.test(text)) return '';
  return `“${escapeMrkdwn(truncate(text, 300))}”`;
}

/** The sentence for a platform answer no caller worded: by class (status). */
function platformSentence(err: ApiError): string {
  const words = platformWords(err);
  if (err instanceof OperatorKeyRefusedError)
    return 'The platform refused the API key this app was set up with — tell whoever runs the app to check its `CAMPAIGN_API_KEY`.';
  if (err instanceof AuthenticationError)
    return 'The platform rejected this workspace’s API key — ask a Slack admin to run `/campaign connect` with a current key.';
  if (err instanceof RateLimitError) return 'The platform is limiting requests right now — try again in a minute.';
  if (err instanceof ServerError)
    return 'The platform had an internal error — try again in a minute; if it keeps happening, give the platform’s support the request id.';
  if (err instanceof NotFoundError) return 'The platform found nothing by that id — check it and try again.';
  if (err instanceof ConflictError)
    return 'The platform is still busy with an earlier change to this — try again in a few minutes.';
  if (err instanceof UnprocessableError)
    return words
      ? `The platform can’t do this as it is set up: ${words} — ask whoever manages your platform account.`
      : 'The platform can’t do this as it is set up — ask whoever manages your platform account.';
  if (err instanceof BadRequestError)
    return words
      ? `The platform refused this: ${words} — check what you entered and try again.`
      : 'The platform refused this — check what you entered and try again.';
  return words
    ? `The platform refused this: ${words} — try again; if it keeps happening, give the platform’s support the request id.`
    : 'The platform refused this — try again; if it keeps happening, give the platform’s support the request id.';
}

/**
 * What a user reads about `err`: the caller's words first (`byStatus`, then `notFound` for a 404), else the
 * sentence for its class; the platform's answers carry their reference.
 */
export function failureOf(err: unknown, wording: FailureWording = {}): Failure {
  if (isStoreUnavailable(err)) return { sentence: STORE_UNAVAILABLE };
  if (err instanceof NotConnectedError) {
    return {
      sentence:
        'This workspace is not connected to the campaign platform yet — ask a Slack admin to run `/campaign connect`.',
    };
  }
  if (err instanceof ApiError) {
    const sentence =
      wording.byStatus?.[err.status] ??
      (err instanceof NotFoundError ? wording.notFound : undefined) ??
      platformSentence(err);
    return { sentence, reference: upstreamRef(err) };
  }
  if (err instanceof PlatformBusyError) {
    return {
      sentence:
        'This workspace already has many requests waiting for the campaign platform, so this one was not sent — try again in a minute.',
    };
  }
  if (err instanceof ApiTimeoutError)
    return { sentence: 'The platform did not answer in time — try again in a minute.' };
  if (err instanceof ApiConnectionError) {
    return {
      sentence:
        'The campaign platform could not be reached — try again in a minute; if it keeps happening, tell your Slack admin.',
    };
  }
  if (err instanceof ApiSchemaError) {
    return {
      sentence:
        'The platform answered with data this app does not understand — tell your Slack admin (the details are in the app logs).',
    };
  }
  return { sentence: ourFault() };
}

/** The failure's sentence alone, for text that has no room for a reference (the reference is in the logs). */
export function describeFailure(err: unknown, wording: FailureWording = {}): string {
  return failureOf(err, wording).sentence;
}

/** The failure in plain text (a form field's error): the sentence, and the reference on a line of its own. */
export function failureText(failure: Failure): string {
  return failure.reference ? `${failure.sentence}\n${failure.reference}` : failure.sentence;
}

/** The failure as blocks: its sentence (after `lead`, what the caller did or not), the reference in a context line. */
export function failureBlocks(failure: Failure, lead = ''): KnownBlock[] {
  const first = lead ? `${lead} ${failure.sentence}` : failure.sentence;
  return failure.reference ? [section(first), context(failure.reference)] : [section(first)];
}

/** The failure as a message (see `failureBlocks`); its notification text is the sentence. */
export function failureMessage(failure: Failure, lead = ''): MessagePayload {
  const blocks = failureBlocks(failure, lead);
  return message(lead ? `${lead} ${failure.sentence}` : failure.sentence, blocks);
}
