/**
 * Small socket helpers shared by the benchmarks and the fault suite.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Where ports handed out are reserved, one file each (naming the process): the forks of a test run share it. */
const RESERVED = join(tmpdir(), 'campaign-test-ports');
const reservedHere = new Set<number>();
process.once('exit', () => {
  for (const port of reservedHere) rmSync(join(RESERVED, String(port)), { force: true });
});

/**
 * A TCP port that was free a moment ago and that no other process of this machine's test runs was handed: the
 * kernel may give a port another fork just released, before the process it was meant for binds it (then that
 * fork's client would reach this one's server).
 */
export async function freePort(): Promise<number> {
  mkdirSync(RESERVED, { recursive: true });
  for (let tries = 0; tries < 100; tries++) {
    const port = await releasedPort();
    if (reserve(port)) return port;
  }
  throw new Error('no free port that no other process holds');
}

/** Reserves the port for this process: false when a live process holds it. */
function reserve(port: number): boolean {
  const file = join(RESERVED, String(port));
  try {
    writeFileSync(file, String(process.pid), { flag: 'wx' });
  } catch {
    const holder = Number(readFileSync(file, 'utf8'));
    if (holder === process.pid || isAlive(holder)) return false;
    writeFileSync(file, String(process.pid)); // its process is gone
  }
  reservedHere.add(port);
  return true;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A TCP port that was free a moment ago (bound to 0, then released). */
function releasedPort(): Promise<number> {
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
