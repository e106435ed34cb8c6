/**
 * The platform's webhook events (docs/PLATFORM-API.md): trigger names → zod schemas → a typed event map,
 * and `parseEvent`, which turns one untrusted JSON value into a known or unknown event.
 *
 * Schemas are lenient where the spec is vague and strict where it matters:
 * - unknown fields are kept (`looseObject`), missing fields are allowed (minimal payloads still render),
 *   `null` counts as missing;
 * - a documented field of the wrong type (a numeric `callId`, a non-numeric `durationMs`) is a shape error:
 *   we would misread the event, so it is refused rather than guessed at.
 *
 * The deliveries carry no trigger name (the spec lists none, and one hook URL receives every event). An explicit
 * `triggerName` field wins when present; otherwise the trigger is read from the shape (see `inferTrigger`).
 */
import { z } from 'zod';
import { SUBSCRIBABLE_TRIGGERS, TRIGGER_NAMES, type SubscribableTrigger, type TriggerName } from '../api/index.js';

export { SUBSCRIBABLE_TRIGGERS, TRIGGER_NAMES };
export type { SubscribableTrigger, TriggerName };

/*
 * `null` counts as missing: `parseEvent` drops null-valued fields before the schema sees them, so the field
 * schemas are plain optionals. No per-field transform: intake parses every delivery, and a transform per field
 * is most of zod's work and garbage.
 */
const text = z.string().optional();

/** A number, also accepted as a numeric string (the platform serializes some integers as strings). */
const num = z
  .union([
    z.number(),
    z
      .string()
      .trim()
      .regex(/^-?\d+(\.\d+)?$/, 'expected a number')
      .transform(Number),
  ])
  .optional();

const common = {
  /** Only present if the platform ever names the trigger in the body. */
  triggerName: text,
  campaignId: text,
  agentId: text,
  customerNumber: text,
  customerName: text,
  campaignName: text,
  agentName: text,
  campaignType: text,
  /** Not in the spec; taken when the platform sends it (handoff threads need it). */
  sessionId: text,
};

const callStartedSchema = z.looseObject({ ...common, callId: text });

const callCompletedSchema = z.looseObject({
  ...common,
  callId: text,
  callSummary: text,
  startedAt: text,
  endedAt: text,
  durationMs: num,
  durationSeconds: num,
  durationMinutes: num,
  callTranscript: text,
  audioUrl: text,
  customerEmail: text,
  status: text,
  endedReason: text,
});

const messageReceivedSchema = z.looseObject({ ...common, messageContent: text, receivedAt: text });

const messageSentSchema = z.looseObject({ ...common, messageContent: text, sentAt: text });

/** Payload not documented: the conversation fields are read when present, everything else kept. */
const sessionCompletedSchema = z.looseObject({ ...common, receivedAt: text, sentAt: text, completedAt: text });

const EVENT_SCHEMAS = {
  call_started: callStartedSchema,
  call_completed: callCompletedSchema,
  message_received: messageReceivedSchema,
  message_sent: messageSentSchema,
  message_session_completed: sessionCompletedSchema,
} as const satisfies Record<TriggerName, z.ZodType>;

export type EventMap = { [K in TriggerName]: z.output<(typeof EVENT_SCHEMAS)[K]> };
export type CallStarted = EventMap['call_started'];
export type CallCompleted = EventMap['call_completed'];
export type MessageReceived = EventMap['message_received'];
export type MessageSent = EventMap['message_sent'];
export type SessionCompleted = EventMap['message_session_completed'];

export type KnownEvent = { [K in TriggerName]: { known: true; trigger: K; data: EventMap[K] } }[TriggerName];

/** A trigger this app has no schema for: kept whole, never rendered. */
interface UnknownEvent {
  known: false;
  /** The name the body gave, or `unknown` when neither the body nor the shape says. */
  trigger: string;
  data: Record<string, unknown>;
}

export type ParsedEvent = KnownEvent | UnknownEvent;

export type ParseResult = { ok: true; event: ParsedEvent } | { ok: false; problem: string };

const UNKNOWN_TRIGGER = 'unknown';
const MAX_TRIGGER_NAME = 100;

export function isTriggerName(name: string): name is TriggerName {
  return (TRIGGER_NAMES as readonly string[]).includes(name);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const COMPLETION_FIELDS = [
  'endedAt',
  'durationMs',
  'durationSeconds',
  'durationMinutes',
  'callTranscript',
  'callSummary',
  'endedReason',
  'audioUrl',
] as const;

/**
 * The trigger of an event without a `triggerName`, from the fields only that trigger has (docs/PLATFORM-API.md):
 * `receivedAt` → message_received, `sentAt` → message_sent, a `callId` with any end-of-call field →
 * call_completed, a `callId` alone → call_started. Anything else is unknown (and kept). Null fields are gone by
 * then (`withoutNulls`).
 */
function inferTrigger(event: Record<string, unknown>): TriggerName | undefined {
  const has = (k: string) => event[k] !== undefined;
  if (has('callId')) return COMPLETION_FIELDS.some(has) ? 'call_completed' : 'call_started';
  if (has('receivedAt') && !has('sentAt')) return 'message_received';
  if (has('sentAt') && !has('receivedAt')) return 'message_sent';
  return undefined;
}

function describeIssues(error: z.ZodError): string {
  // zod 4 issue messages never echo the input, so platform text cannot reach logs or replies through them.
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length > 0 ? i.path.join('.') : 'event'}: ${i.message}`)
    .join('; ');
}

/**
 * One event from a webhook body or a sample. `forced` is the trigger the caller already knows (the sample
 * endpoint names it); otherwise the body's `triggerName` or the shape decides.
 */
export function parseEvent(value: unknown, forced?: TriggerName): ParseResult {
  if (!isRecord(value)) return { ok: false, problem: 'an event must be a JSON object' };
  const shape = shapeOf(value);
  if (shape.depth > MAX_DEPTH) return { ok: false, problem: `the event is nested more than ${MAX_DEPTH} levels deep` };
  // Copied only when there is a key to drop: most events have none, and intake parses every delivery.
  const event = withoutNulls(shape.protoKeys ? withoutProtoKeys(value) : value);
  if (Object.keys(event).length === 0) return { ok: false, problem: 'the event is an empty object' };

  let trigger: string | undefined = forced;
  if (trigger === undefined && event.triggerName !== undefined) {
    if (typeof event.triggerName !== 'string' || event.triggerName.trim() === '') {
      return { ok: false, problem: 'triggerName: expected a non-empty string' };
    }
    trigger = event.triggerName.trim().slice(0, MAX_TRIGGER_NAME);
  }
  trigger ??= inferTrigger(event) ?? UNKNOWN_TRIGGER;

  if (!isTriggerName(trigger)) return { ok: true, event: { known: false, trigger, data: event } };
  const parsed = EVENT_SCHEMAS[trigger].safeParse(event);
  if (!parsed.success) return { ok: false, problem: `${trigger}: ${describeIssues(parsed.error)}` };
  return { ok: true, event: { known: true, trigger, data: parsed.data } as KnownEvent };
}

/** The event without its null-valued fields (`null` reads as missing); the same object when it has none. */
function withoutNulls(event: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key in event) {
    if (event[key] !== null) continue;
    copy ??= { ...event };
    delete copy[key];
  }
  return copy ?? event;
}

/** Platform events are flat; anything this deep is not one (and would cost recursion further on). */
const MAX_DEPTH = 32;

/**
 * Nesting depth of a JSON value (counting stops past MAX_DEPTH) and whether any object in it has a `__proto__`
 * own key — one walk, without recursion.
 */
function shapeOf(value: unknown): { depth: number; protoKeys: boolean } {
  let deepest = 0;
  let protoKeys = false;
  const values: object[] = [];
  const depths: number[] = [];
  if (typeof value === 'object' && value !== null) {
    values.push(value);
    depths.push(1);
  }
  while (values.length > 0) {
    const v = values.pop()!;
    const d = depths.pop()!;
    if (d > deepest) {
      deepest = d;
      if (deepest > MAX_DEPTH) break;
    }
    const children: unknown[] = Array.isArray(v) ? v : Object.values(v);
    if (!Array.isArray(v) && Object.hasOwn(v, '__proto__')) protoKeys = true;
    for (const child of children) {
      if (typeof child === 'object' && child !== null) {
        values.push(child);
        depths.push(d + 1);
      }
    }
  }
  return { depth: deepest, protoKeys };
}

/**
 * A deep copy without `__proto__` keys (JSON.parse makes them own properties; copying one with `=` or
 * `Object.assign` would set a prototype). `constructor`/`prototype` as plain own keys are harmless data.
 */
function withoutProtoKeys<T>(value: T, depth = 0): T {
  if (depth > MAX_DEPTH || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((v: unknown) => withoutProtoKeys(v, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === '__proto__') continue;
    out[k] = withoutProtoKeys(v, depth + 1);
  }
  return out as T;
}
