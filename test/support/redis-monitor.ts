/**
 * Redis MONITOR over a plain socket, its lines as they come: a client library's parser can mistake the first
 * monitored lines of a busy server (other test files share it) for the answer to MONITOR itself — ioredis then
 * fails with "Command queue state error".
 */
import { once } from 'node:events';
import { connect } from 'node:net';
import { waitFor } from './wait.js';

export interface RedisMonitor {
  /** Every line so far: `+<time> [<db> <client>] "command" "arg"…`. */
  lines: string[];
  close(): void;
}

export async function monitorRedis(url: string): Promise<RedisMonitor> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port || 6379), hostname);
  const lines: string[] = [];
  let rest = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\r\n');
    rest = parts.pop() ?? '';
    lines.push(...parts);
  });
  await once(socket, 'connect');
  socket.write('MONITOR\r\n');
  await waitFor(() => lines.includes('+OK'), 'MONITOR to start');
  return { lines, close: () => socket.destroy() };
}

/** A monitored line's command and arguments (MONITOR quotes each and escapes `"` and `\` inside). */
export function monitoredArgs(line: string): string[] {
  const args: string[] = [];
  for (const m of line.matchAll(/"((?:[^"\\]|\\.)*)"/g)) args.push(m[1]!.replace(/\\(.)/g, '$1'));
  return args;
}
