/**
 * autocannon as a library: POST bodies from `body()` at a URL for a while (a fresh one per request, built in
 * `setupRequest`: autocannon 8's `idReplacement` miscounts Content-Length), and collect every 2xx latency
 * exactly (autocannon's own histogram rounds to whole milliseconds).
 */
import autocannon from 'autocannon';

export interface LoadOptions {
  url: string;
  /** Called once per request. */
  body: () => string;
  connections: number;
  durationS: number;
  /** Fixed total request rate; as fast as possible when absent. */
  rate?: number;
}

export interface LoadResult {
  /** Requests per second completed (any status). */
  rps: number;
  /** Latencies (ms) of the 2xx answers, in arrival order. */
  latencies: number[];
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  total: number;
}

export function load(opts: LoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const latencies: number[] = [];
    const instance = autocannon(
      {
        url: opts.url,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        requests: [{ setupRequest: (req) => ({ ...req, body: opts.body() }) }],
        connections: opts.connections,
        duration: opts.durationS,
        timeout: 10,
        ...(opts.rate ? { overallRate: opts.rate } : {}),
      },
      (err, result) => {
        if (err) {
          reject(err);
          return;
        }
        const statuses: Record<string, number> = {};
        let total = 0;
        for (const [code, { count }] of Object.entries(result.statusCodeStats)) {
          statuses[code] = Number(count);
          total += Number(count);
        }
        resolve({ rps: total / result.duration, latencies, statuses, errors: result.errors, timeouts: result.timeouts, total });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
  });
}
