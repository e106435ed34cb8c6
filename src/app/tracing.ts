/**
 * The OpenTelemetry SDK, set up only when the OTEL_* variables ask for traces (`config.tracing`): loaded then,
 * with a dynamic import, so a bot without traces loads none of it and its spans (src/util/spans.ts) are the
 * API's no-ops. Nothing is instrumented automatically (no module is patched): spans come from our own seams.
 *
 * Spans go out in batches over OTLP/HTTP as JSON; `shutdown` sends what is still buffered (graceful stop).
 */
import { context, propagation, trace } from '@opentelemetry/api';
import type { TracingConfig } from '../config.js';
import type { Logger } from '../logger.js';

export interface Tracing {
  /** Sends the spans still buffered, then stops tracing (the API's no-ops again). */
  shutdown(): Promise<void>;
}

const OFF: Tracing = { shutdown: () => Promise.resolve() };

/** How long a stop waits for the last spans to reach the collector. */
const EXPORT_TIMEOUT_MS = 5_000;

export async function startTracing(config: TracingConfig | undefined, logger: Logger): Promise<Tracing> {
  if (!config) return OFF;
  const [{ NodeTracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler }, otlp, resources] =
    await Promise.all([
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
    ]);
  const exporter = new otlp.OTLPTraceExporter({
    url: config.url,
    headers: { ...config.headers },
    timeoutMillis: EXPORT_TIMEOUT_MS,
  });
  const provider = new NodeTracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': config.serviceName }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.sampleRatio) }),
    spanProcessors: [new BatchSpanProcessor(exporter, { exportTimeoutMillis: EXPORT_TIMEOUT_MS })],
  });
  // The AsyncLocalStorage context manager (a span stays active across awaits) and the W3C propagator.
  provider.register();
  // The endpoint only: its path is the operator's, and headers (keys) are never logged.
  logger.info({ endpoint: new URL(config.url).origin, service: config.serviceName }, 'traces are exported over OTLP');
  return {
    async shutdown() {
      try {
        await provider.shutdown();
      } catch (err) {
        logger.warn({ err }, 'could not send the last spans to the trace collector');
      } finally {
        // Unregistered, so a bot started again in this process (tests, benches) can register its own.
        trace.disable();
        context.disable();
        propagation.disable();
      }
    },
  };
}
