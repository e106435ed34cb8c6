/**
 * Runs the store's timers (`TimerRepo`) on every replica: each tick takes the due timers of every kind a
 * feature registered, claims each firing with a lease so one replica runs it, and moves the timer on to the
 * time its handler returns (or ends it). A handler that throws keeps its timer due: the firing is tried
 * again once the lease has expired. Time comes from the store's clock, so tests move it instead of waiting.
 */
import { hostname } from 'node:os';
import type { Logger } from '../logger.js';
import { LEASE_MS, type DueTimer, type Store } from '../store/index.js';

/** Returns when the timer is next due (epoch ms), or undefined to end it. */
export type TimerHandler = (timer: DueTimer, now: number) => Promise<number | undefined>;

export interface TimersOptions {
  /** How often due timers are looked for. Default 15 s (digests are to the minute, SLAs to 5 minutes). */
  tickMs?: number;
  /** A firing's lease, renewed while its handler runs; a failed or crashed one is retried after it. `LEASE_MS`. */
  leaseMs?: number;
}

export class Timers {
  private readonly handlers = new Map<string, TimerHandler>();
  private readonly owner = `${hostname()}:${process.pid}`;
  private interval: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly options: TimersOptions = {},
  ) {}

  /** Registers the handler of one kind of timer (one each). */
  on(kind: string, handler: TimerHandler): void {
    if (this.handlers.has(kind)) throw new Error(`a handler for ${kind} timers is registered already`);
    this.handlers.set(kind, handler);
  }

  start(): void {
    if (this.interval) return;
    this.interval = setInterval(() => void this.runDue(), this.options.tickMs ?? 15_000);
    this.interval.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.interval);
    this.interval = undefined;
    await this.running;
  }

  /** Fires every due timer once (one tick); resolves with how many this replica fired. Ticks never overlap. */
  runDue(): Promise<number> {
    this.running ??= this.tick().finally(() => (this.running = undefined));
    return this.running;
  }

  private async tick(): Promise<number> {
    let fired = 0;
    for (const [kind, handler] of this.handlers) {
      try {
        const now = this.store.now();
        for await (const timer of this.store.timers.eachDue(kind, now)) {
          const leaseMs = this.options.leaseMs ?? LEASE_MS;
          if (!(await this.store.timers.claim(kind, timer, this.owner, leaseMs))) continue;
          fired++;
          const kept = this.store.timers.keep(kind, timer, this.owner, leaseMs);
          try {
            await this.store.timers.advance(kind, timer, await handler(timer, now));
          } catch (err) {
            this.logger.error({ err, kind, timer: timer.id }, 'a timer failed; it is tried again after its lease');
          } finally {
            await kept.stop();
          }
        }
      } catch (err) {
        this.logger.warn({ err, kind }, 'could not read due timers (store unreachable?); trying again next tick');
      }
    }
    return fired;
  }
}
