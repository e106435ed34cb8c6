/**
 * Why not sonic-boom: it writes fd 1 with `fs.write` in libuv's threadpool. With a reader that stopped reading, a
 * pipe left blocking (nothing opened `process.stdout`) holds a pool thread in write(2), and `process.exit()` then
 * waits for that thread (measured, Node 20, sonic-boom 4.2: a child whose parent stopped reading never exited; with
 * `process.stdout` opened first, making the pipe non-blocking, it exited at once). Its `flush()` does not wait unless
 * lines are held back (`minLength`), and pino's `fatal()` calls its `flushSync()`, which retries a full pipe in a
 * sleeping loop on the event loop. Node's stdout stream (non-blocking, libuv), bounded here, has none of these.
 *
 * Where log lines go: stdout through a bounded buffer that never blocks the process.
 *
 * A log reader that stops reading (a stuck log shipper) must not hold the bot hostage: writes to stdout go
 * through libuv without blocking, at most `LOG_BUFFER_BYTES` wait for the reader, and lines beyond that are
 * dropped and counted (`campaign_log_lines_dropped_total`). When the reader catches up, one line says how
 * many were dropped. On shutdown the buffer gets a deadline to drain (`flush`); nothing here ever waits
 * synchronously, so the exit always happens. The process makes one, in src/bot/main.ts (`stdoutLogOutput`).
 */
import type { Writable } from 'node:stream';

/** Log bytes kept for a reader that fell behind; past this, lines are dropped. */
export const LOG_BUFFER_BYTES = 1024 * 1024;

export class BoundedLogOutput {
  /** Lines dropped since start because the reader fell behind (or went away). */
  dropped = 0;
  /** Lines accepted and not yet handed to the operating system. */
  pending = 0;
  private droppedUnreported = 0;
  private readerGone = false;
  private idle: Array<() => void> = [];
  /** Lines of this event-loop turn, written together at its end: one write for many lines. */
  private batch: string[] = [];
  private batchBytes = 0;

  constructor(
    private readonly out: Writable,
    private readonly maxBytes = LOG_BUFFER_BYTES,
  ) {
    // EPIPE and the like: nobody will ever read what follows, so it is dropped (and counted) from now on.
    out.on('error', () => {
      this.readerGone = true;
    });
    // Only emitted after a write found the buffer over its high-water mark, which every drop implies.
    out.on('drain', () => this.reportDrops());
  }

  write(line: string): void {
    const bytes = Buffer.byteLength(line);
    if (this.readerGone || this.out.writableLength + this.batchBytes + bytes > this.maxBytes) {
      this.dropped++;
      this.droppedUnreported++;
      return;
    }
    this.pending++;
    this.batch.push(line);
    this.batchBytes += bytes;
    if (this.batch.length === 1) setImmediate(this.writeBatch);
  }

  /** Hands the turn's lines over now; also at exit, where stdout to a file or pipe is written synchronously. */
  readonly writeBatch = (): void => {
    const lines = this.batch;
    if (lines.length === 0) return;
    this.batch = [];
    this.batchBytes = 0;
    this.out.write(lines.length === 1 ? lines[0]! : lines.join(''), () => this.written(lines.length));
  };

  /** Resolves true once every accepted line reached the operating system, false if `timeoutMs` passed first. */
  flush(timeoutMs: number): Promise<boolean> {
    if (this.pending === 0 || this.readerGone) return Promise.resolve(this.pending === 0);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(
        () => {
          this.idle = this.idle.filter((f) => f !== done);
          resolve(false);
        },
        Math.max(0, timeoutMs),
      );
      this.idle.push(done);
    });
  }

  private written(lines: number): void {
    this.pending -= lines;
    if (this.pending > 0) return;
    const waiting = this.idle;
    this.idle = [];
    for (const resolve of waiting) resolve();
  }

  private reportDrops(): void {
    if (this.droppedUnreported === 0 || this.readerGone) return;
    const count = this.droppedUnreported;
    this.droppedUnreported = 0;
    this.write(
      `${JSON.stringify({ level: 'warn', time: new Date().toISOString(), dropped: count, msg: `the log reader fell behind: ${count} log lines dropped` })}\n`,
    );
  }
}

/** The process's stdout as a bounded log output: made once, by the entry point, for every logger of the process. */
export function stdoutLogOutput(): BoundedLogOutput {
  const output = new BoundedLogOutput(process.stdout);
  // The last lines before an exit (a crash's own) are written rather than left in the turn's batch.
  process.once('exit', output.writeBatch);
  return output;
}
