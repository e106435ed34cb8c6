/**
 * Floods of requests nobody signed, at the real bot process (with Redis), while `/healthz` is probed on a new
 * connection every 50 ms, as a load balancer or kubelet would:
 *
 *   1. 300 concurrent unsigned 4 MB POSTs to `/slack/events` (Content-Length announced);
 *   2. 300 concurrent 4 MB POSTs streamed (chunked, no length) with well-formed, fresh but forged signature
 *      headers — what a forger sends once unsigned requests are refused before their body;
 *   3. 22,000 sockets that connect and never send a byte;
 *   4. first of all, 300 forged 1 MB bodies (declared length, fresh timestamp, a signature that does not match),
 *      one after another: the bot's CPU per body, read from /proc (what a forgery costs before it is refused).
 *
 * Figures: what each request was answered, the bot's peak RSS (sampled every 20 ms), and `/healthz`'s worst
 * latency and failures during the flood. The bot answers before reading a body it will refuse, so a sender
 * can be answered while it is still sending: a connection reset after its answer counts as answered.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BotProcess } from './lib/bot-process.js';

/** Between floods: the bot finishes with what one left (lingering connections, garbage) before the next. */
const SETTLE_MS = 3_000;

export interface FloodFigures {
  /** Status → how many; `reset` = the connection failed before any answer. */
  statuses: Record<string, number>;
  rssBeforeBytes: number;
  rssPeakBytes: number;
  rssAfterBytes: number;
  seconds: number;
  health: { probes: number; failures: number; worstMs: number };
}

export interface Floods {
  unsigned: FloodFigures & { requests: number; bodyBytes: number };
  forged: FloodFigures & { requests: number; bodyBytes: number };
  silent: FloodFigures & { sockets: number; refusedAtConnect: number };
  /** Forged 1 MB bodies: statuses, and the bot's CPU ms per body (undefined where /proc is not there). */
  forged1mb: { requests: number; statuses: Record<string, number>; cpuMsPerBody: number | undefined };
}

/** The process's CPU time (user + system) in ms, from /proc; undefined off Linux. */
function cpuMsOf(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime are fields 14 and 15 of stat (11 and 12 after the command name), in clock ticks (100 Hz).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

export async function runFlood(
  bot: BotProcess,
  opts: { requests: number; bodyBytes: number; silentSockets: number },
): Promise<Floods> {
  // First, on a quiet bot: the CPU a forgery costs, before the floods leave sockets and garbage behind.
  const oneMb = randomBytes(1_000_000);
  const cpuBefore = cpuMsOf(bot.pid);
  const forged1mb: string[] = [];
  for (let i = 0; i < opts.requests; i++) {
    const headers = {
      'content-type': 'application/json',
      'content-length': String(oneMb.length),
      'x-slack-signature': `v0=${randomBytes(32).toString('hex')}`,
      'x-slack-request-timestamp': String(Math.floor(Date.now() / 1000)),
    };
    forged1mb.push(await post(bot, headers, oneMb, false));
  }
  const cpuAfter = cpuMsOf(bot.pid);
  const statuses1mb: Record<string, number> = {};
  for (const o of forged1mb) statuses1mb[o] = (statuses1mb[o] ?? 0) + 1;
  await sleep(SETTLE_MS);
  const body = randomBytes(opts.bodyBytes);
  const unsigned = await measure(bot, () =>
    Promise.all(
      Array.from({ length: opts.requests }, () =>
        post(bot, { 'content-type': 'application/json', 'content-length': String(body.length) }, body, false),
      ),
    ),
  );
  await sleep(SETTLE_MS);
  const forged = await measure(bot, () =>
    Promise.all(
      Array.from({ length: opts.requests }, () =>
        post(
          bot,
          {
            'content-type': 'application/json',
            'x-slack-signature': `v0=${randomBytes(32).toString('hex')}`,
            'x-slack-request-timestamp': String(Math.floor(Date.now() / 1000)),
          },
          body,
          true,
        ),
      ),
    ),
  );
  await sleep(SETTLE_MS);
  let refusedAtConnect = 0;
  const silent = await measure(bot, async () => {
    const outcomes = await openSilentSockets(bot, opts.silentSockets);
    refusedAtConnect = outcomes.refused;
    return outcomes.statuses;
  });
  return {
    forged1mb: {
      requests: opts.requests,
      statuses: statuses1mb,
      cpuMsPerBody:
        cpuBefore === undefined || cpuAfter === undefined ? undefined : (cpuAfter - cpuBefore) / opts.requests,
    },
    unsigned: { ...unsigned, requests: opts.requests, bodyBytes: opts.bodyBytes },
    forged: { ...forged, requests: opts.requests, bodyBytes: opts.bodyBytes },
    silent: { ...silent, sockets: opts.silentSockets, refusedAtConnect },
  };
}

/** Runs a flood while sampling the bot's RSS and probing `/healthz`. */
async function measure(bot: BotProcess, flood: () => Promise<string[]>): Promise<FloodFigures> {
  const rssBeforeBytes = bot.rss();
  let rssPeakBytes = rssBeforeBytes;
  let running = true;
  const sampler = (async () => {
    while (running) {
      rssPeakBytes = Math.max(rssPeakBytes, bot.rss());
      await sleep(20);
    }
  })();
  const prober = startProber(bot);
  const started = performance.now();
  const outcomes = await flood();
  const seconds = (performance.now() - started) / 1000;
  running = false;
  const [, health] = await Promise.all([sampler, prober.stop()]);
  const statuses: Record<string, number> = {};
  for (const o of outcomes) statuses[o] = (statuses[o] ?? 0) + 1;
  return { statuses, rssBeforeBytes, rssPeakBytes, rssAfterBytes: bot.rss(), seconds, health };
}

/**
 * `GET /healthz` every 50 ms, each on a connection of its own (as a kubelet or load balancer probes), from a
 * process of its own: this one is busy sending the flood, and its own delays must not count as the bot's.
 */
const PROBER = `
const http = require('node:http');
const url = process.argv[1];
const health = { probes: 0, failures: 0, worstMs: 0 };
let stopping = false;
function once() {
  const started = performance.now();
  const done = (ok) => {
    health.probes++;
    if (!ok) health.failures++;
    health.worstMs = Math.max(health.worstMs, performance.now() - started);
    if (stopping) { process.send(health, () => process.exit(0)); return; }
    setTimeout(once, 50);
  };
  const req = http.get(url, { agent: false, timeout: 5000 }, (res) => {
    res.resume();
    res.on('end', () => done(res.statusCode === 200));
    res.on('error', () => done(false));
  });
  req.on('timeout', () => req.destroy());
  req.on('error', () => done(false));
}
process.on('message', () => { stopping = true; });
once();
`;

function startProber(bot: BotProcess): { stop(): Promise<FloodFigures['health']> } {
  const child = spawn(process.execPath, ['-e', PROBER, `${bot.url}/healthz`], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return {
    stop: () =>
      new Promise((resolve, reject) => {
        child.once('message', (health) => resolve(health as FloodFigures['health']));
        child.once('exit', (code) => reject(new Error(`the /healthz prober exited (${code}) without its figures`)));
        child.send('stop');
      }),
  };
}

/** One POST to `/slack/events` on its own connection; resolves with the status, or `reset`. */
function post(bot: BotProcess, headers: Record<string, string>, body: Buffer, chunked: boolean): Promise<string> {
  return new Promise((resolve) => {
    let answered: string | undefined;
    const req = request(
      `${bot.url}/slack/events`,
      { method: 'POST', agent: false, headers },
      (res: IncomingMessage) => {
        answered = String(res.statusCode);
        res.resume();
        res.on('end', () => resolve(answered!));
        res.on('error', () => resolve(answered!));
      },
    );
    req.on('error', () => resolve(answered ?? 'reset'));
    if (!chunked) {
      req.end(body);
      return;
    }
    // Streamed in 64 KB pieces as fast as the connection takes them, until answered.
    let offset = 0;
    const pump = () => {
      while (answered === undefined && offset < body.length) {
        const piece = body.subarray(offset, offset + 64 * 1024);
        offset += piece.length;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

/**
 * Connects `count` sockets that never send a byte, a few hundred at a time (at most 10,000 open at this end),
 * and keeps each until the bot closes it or the flood is over; `refused` = closed before connecting.
 */
async function openSilentSockets(bot: BotProcess, count: number): Promise<{ statuses: string[]; refused: number }> {
  const open = new Set<Socket>();
  let refused = 0;
  const statuses: string[] = [];
  const one = () =>
    new Promise<void>((resolve) => {
      const socket = connect(bot.port, '127.0.0.1');
      let connected = false;
      socket.on('connect', () => {
        connected = true;
        open.add(socket);
        resolve();
      });
      socket.resume();
      socket.on('error', () => undefined);
      socket.on('close', () => {
        if (!connected) {
          refused++;
          resolve();
        } else if (open.delete(socket)) statuses.push('closed by the bot');
      });
    });
  for (let i = 0; i < count; i += 250) {
    while (open.size > 10_000) await sleep(10);
    await Promise.all(Array.from({ length: Math.min(250, count - i) }, one));
  }
  await sleep(1_000);
  for (const socket of [...open]) {
    open.delete(socket);
    statuses.push('still open at the end');
    socket.destroy();
  }
  return { statuses, refused };
}
