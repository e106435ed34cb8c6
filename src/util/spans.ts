/**
 * Spans at our own seams (docs/OPERATIONS.md › Traces), through the OpenTelemetry API alone: with tracing off no
 * SDK is loaded (src/app/tracing.ts) and every call here lands on the API's no-op tracer.
 *
 * What a span may carry: ids (workspace, channel, queue entry), trigger and lane names, Slack method and error
 * codes, HTTP statuses and route templates. Never customer data (numbers, names, message text), tokens, or a URL
 * with a secret in it: callers pass `ATTR` keys with values of those kinds only.
 */
import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';

export { SpanKind };

const tracer = trace.getTracer('campaign-slack-bot');

/** Our attribute names; the HTTP ones are OpenTelemetry's semantic conventions. */
export const ATTR = {
  team: 'campaign.team_id',
  channel: 'campaign.channel_id',
  trigger: 'campaign.trigger',
  entry: 'campaign.entry_id',
  lane: 'campaign.lane',
  subcommand: 'campaign.subcommand',
  events: 'campaign.events',
  slackMethod: 'slack.method',
  slackError: 'slack.error',
  httpMethod: 'http.request.method',
  httpRoute: 'http.route',
  httpStatus: 'http.response.status_code',
  urlTemplate: 'url.template',
  errorType: 'error.type',
} as const;

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The parent: a context from `traceContext` (a stored traceparent); the active span when absent. */
  parent?: Context;
}

/**
 * Runs `work` in a new span, active for everything it awaits; the span ends when it settles. A throw is recorded
 * as the span's error by its class name only (messages can hold customer text), then rethrown.
 */
export function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  const { parent, ...spanOptions } = options;
  return tracer.startActiveSpan(name, spanOptions, parent ?? context.active(), async (span) => {
    try {
      return await work(span);
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.setAttribute(ATTR.errorType, err instanceof Error ? err.name : typeof err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Adds attributes to the active span (nothing when tracing is off). */
export function noteInSpan(attributes: Attributes): void {
  trace.getActiveSpan()?.setAttributes(attributes);
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The active span as a W3C `traceparent` (https://www.w3.org/TR/trace-context/), to store with queued work. */
export function traceparentNow(): string | undefined {
  const span = trace.getActiveSpan()?.spanContext();
  if (!span || !trace.isSpanContextValid(span)) return undefined;
  return `00-${span.traceId}-${span.spanId}-0${(span.traceFlags & TraceFlags.SAMPLED).toString(16)}`;
}

/** `value` with the active span's traceparent beside its fields, when tracing is on: work stored to go on later. */
export function withTraceNow<T extends object>(value: T): T & { traceparent?: string } {
  const traceparent = traceparentNow();
  return traceparent ? { ...value, traceparent } : value;
}

/** A stored traceparent as a parent for `inSpan`; a new trace (the root) when there is none or it does not read. */
export function traceContext(traceparent: string | undefined): Context {
  const m = traceparent === undefined ? null : TRACEPARENT.exec(traceparent);
  if (!m) return ROOT_CONTEXT;
  const spanContext = { traceId: m[1]!, spanId: m[2]!, traceFlags: Number.parseInt(m[3]!, 16), isRemote: true };
  return trace.isSpanContextValid(spanContext) ? trace.setSpanContext(ROOT_CONTEXT, spanContext) : ROOT_CONTEXT;
}
