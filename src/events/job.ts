/**
 * What the webhook receiver puts on the queue for one event, and how the worker reads it back.
 * Versioned, so entries queued by an older bot still read (or fail loudly into dead letters) after a deploy.
 *
 * Intake has already validated the event against the schemas (`parseEvent`) and stores what they produced,
 * marked with `checked`: the worker takes such an event as it is instead of validating it a second time. An
 * entry without the mark (queued by an older bot), or with another schema revision's, is validated again.
 */
import { isTriggerName, parseEvent, type KnownEvent, type ParseResult } from './events.js';

/** The revision of the event schemas (events.ts). Bump it when they change what they accept or produce. */
export const EVENT_SCHEMA_REVISION = 1;

export interface EventJob {
  v: 1;
  /** Known trigger name, a name the body gave that we do not know, or `unknown`. */
  trigger: string;
  dedupKey: string;
  /** The event as received (unknown fields kept, `__proto__` keys removed). */
  event: Record<string, unknown>;
  /** Epoch ms when the webhook arrived. */
  receivedAt: number;
  /** `event` is the schemas' output for `trigger` at this revision (a known trigger only). */
  checked?: number;
  /** An admin retried a dead letter: its entry id, so steps already done in some channels are not done again. */
  retryOf?: string;
}

type JobRead = { success: true; data: EventJob } | { success: false; data?: undefined };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A queued payload as an event job (what `eventJobSchema` accepts), checked by hand: one per event read. */
export function readJob(payload: unknown): JobRead {
  if (!isPlainObject(payload)) return { success: false };
  const { v, trigger, dedupKey, event, receivedAt, checked, retryOf } = payload;
  const ok =
    v === 1 &&
    typeof trigger === 'string' &&
    trigger.length > 0 &&
    typeof dedupKey === 'string' &&
    dedupKey.length > 0 &&
    isPlainObject(event) &&
    typeof receivedAt === 'number' &&
    (checked === undefined || typeof checked === 'number') &&
    (retryOf === undefined || typeof retryOf === 'string');
  if (!ok) return { success: false };
  return {
    success: true,
    data: {
      v,
      trigger,
      dedupKey,
      event,
      receivedAt,
      ...(checked === undefined ? {} : { checked }),
      ...(retryOf === undefined ? {} : { retryOf }),
    },
  };
}

/** The job's event: as intake validated it when marked for the current schemas, else validated now. */
export function jobEvent(job: EventJob): ParseResult {
  if (job.checked === EVENT_SCHEMA_REVISION && isTriggerName(job.trigger)) {
    return { ok: true, event: { known: true, trigger: job.trigger, data: job.event } as KnownEvent };
  }
  return isTriggerName(job.trigger) ? parseEvent(job.event, job.trigger) : parseEvent(job.event);
}
