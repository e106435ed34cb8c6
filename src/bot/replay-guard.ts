/**
 * A signed Slack request is good once. Slack's signature only bounds a request to its 5-minute window
 * (https://api.slack.com/authentication/verifying-requests-from-slack); within it, the same bytes sent again
 * pass Bolt's check again — a captured `/campaign digest now` would post again. So each verified signature is
 * marked in the store (SET NX PX, shared by every replica) for as long as its timestamp is acceptable, and a
 * request whose signature is already marked is acknowledged and does nothing.
 *
 * Slack's own retries are not replays: a retried Events API delivery (`X-Slack-Retry-Num`, `X-Slack-Retry-Reason`;
 * https://api.slack.com/apis/connections/events-api#retries) is a new request, signed with the timestamp it is
 * sent at, so it carries a signature of its own and goes on to the listeners — which recognise the event by its
 * `event_id` where a second handling would show (a handoff reply is sent to the customer once).
 *
 * Marked after Bolt verified the signature (a global middleware; the signature travels in the context), so a
 * forged request never writes to the store. Socket Mode requests carry no signature and are not marked.
 */
import type { AnyMiddlewareArgs, BufferedIncomingMessage, Middleware } from '@slack/bolt';
import type { Logger } from '../logger.js';
import type { Store } from '../store/index.js';
import { withDeadline } from '../util/deadline.js';
import { SLACK_WINDOW_S } from './slack-gate.js';

const SIGNATURE_KEY = 'slackRequestSignature';
const TIMESTAMP_KEY = 'slackRequestTimestamp';
/** Replicas' clocks differ a little; a signature stays marked this much longer than its window. */
const CLOCK_MARGIN_MS = 60_000;
/** The mark is on the ack's path (Slack waits 3 s): a store that does not answer by then is not waited for. */
const MARK_DEADLINE_MS = 1_000;

/** Bolt's `customPropertiesExtractor`: the verified request's signature and timestamp, into the context. */
export function signatureProperties(req: BufferedIncomingMessage): Record<string, string> {
  const signature = req.headers['x-slack-signature'];
  const timestamp = req.headers['x-slack-request-timestamp'];
  return typeof signature === 'string' && typeof timestamp === 'string'
    ? { [SIGNATURE_KEY]: signature, [TIMESTAMP_KEY]: timestamp }
    : {};
}

export function replayGuard(store: Store, logger: Logger): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const { context, next } = args;
    const signature: unknown = context[SIGNATURE_KEY];
    const timestamp = Number(context[TIMESTAMP_KEY]);
    if (typeof signature !== 'string' || !Number.isFinite(timestamp)) return next();
    // Acceptable until its timestamp leaves the window.
    const ttlMs = Math.max(1_000, (timestamp + SLACK_WINDOW_S) * 1000 - Date.now() + CLOCK_MARGIN_MS);
    let first: boolean;
    try {
      first = await withDeadline(
        // Kept with the workspace's marks (gone with it on uninstall); a request naming none shares one place.
        store.dedup.markOnce(context.teamId ?? context.enterpriseId ?? '-', 'slack-signature', signature, ttlMs),
        MARK_DEADLINE_MS,
        'Slack signature mark',
      );
    } catch (err) {
      // Refusing every Slack request while the store is away would stop commands that do not need it; the
      // 5-minute window still bounds a replay meanwhile.
      logger.warn({ err }, 'could not mark a Slack request as seen: handled without the replay check');
      return next();
    }
    if (first) return next();
    logger.warn(
      { team: context.teamId, retryNum: context.retryNum },
      'a signed Slack request came again with the same signature: acknowledged, nothing done',
    );
    // Events were acknowledged by Bolt already; everything else is acknowledged with nothing.
    if ('ack' in args && typeof args.ack === 'function') await args.ack();
  };
}
