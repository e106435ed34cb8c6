/**
 * What traces cost a webhook's ack (docs/OPERATIONS.md › Traces): two bots on the bench's Redis, one with
 * tracing off (no OTEL_* variable) and one exporting to a local OTLP sink, each at a steady rate in turn
 * (`wrk` with a pause per connection, lib/wrk.ts), warm-up first and the queue drained between runs.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Stack } from './lib/stack.js';
import { ensureWrk, wrk } from './lib/wrk.js';
import { drain } from './ingest.js';

export interface TracingOptions {
  connections: number;
  durationS: number;
  warmupS: number;
  rounds: number;
  fixedRate: number;
}

export interface TracingFigures {
  rate: number;
  /** Per mode, the rounds' p50 and p99 (ms) and what was achieved. */
  off: Array<{ p50: number; p99: number; achieved: number }>;
  on: Array<{ p50: number; p99: number; achieved: number }>;
  /** OTLP requests and bytes the sink took from the traced bot. */
  exports: { requests: number; bytes: number };
}

/** A collector that takes every OTLP/HTTP export and keeps only counts. */
async function startSink() {
  const counts = { requests: 0, bytes: 0 };
  const server = createServer((req, res) => {
    req.on('data', (c: Buffer) => (counts.bytes += c.length));
    req.on('end', () => {
      counts.requests++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export async function runTracing(stack: Stack, opts: TracingOptions): Promise<TracingFigures> {
  ensureWrk();
  const sink = await startSink();
  // As ingest runs them: LOG_LEVEL=info, lines going nowhere, backlog caps out of reach.
  const quiet = { entry: 'dist', logLevel: 'info', discardStdout: true } as const;
  const uncapped = { HOOK_MAX_BACKLOG: '10000000', HOOK_MAX_BACKLOG_MB: '10000' };
  const env = { off: uncapped, on: { ...uncapped, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url } };
  const path = await stack.route([]);
  const tag = Date.now().toString(36);
  const figures: TracingFigures = { rate: opts.fixedRate, off: [], on: [], exports: sink.counts };
  try {
    // One bot at a time (two on one Redis would share each other's queue), modes alternating, so a busier
    // moment of the shared machine does not fall on one mode only.
    for (let round = 0; round < opts.rounds; round++) {
      for (const mode of ['off', 'on'] as const) {
        const bot = await stack.startBot({ ...quiet, env: env[mode] });
        try {
          const shape = { url: `${bot.url}${path}`, connections: opts.connections };
          await wrk({
            ...shape,
            prefix: `warm-trace-${mode}-${tag}-${round}-`,
            durationS: opts.warmupS,
            rate: opts.fixedRate / 2,
          });
          await drain(bot);
          const r = await wrk({
            ...shape,
            prefix: `trace-${mode}-${tag}-${round}-`,
            durationS: opts.durationS,
            rate: opts.fixedRate,
          });
          figures[mode].push({ p50: r.p50, p99: r.p99, achieved: r.rps });
          await drain(bot);
        } finally {
          await bot.stop();
        }
      }
    }
    return figures;
  } finally {
    await sink.close();
  }
}
