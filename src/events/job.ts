/**
 * What the webhook receiver puts on the queue for one event, and how the worker reads it back.
 * Versioned: an entry of another shape fails loudly into dead letters instead of being misread.
 *
 * The worker validates the event against the schemas (`parseEvent`) when it takes it, whatever intake checked:
 * an event queued before a deploy is judged by the schemas now in force.
 */
import type { ChannelCause, DeadLetter, QueueEntry } from '../store/index.js';
import { isTriggerName, parseEvent, type ParseResult, type TriggerName } from './events.js';

export interface EventJob {
  v: 1;
  /** Known trigger name, a name the body gave that we do not know, or `unknown`. */
  trigger: string;
  dedupKey: string;
  /** The event as received (unknown fields kept, `__proto__` keys removed). */
  event: Record<string, unknown>;
  /** Epoch ms when the webhook arrived. */
  receivedAt: number;
  /** An admin retried a dead letter: its entry id, so steps already done in some channels are not done again. */
  retryOf?: string;
  /** The W3C trace context of the webhook's intake (tracing on): the worker's span joins its trace. */
  traceparent?: string;
}

type JobRead = { success: true; data: EventJob } | { success: false; data?: undefined };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A queued payload as an event job, checked by hand: one per event read. */
export function readJob(payload: unknown): JobRead {
  if (!isPlainObject(payload)) return { success: false };
  const { v, trigger, dedupKey, event, receivedAt, retryOf, traceparent } = payload;
  const ok =
    v === 1 &&
    typeof trigger === 'string' &&
    trigger.length > 0 &&
    typeof dedupKey === 'string' &&
    dedupKey.length > 0 &&
    isPlainObject(event) &&
    typeof receivedAt === 'number' &&
    (retryOf === undefined || typeof retryOf === 'string') &&
    (traceparent === undefined || typeof traceparent === 'string');
  if (!ok) return { success: false };
  return {
    success: true,
    data: {
      v,
      trigger,
      dedupKey,
      event,
      receivedAt,
      ...(retryOf === undefined ? {} : { retryOf }),
      ...(traceparent === undefined ? {} : { traceparent }),
    },
  };
}

/** The job's event, validated against the schemas for its trigger. */
export function jobEvent(job: EventJob): ParseResult {
  return isTriggerName(job.trigger) ? parseEvent(job.event, job.trigger) : parseEvent(job.event);
}

/**
 * The dead letter of a queued event given up with these causes: one per event, under the id an admin's Retry
 * keeps (`retryOf`), so a retried event given up again is the same letter, not a second one.
 */
export function letterOf(
  entry: Pick<QueueEntry, 'id' | 'teamId' | 'orderKey' | 'payload' | 'enqueuedAt' | 'attempt'>,
  error: string,
  causes?: ChannelCause[],
): DeadLetter {
  const retryOf = readJob(entry.payload).data?.retryOf;
  return {
    id: retryOf ?? entry.id,
    teamId: entry.teamId,
    orderKey: entry.orderKey,
    payload: entry.payload,
    error,
    ...(causes ? { causes } : {}),
    attempts: entry.attempt,
    enqueuedAt: entry.enqueuedAt,
    failedAt: Date.now(),
    ...(retryOf === undefined ? {} : { retried: true }),
  };
}

/** The trigger a queued payload names, as metrics label it. */
export function triggerOf(payload: unknown): TriggerName | 'unknown' {
  const trigger = readJob(payload).data?.trigger;
  return trigger !== undefined && isTriggerName(trigger) ? trigger : 'unknown';
}
