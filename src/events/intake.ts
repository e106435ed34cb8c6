/**
 * `POST /hooks/<token>`: the platform's webhook deliveries (spec §6 Delivery).
 *
 *   token → workspace (404 when unknown; nothing written) → body ≤ 256 KB (413, reading stops there) →
 *   JSON (400) → array of events or one bare event, each validated (400 naming the problem) →
 *   dedup mark + enqueue, atomically, per event → 200.
 *
 * Only an event that is safely queued is acknowledged: if the store cannot be reached the answer is 503, so
 * the platform may retry (and a retry of an event that did get queued is recognised as a duplicate).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import type { Deps } from '../bot/deps.js';
import { withDeadline } from '../util/deadline.js';
import { dedupKey, DEDUP_TTL_MS, orderKey } from './dedup-key.js';
import { parseEvent, type ParsedEvent } from './events.js';
import { HOOK_PATH, tokenRef } from './hook-url.js';
import type { EventJob } from './job.js';

export const HOOK_BODY_LIMIT = 256 * 1024;
/** Events in one delivery (the spec sends one; a batch beyond this is not a delivery we understand). */
const MAX_EVENTS_PER_DELIVERY = 100;
/** How long intake waits for the store before answering 503 (the platform's timeout is unknown; stay well under common ones). */
const STORE_DEADLINE_MS = 5_000;

type IntakeDeps = Pick<Deps, 'store' | 'logger' | 'redactor' | 'metrics' | 'lifecycle'>;

export interface IntakeOptions {
  bodyLimit?: number;
}

export function hookRoute(deps: IntakeDeps, options: IntakeOptions = {}): CustomRoute {
  const limit = options.bodyLimit ?? HOOK_BODY_LIMIT;
  return {
    path: `${HOOK_PATH}/:token`,
    // Every method is ours, so a stray GET gets a 405 here instead of Bolt logging the URL (and its token).
    method: ['POST', 'GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    handler: (req, res) => {
      const token = typeof req.params?.token === 'string' ? req.params.token : '';
      handleDelivery(deps, req, res, token, limit).catch((err: unknown) => {
        deps.logger.error({ err, hook: tokenRef(token) }, 'webhook intake failed unexpectedly');
        answer(deps, res, 500, { ok: false, error: 'internal_error' });
      });
    },
  };
}

async function handleDelivery(deps: IntakeDeps, req: IncomingMessage, res: ServerResponse, token: string, limit: number): Promise<void> {
  if (req.method !== 'POST') {
    answer(deps, res, 405, { ok: false, error: 'method_not_allowed' }, { allow: 'POST' });
    return;
  }
  const ref = tokenRef(token);
  if (deps.lifecycle.stopping) {
    answer(deps, res, 503, { ok: false, error: 'shutting_down' }, { 'retry-after': '5' });
    return;
  }

  let teamId: string | null;
  try {
    teamId = await withDeadline(deps.store.workspaces.resolveHookToken(token), STORE_DEADLINE_MS, 'hook token lookup');
  } catch (err) {
    deps.logger.warn({ err, hook: ref }, 'webhook refused with 503: the store is unavailable');
    answer(deps, res, 503, { ok: false, error: 'unavailable' }, { 'retry-after': '30' });
    return;
  }
  if (teamId === null) {
    deps.logger.info({ hook: ref }, 'webhook for an unknown hook token: 404');
    answer(deps, res, 404, { ok: false, error: 'not_found' });
    return;
  }
  // A live token: mask it wherever it might show up in a log line from here on.
  deps.redactor.addSecret(token);
  const log = deps.logger.child({ team: teamId, hook: ref });

  const body = await readBody(req, limit);
  if (body === 'too_large') {
    log.warn({ limit }, 'webhook body over the size limit: 413');
    answer(deps, res, 413, { ok: false, error: 'payload_too_large', limit }, { connection: 'close' });
    // Stop reading: the rest of an oversized body is never taken in.
    res.once('finish', () => req.destroy());
    return;
  }
  if (body === 'aborted') return;

  const events = parseDelivery(body);
  if (!events.ok) {
    log.warn({ problem: events.problem }, 'webhook body refused: 400');
    answer(deps, res, 400, { ok: false, error: events.error, problem: events.problem });
    return;
  }

  const receivedAt = Date.now();
  let queued = 0;
  let duplicates = 0;
  try {
    for (const event of events.value) {
      const key = dedupKey(event);
      const job: EventJob = { v: 1, trigger: event.trigger, dedupKey: key, event: event.data, receivedAt };
      const result = await withDeadline(
        deps.store.queue.enqueueOnce(key, { teamId, orderKey: orderKey(teamId, event, key), payload: job }, DEDUP_TTL_MS),
        STORE_DEADLINE_MS,
        'enqueue',
      );
      deps.metrics.eventsQueued.inc({ trigger: event.known ? event.trigger : 'unknown', result });
      if (result === 'queued') queued++;
      else duplicates++;
      if (!event.known) {
        log.warn({ trigger: event.trigger, fields: Object.keys(event.data).slice(0, 40), result }, 'webhook event with an unknown trigger: kept (it will be dead-lettered, not posted)');
      } else {
        log.info({ trigger: event.trigger, dedupKey: key, result }, result === 'queued' ? 'webhook event queued' : 'webhook event was a duplicate');
      }
    }
  } catch (err) {
    log.warn({ err, queued }, 'webhook refused with 503: could not queue');
    answer(deps, res, 503, { ok: false, error: 'unavailable' }, { 'retry-after': '30' });
    return;
  }
  answer(deps, res, 200, { ok: true, queued, duplicates });
}

type Delivery = { ok: true; value: ParsedEvent[] } | { ok: false; error: 'invalid_json' | 'invalid_event'; problem: string };

/** The body: a JSON array of events (the spec: exactly one) or one bare event object. */
export function parseDelivery(body: Buffer): Delivery {
  let value: unknown;
  try {
    // `__proto__` keys are dropped while parsing; nothing downstream ever sees one.
    value = JSON.parse(body.toString('utf8'), (key, v: unknown) => (key === '__proto__' ? undefined : v));
  } catch {
    return { ok: false, error: 'invalid_json', problem: 'the body is not valid JSON' };
  }
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0) return { ok: false, error: 'invalid_event', problem: 'the body is an empty array' };
  if (list.length > MAX_EVENTS_PER_DELIVERY) {
    return { ok: false, error: 'invalid_event', problem: `at most ${MAX_EVENTS_PER_DELIVERY} events per delivery` };
  }
  const events: ParsedEvent[] = [];
  for (const [i, item] of list.entries()) {
    const parsed = parseEvent(item);
    if (!parsed.ok) return { ok: false, error: 'invalid_event', problem: list.length > 1 ? `event ${i}: ${parsed.problem}` : parsed.problem };
    events.push(parsed.event);
  }
  return { ok: true, value: events };
}

/** Reads the body up to `limit` bytes; past it, stops reading at once (declared or streamed). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too_large' | 'aborted'> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve('too_large');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: Buffer | 'too_large' | 'aborted') => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        settle('too_large');
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => settle(Buffer.concat(chunks, size));
    const onError = () => settle('aborted');
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

function answer(deps: IntakeDeps, res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  deps.metrics.webhookRequests.inc({ status: String(status) });
  if (res.headersSent) return;
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(payload)), ...headers });
  res.end(payload);
}
