/**
 * The log output in front of stdout, over a real socket whose reader stops reading: the buffer never grows
 * past its bound, what doesn't fit is dropped and counted, everything kept arrives in order once the reader
 * reads again, followed by one line saying how many were dropped. (The whole process with a stalled stdout
 * is test/faults/stalled-log-reader.test.ts.)
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { afterEach, expect, it } from 'vitest';
import { BoundedLogOutput, LOG_BUFFER_BYTES } from '../../src/log-output.js';
import { eventLoopTurns } from '../support/wait.js';

let cleanup: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanup) c();
  cleanup = [];
});

/** A connected socket pair on loopback; the reading side starts paused (a log reader that stopped reading). */
async function stalledPipe(): Promise<{ writer: Socket; reader: Socket }> {
  const server: Server = createServer({ pauseOnConnect: true });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const writer = connect(port, '127.0.0.1');
  const [reader] = (await once(server, 'connection')) as [Socket];
  await once(writer, 'connect');
  cleanup.push(() => {
    writer.destroy();
    reader.destroy();
    server.close();
  });
  return { writer, reader };
}

const line = (i: number) => `${JSON.stringify({ level: 'info', n: i, msg: 'x'.repeat(480) })}\n`;

it('keeps at most LOG_BUFFER_BYTES for a stalled reader, drops and counts the rest, delivers what it kept in order', async () => {
  const { writer, reader } = await stalledPipe();
  const output = new BoundedLogOutput(writer);
  const LINES = 40_000; // ~20 MB: far more than the kernel's socket buffers and ours together
  let largestBuffer = 0;
  for (let i = 0; i < LINES; i++) {
    output.write(line(i));
    largestBuffer = Math.max(largestBuffer, writer.writableLength);
    if (i % 1_000 === 0) await new Promise((resolve) => setImmediate(resolve)); // let the kernel take what it will
  }
  expect(largestBuffer).toBeLessThanOrEqual(LOG_BUFFER_BYTES);
  expect(output.dropped).toBeGreaterThan(LINES / 2);
  expect(await output.flush(50)).toBe(false); // the reader is stalled: the deadline wins

  let received = '';
  reader.setEncoding('utf8');
  reader.on('data', (chunk: string) => (received += chunk));
  reader.resume();
  expect(await output.flush(5_000)).toBe(true);
  // Everything is handed to the socket: once the writer ends it, the reader has all of it when it sees the end.
  const ended = once(reader, 'end');
  writer.end();
  await ended;
  const lines = received
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { n?: number; dropped?: number; msg: string });
  const kept = lines.filter((l) => l.n !== undefined).map((l) => l.n!);
  expect(kept.length).toBe(LINES - output.dropped);
  expect(kept).toEqual([...kept].sort((a, b) => a - b)); // in order, none twice
  expect(lines.at(-1)).toEqual(
    expect.objectContaining({
      dropped: output.dropped,
      msg: `the log reader fell behind: ${output.dropped} log lines dropped`,
    }),
  );
});

it('drops and counts everything once the reader has gone away, and never throws', async () => {
  const { writer, reader } = await stalledPipe();
  const output = new BoundedLogOutput(writer);
  reader.resetAndDestroy();
  // Writes until the reset arrives (EPIPE / ECONNRESET), letting the event loop turn (and see it) in between.
  while (!writer.destroyed) {
    writer.write('x');
    await eventLoopTurns(1);
  }
  for (let i = 0; i < 100; i++) output.write(line(i));
  expect(output.dropped).toBe(100);
  expect(await output.flush(10)).toBe(true);
});

it('hands the lines of one event-loop turn to the reader in one write, in order, and says when they got there', async () => {
  const writes: string[] = [];
  const out = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      writes.push(chunk.toString('utf8'));
      callback();
    },
  });
  const output = new BoundedLogOutput(out);
  for (let i = 0; i < 100; i++) output.write(line(i));
  expect(output.pending).toBe(100);
  expect(await output.flush(1_000)).toBe(true);
  output.write(line(100));
  expect(await output.flush(1_000)).toBe(true);
  expect(writes).toHaveLength(2);
  const numbers = writes
    .join('')
    .trimEnd()
    .split('\n')
    .map((l) => (JSON.parse(l) as { n: number }).n);
  expect(numbers).toEqual(Array.from({ length: 101 }, (_, i) => i));
  expect(output.pending).toBe(0);
});
