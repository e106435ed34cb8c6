/**
 * An open-loop load generator at a steady rate: request i is due at start + i/rate and is sent then, whatever
 * happened to the ones before, over a pool of keep-alive connections; its latency counts from when it was due
 * (a request that had to wait for a free connection counts that wait). autocannon's `overallRate` is not
 * this: it lets each connection send its whole per-second budget back to back at the top of every second, so
 * "2,000 req/s" becomes a burst of 2,000 requests once a second.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';

export interface PacedResult {
  /** Latencies (ms) of 2xx answers, from when each request was due. */
  latencies: number[];
  /** The same, from when each request was actually sent (what the generator's own delays do not inflate). */
  fromSend: number[];
  statuses: Record<string, number>;
  errors: number;
  sent: number;
  /** Requests completed per second over the run. */
  achieved: number;
}

export async function paced(opts: { url: string; body: () => string; rate: number; durationS: number; connections: number }): Promise<PacedResult> {
  const target = new URL(opts.url);
  const pool = new Pool(target.origin, { connections: opts.connections, pipelining: 1 });
  const latencies: number[] = [];
  const fromSend: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  const total = Math.round(opts.rate * opts.durationS);
  const inFlight = new Set<Promise<void>>();
  const start = performance.now();
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - start) * opts.rate) / 1000) + 1);
    for (; sent < due; sent++) {
      const dueAt = start + (sent * 1000) / opts.rate;
      const sentAt = performance.now();
      const p = pool
        .request({ path: target.pathname, method: 'POST', headers: { 'content-type': 'application/json' }, body: opts.body() })
        .then(async (res) => {
          await res.body.dump();
          statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
          if (res.statusCode >= 200 && res.statusCode < 300) {
            latencies.push(performance.now() - dueAt);
            fromSend.push(performance.now() - sentAt);
          }
        })
        .catch(() => {
          errors++;
        })
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
    await sleep(1);
  }
  await Promise.all(inFlight);
  const seconds = (performance.now() - start) / 1000;
  await pool.close();
  return { latencies, fromSend, statuses, errors, sent, achieved: (total - errors) / seconds };
}
