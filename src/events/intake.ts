/**
 * `POST /hooks/<token>`: the platform's webhook deliveries (docs/PLATFORM-API.md › Delivery). In this code a
 * delivery is always that: one POST from the platform. What the worker later hands a handler is a `QueuedEvent`
 * (worker.ts).
 *
 *   token → workspace (404 when unknown; nothing written) → body ≤ 256 KB (413, reading stops there) →
 *   JSON (400) → array of events or one bare event, each validated (400 naming the problem), each of a trigger
 *   the app knows (422 naming it) → dedup mark + backlog check (events and bytes) + enqueue, atomically, per
 *   event → 200.
 *
 * Only an event that is safely queued is acknowledged: if the store cannot be reached the answer is 503, so
 * the platform may retry (and a retry of an event that did get queued is recognised as a duplicate). A
 * workspace with HOOK_MAX_BACKLOG events not yet posted, or HOOK_MAX_BACKLOG_MB of them, gets 429 + Retry-After:
 * a leaked or replayed hook URL cannot fill the store, and nothing it refused was taken in. The byte budget holds
 * what accepted events leave behind too — their dedup marks, their dead letters (src/store/queue.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import type { Deps } from '../app/deps.js';
import type { Logger } from '../logger.js';
import { withDeadline } from '../util/deadline.js';
import { readBody } from '../util/request-body.js';
import { ATTR, inSpan, noteInSpan, SpanKind, traceparentNow } from '../util/spans.js';
import { dedupKey, DEDUP_TTL_MS, orderKey } from './dedup-key.js';
import { parseEvent, TRIGGER_NAMES, type KnownEvent } from './events.js';
import { HOOK_PATH, tokenRef } from './hook-url.js';
import type { EventJob } from './job.js';

const HOOK_BODY_LIMIT = 256 * 1024;
/** Events in one delivery (the spec sends one; a batch beyond this is not a delivery we understand). */
const MAX_EVENTS_PER_DELIVERY = 100;
/** How long intake waits for the store before answering 503 (the platform's timeout is unknown; stay well under common ones). */
const STORE_DEADLINE_MS = 5_000;
/** How long the connection of an oversized delivery stays open after its 413 (see there). */
const OVERSIZE_LINGER_MS = 1_000;
/** What a workspace over its backlog cap is told to wait: posting to Slack drains roughly one event a second per channel. */
const BACKLOG_RETRY_AFTER_S = 60;
/** A workspace over its cap is logged as a warning at most this often (a flood must not flood the logs). */
const BACKLOG_WARN_EVERY_MS = 60_000;
/** Workspaces whose full-backlog warning time is remembered before the list starts over. */
const WARNED_TEAMS_KEPT = 10_000;

type IntakeDeps = Pick<Deps, 'config' | 'store' | 'logger' | 'redactor' | 'metrics' | 'lifecycle'>;

export function hookRoute(deps: IntakeDeps): CustomRoute {
  const ctx: DeliveryContext = {
    deps,
    overCap: new BacklogWarnings(),
    limit: HOOK_BODY_LIMIT,
  };
  return {
    path: `${HOOK_PATH}/:token`,
    // Every method is ours, so a stray GET gets a 405 here instead of Bolt logging the URL (and its token).
    method: ['POST', 'GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    handler: (req, res) => {
      const token = typeof req.params?.token === 'string' ? req.params.token : '';
      // The route's template, never the path: the token in it is the hook's secret.
      const traced = { [ATTR.httpMethod]: req.method ?? '', [ATTR.httpRoute]: `${HOOK_PATH}/{token}` };
      inSpan('webhook intake', { kind: SpanKind.SERVER, attributes: traced }, () =>
        handleDelivery(ctx, req, res, token),
      ).catch((err: unknown) => {
        deps.logger.error({ err, hook: tokenRef(token) }, 'webhook intake failed unexpectedly');
        answer(ctx, res, 500, { ok: false, error: 'internal_error' });
      });
    },
  };
}

/** What every delivery of one hook route shares. */
interface DeliveryContext {
  deps: IntakeDeps;
  overCap: BacklogWarnings;
  limit: number;
}

async function handleDelivery(
  ctx: DeliveryContext,
  req: IncomingMessage,
  res: ServerResponse,
  token: string,
): Promise<void> {
  const { deps, overCap, limit } = ctx;
  if (req.method !== 'POST') {
    answer(ctx, res, 405, { ok: false, error: 'method_not_allowed' }, { allow: 'POST' });
    return;
  }
  if (deps.lifecycle.stopping) {
    answer(ctx, res, 503, { ok: false, error: 'shutting_down' }, { 'retry-after': '5' });
    return;
  }

  // Asked of the store on every delivery: a token replaced or revoked on any replica stops working at once.
  let teamId: string | null;
  try {
    teamId = await withDeadline(deps.store.workspaces.resolveHookToken(token), STORE_DEADLINE_MS, 'hook token lookup');
  } catch (err) {
    deps.logger.warn({ err, hook: tokenRef(token) }, 'webhook refused with 503: the store is unavailable');
    answer(ctx, res, 503, { ok: false, error: 'unavailable' }, { 'retry-after': '30' });
    return;
  }
  if (teamId === null) {
    deps.logger.info({ hook: tokenRef(token) }, 'webhook for an unknown hook token: 404');
    answer(ctx, res, 404, { ok: false, error: 'not_found' });
    return;
  }
  noteInSpan({ [ATTR.team]: teamId });
  // Made only when a line is written (hot path: at LOG_LEVEL=warn a good delivery writes none).
  const team = teamId;
  let child: Logger | undefined;
  const log = () => (child ??= deps.logger.child({ team, hook: tokenRef(token) }));
  const verbose = deps.logger.isLevelEnabled('info');
  // The line per queued event is the worker's (what became of it); intake's own is for debugging.
  const traced = deps.logger.isLevelEnabled('debug');

  const body = await readBody(req, { maxBytes: limit });
  if (body === 'too_large') {
    log().warn({ limit }, 'webhook body over the size limit: 413');
    answer(ctx, res, 413, { ok: false, error: 'payload_too_large', limit });
    // The rest of an oversized body is never taken in. But closing a connection while input still arrives
    // resets it, and the reset can overtake the 413 (the sender then never learns why) — so no
    // `Connection: close`: what still comes is discarded unread (never buffered) for a moment, then the
    // connection goes unless the body has ended.
    res.once('finish', () => {
      if (req.complete) return;
      req.resume();
      setTimeout(() => {
        if (!req.complete) req.destroy();
      }, OVERSIZE_LINGER_MS).unref();
    });
    return;
  }
  if (!Buffer.isBuffer(body)) return; // aborted: no time limit or admission here

  const events = parseDelivery(body);
  if (!events.ok) {
    const status = events.error === 'unknown_trigger' ? 422 : 400;
    log().warn({ problem: events.problem }, `webhook body refused: ${status}`);
    answer(ctx, res, status, { ok: false, error: events.error, problem: events.problem });
    return;
  }

  const receivedAt = Date.now();
  // The worker's span and the posts after it join this delivery's trace.
  const traceparent = traceparentNow();
  noteInSpan({ [ATTR.events]: events.value.length, [ATTR.trigger]: events.value[0]!.trigger });
  const { maxBacklog, maxBacklogBytes } = deps.config.hooks;
  const caps = { maxBacklog, maxBacklogBytes };
  let queued = 0;
  let duplicates = 0;
  try {
    for (const event of events.value) {
      const key = dedupKey(event);
      const job: EventJob = {
        v: 1,
        trigger: event.trigger,
        dedupKey: key,
        event: event.data,
        receivedAt,
        ...(traceparent ? { traceparent } : {}),
      };
      const result = await withDeadline(
        deps.store.queue.enqueueOnce(
          key,
          { teamId, orderKey: orderKey(teamId, event, key), payload: job },
          DEDUP_TTL_MS,
          caps,
        ),
        STORE_DEADLINE_MS,
        'enqueue',
      );
      if (result === 'full' || result === 'full_bytes') {
        // Events of this delivery queued before are duplicates when the platform retries it.
        const limit = result === 'full' ? 'events' : 'bytes';
        deps.metrics.webhookBacklogFull.inc({ workspace: deps.metrics.workspaceLabel(team), limit });
        const line = { maxBacklog, maxBacklogBytes, limit, queued, retryAfterS: BACKLOG_RETRY_AFTER_S };
        const message =
          result === 'full'
            ? 'webhook refused with 429: the workspace has HOOK_MAX_BACKLOG events not yet posted'
            : 'webhook refused with 429: the events the workspace has not yet posted hold HOOK_MAX_BACKLOG_MB';
        if (overCap.due(team)) log().warn(line, message);
        else if (verbose) log().info(line, message);
        answer(
          ctx,
          res,
          429,
          { ok: false, error: 'backlog_full', limit, queued, duplicates },
          { 'retry-after': String(BACKLOG_RETRY_AFTER_S) },
        );
        return;
      }
      deps.metrics.eventsQueued.inc({ trigger: event.trigger, result });
      if (result === 'queued') queued++;
      else duplicates++;
      if (result === 'duplicate' && verbose) {
        log().info({ trigger: event.trigger, dedupKey: key, result }, 'webhook event was a duplicate');
      } else if (traced) {
        log().debug({ trigger: event.trigger, dedupKey: key, result }, 'webhook event queued');
      }
    }
  } catch (err) {
    log().warn({ err, queued }, 'webhook refused with 503: could not queue');
    answer(ctx, res, 503, { ok: false, error: 'unavailable' }, { 'retry-after': '30' });
    return;
  }
  answer(ctx, res, 200, { ok: true, queued, duplicates });
}

/** Per workspace, whether a warning about its full backlog is due (at most one per BACKLOG_WARN_EVERY_MS). */
class BacklogWarnings {
  private readonly lastAt = new Map<string, number>();

  due(teamId: string): boolean {
    const now = Date.now();
    if (now - (this.lastAt.get(teamId) ?? Number.NEGATIVE_INFINITY) < BACKLOG_WARN_EVERY_MS) return false;
    if (this.lastAt.size >= WARNED_TEAMS_KEPT) this.lastAt.clear();
    this.lastAt.set(teamId, now);
    return true;
  }
}

type Delivery =
  | { ok: true; value: KnownEvent[] }
  | { ok: false; error: 'invalid_json' | 'invalid_event' | 'unknown_trigger'; problem: string };

/** A trigger name safe to repeat in an answer: the platform's own spelling, nothing of a payload's text. */
const PLAIN_TRIGGER = /^[A-Za-z0-9_.:-]{1,64}$/;

/**
 * Why an event of a trigger this app does not know is refused. Nothing could post it: kept, it would only wait
 * as a dead letter — bytes a flood of them could pile up (up to 256 KB a delivery) with no one to act on them.
 * The answer names the trigger (when it reads as one) and the known ones, never the payload.
 */
function unknownTrigger(event: { trigger: string; data: Record<string, unknown> }): string {
  const known = `the app takes ${TRIGGER_NAMES.join(', ')}`;
  if (event.data.triggerName === undefined)
    return `no triggerName, and the fields match no event the app takes (${known})`;
  const name = PLAIN_TRIGGER.test(event.trigger) ? `"${event.trigger}"` : 'its triggerName';
  return `unknown trigger ${name}: ${known}`;
}

/**
 * The body: a JSON array of events (the spec: exactly one) or one bare event object. Every event must read
 * before any is queued: a body with one bad or unknown event is refused whole (400, or 422 for an unknown trigger)
 * and nothing of it is kept — a body half taken would be half taken again on the platform's retry, and its answer
 * could not say which half.
 */
function parseDelivery(body: Buffer): Delivery {
  let value: unknown;
  try {
    // A `__proto__` key is an own property here; `parseEvent` drops each one before anything else sees it.
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return { ok: false, error: 'invalid_json', problem: 'the body is not valid JSON' };
  }
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0) return { ok: false, error: 'invalid_event', problem: 'the body is an empty array' };
  if (list.length > MAX_EVENTS_PER_DELIVERY) {
    return { ok: false, error: 'invalid_event', problem: `at most ${MAX_EVENTS_PER_DELIVERY} events per delivery` };
  }
  const events: KnownEvent[] = [];
  for (const [i, item] of list.entries()) {
    const parsed = parseEvent(item);
    const at = (problem: string) => (list.length > 1 ? `event ${i}: ${problem}` : problem);
    if (!parsed.ok) return { ok: false, error: 'invalid_event', problem: at(parsed.problem) };
    if (!parsed.event.known) return { ok: false, error: 'unknown_trigger', problem: at(unknownTrigger(parsed.event)) };
    events.push(parsed.event);
  }
  return { ok: true, value: events };
}

/** Answers once: a later answer to the same request (a failure after the answer went) is dropped. */
function answer(
  ctx: Pick<DeliveryContext, 'deps'>,
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(payload)),
    ...headers,
  });
  res.end(payload);
  noteInSpan({ [ATTR.httpStatus]: status });
  ctx.deps.metrics.webhookRequests.inc({ status: String(status) });
}
