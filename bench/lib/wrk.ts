/**
 * `wrk` (a native load generator, Debian package `wrk`) for the throughput figures: a Node generator on this
 * 2-core machine tops out near 11k req/s and would measure itself. Every request carries a distinct call id
 * (spliced into a body built once, in wrk's Lua), statuses are counted per code, latencies come from wrk's
 * own histogram, as wrk reports them and with its coordinated-omission correction taken out. Installed with `apt-get install -y wrk` when missing and allowed (root), else an error.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { callBodyParts } from './events.js';

const run = promisify(execFile);

export interface WrkResult {
  /** Requests completed per second (any status). */
  rps: number;
  total: number;
  statuses: Record<string, number>;
  /** Socket errors and timeouts (wrk's connect/read/write/timeout). */
  errors: number;
  /** wrk's own figures: its histogram with its coordinated-omission correction (see the Lua's `timed`). */
  p50: number;
  p99: number;
  max: number;
  /** Every answer as it was timed: wrk's histogram with the correction taken out. */
  timed: { p50: number; p99: number };
}

function has(binary: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${binary}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Makes sure `wrk` is on PATH (installing the Debian package when it is not and this process may). */
export function ensureWrk(): void {
  if (has('wrk')) return;
  if (process.getuid?.() !== 0 || !has('apt-get'))
    throw new Error('wrk is not installed: apt-get install -y wrk (or your system’s package)');
  console.log('  installing wrk (apt-get install -y wrk)…');
  try {
    execFileSync('apt-get', ['install', '-y', 'wrk'], { stdio: 'ignore' });
  } catch {
    execFileSync('apt-get', ['update'], { stdio: 'ignore' });
    execFileSync('apt-get', ['install', '-y', 'wrk'], { stdio: 'ignore' });
  }
}

/**
 * Lua for wrk: distinct bodies, per-status counts gathered from every thread, one JSON line at the end. With
 * `delayMs`, each connection waits about that long after an answer before its next request (a steady rate):
 * a pause drawn evenly from ½–1½ × `delayMs`, so the connections drift apart instead of all sending at the
 * same instant (a fixed pause keeps every connection in step: bursts of `connections` requests at once, not
 * a steady rate).
 */
function script(prefix: string, connections: number, delayMs?: number): string {
  const [head, middle, tail] = callBodyParts();
  const long = (s: string) => {
    if (s.includes(']==]')) throw new Error('body part cannot be a Lua long string');
    return `[==[${s}]==]`;
  };
  return `
local head, middle, tail = ${long(head)}, ${long(middle)}, ${long(tail)}
local prefix = ${long(prefix)}
local connections = ${connections}
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local threads = {}
function setup(thread)
  thread:set("tid", #threads)
  table.insert(threads, thread)
end
local n = 0
statuses = {}
function request()
  n = n + 1
  local id = prefix .. tid .. "-" .. n
  return wrk.format(nil, nil, nil, head .. id .. middle .. id .. tail)
end
${
  delayMs === undefined
    ? ''
    : `function init() math.randomseed(tid * 7919 + 17) end
function delay() return math.random(${Math.round(delayMs / 2)}, ${Math.round((delayMs * 3) / 2)}) end`
}
function response(status)
  statuses[status] = (statuses[status] or 0) + 1
end
-- wrk corrects its latency histogram for coordinated omission before done() sees it (stats_correct in
-- wg/wrk src/wrk.c and src/stats.c): every answer that took n >= 2e, where e = duration / (requests /
-- connections) is a connection's mean interval, adds made-up samples at n - e, n - 2e, ... down to e. Those
-- come only from real samples above them, so walking down from the top takes them out again exactly: what
-- is left is every answer as it was timed.
local function timed(latency, summary)
  local per = math.floor(summary.requests / connections)
  local e = per > 0 and math.floor(summary.duration / per) or 0
  local values, real, made = {}, {}, {}
  for i = 1, #latency do
    local v, c = latency(i)
    values[i] = v
    real[v] = c
  end
  local total = 0
  for i = #values, 1, -1 do
    local v = values[i]
    local c = real[v] - (made[v] or 0)
    real[v] = c
    total = total + c
    if e > 0 and v >= 2 * e and c > 0 then
      local m = v - e
      while m > e do
        made[m] = (made[m] or 0) + c
        m = m - e
      end
    end
  end
  local function percentile(p)
    local rank, seen = math.floor(p / 100 * total + 1), 0
    for _, v in ipairs(values) do
      seen = seen + real[v]
      if seen >= rank then return v end
    end
    return 0
  end
  return percentile(50), percentile(99)
end
function done(summary, latency)
  local codes = {}
  for _, t in ipairs(threads) do
    for code, count in pairs(t:get("statuses")) do codes[#codes + 1] = string.format('"%d":%d', code, count) end
  end
  local e = summary.errors
  local p50, p99 = timed(latency, summary)
  io.write(string.format('WRK {"requests":%d,"us":%d,"errors":%d,"p50":%d,"p99":%d,"max":%d,"timed":{"p50":%d,"p99":%d},"statuses":{%s}}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max, p50, p99, table.concat(codes, ",")))
end
`;
}

/**
 * POSTs distinct call_completed deliveries at `url` as fast as they are answered, or with `rate` at about
 * that many per second: each connection sends one every connections/rate seconds (a little less often, by
 * the time its answers take — `rps` says what was achieved; latencies count from each request's send).
 */
export async function wrk(opts: {
  url: string;
  prefix: string;
  connections: number;
  durationS: number;
  threads?: number;
  rate?: number;
}): Promise<WrkResult> {
  const dir = mkdtempSync(join(tmpdir(), 'campaign-wrk-'));
  try {
    const file = join(dir, 'post.lua');
    writeFileSync(
      file,
      script(opts.prefix, opts.connections, opts.rate ? (opts.connections * 1000) / opts.rate : undefined),
    );
    const args = [
      '-t',
      String(opts.threads ?? 1),
      '-c',
      String(opts.connections),
      '-d',
      `${opts.durationS}s`,
      '--timeout',
      '10s',
      '-s',
      file,
      opts.url,
    ];
    const { stdout } = await run('wrk', args, { maxBuffer: 1024 * 1024 });
    const line = stdout.split('\n').find((l) => l.startsWith('WRK '));
    if (!line) throw new Error(`wrk printed no summary:\n${stdout}`);
    const r = JSON.parse(line.slice(4)) as {
      requests: number;
      us: number;
      errors: number;
      p50: number;
      p99: number;
      max: number;
      timed: { p50: number; p99: number };
      statuses: Record<string, number>;
    };
    // Completed requests only: wrk counts one it gave up on as an error, not as a status.
    const total = Object.values(r.statuses).reduce((a, b) => a + b, 0);
    return {
      rps: total / (r.us / 1e6),
      total,
      statuses: r.statuses,
      errors: r.errors,
      p50: r.p50 / 1000,
      p99: r.p99 / 1000,
      max: r.max / 1000,
      timed: { p50: r.timed.p50 / 1000, p99: r.timed.p99 / 1000 },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
