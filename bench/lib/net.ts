/**
 * Small socket helpers shared by the benchmarks and the fault suite.
 */
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** A TCP port that was free a moment ago (bound to 0, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Polls `GET url` every `everyMs` until it answers 200; resolves with the time it took (ms). */
export async function waitForOk(
  url: string,
  timeoutMs = 10_000,
  everyMs = 5,
  isAlive: () => boolean = () => true,
): Promise<number> {
  const started = performance.now();
  for (;;) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1_000) });
      await res.arrayBuffer();
      if (res.status === 200) return performance.now() - started;
    } catch {
      // not listening yet
    }
    if (!isAlive()) throw new Error(`${url}: the process exited before answering 200`);
    if (performance.now() - started > timeoutMs) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

/**
 * Polls `check` every `everyMs` until it returns something truthy; rejects after `timeoutMs` naming `what` (a
 * function: asked then, so it can tell how far things got).
 */
export async function until<T>(
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what: string | (() => string),
  timeoutMs = 10_000,
  everyMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    await sleep(everyMs);
  }
}
