/**
 * Runs the store's timers on every replica: each tick claims each due firing with a lease (renewed while its
 * handler runs) and moves the timer on to the time its handler returns. A handler that throws keeps its timer
 * due: tried again once the lease has expired. Time is the store's clock, so tests move it.
 */
import { hostname } from 'node:os';
import type { Logger } from '../logger.js';
import { LEASE_MS, workspaceTimerTeam, type DueTimer, type Store } from '../store/index.js';

/** Returns when the timer is next due (epoch ms), or undefined to end it. `stop`: aborted when the timers stop. */
export type TimerHandler = (timer: DueTimer, now: number, stop: AbortSignal) => Promise<number | undefined>;

/** Firings of minutes run beside the ticks, at most `total` in the process and `perWorkspace` of one workspace. */
export type Background = { total: number; perWorkspace: number };

export interface TimersOptions {
  /** How often due timers are looked for. Default 15 s. */
  tickMs?: number;
  /** A firing's lease (`LEASE_MS`): a failed or crashed firing is retried after it. */
  leaseMs?: number;
}

export class Timers {
  private readonly handlers = new Map<string, { handler: TimerHandler; background?: Background }>();
  private readonly owner = `${hostname()}:${process.pid}`;
  private interval: NodeJS.Timeout | undefined;
  /** Each kind's pass over its due timers under way, and the kinds asked for again meanwhile. */
  private readonly passes = new Map<string, Promise<number>>();
  private readonly again = new Set<string>();
  private stopping = new AbortController();
  /** Background firings under way in this process: kind and timer id → its workspace and task. */
  private readonly background = new Map<string, { kind: string; team: string | undefined; task: Promise<void> }>();

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly options: TimersOptions = {},
  ) {}

  /** Registers the handler of one kind of timer (one each). */
  on(kind: string, handler: TimerHandler, background?: Background): void {
    if (this.handlers.has(kind)) throw new Error(`a handler for ${kind} timers is registered already`);
    this.handlers.set(kind, { handler, ...(background && { background }) });
  }

  start(): void {
    if (this.interval) return;
    if (this.stopping.signal.aborted) this.stopping = new AbortController();
    this.interval = setInterval(() => void this.runDue(), this.options.tickMs ?? 15_000);
    this.interval.unref();
  }

  /** Stops ticking and ends the background firings under way (their handlers see `stop` aborted). */
  async stop(): Promise<void> {
    clearInterval(this.interval);
    this.interval = undefined;
    this.stopping.abort();
    await Promise.allSettled([...this.passes.values()]);
    while (this.background.size > 0) await Promise.allSettled([...this.background.values()].map((b) => b.task));
  }

  /** Fires the due timers (of `kind`, or every kind); how many this replica fired. A kind's passes never overlap. */
  async runDue(kind?: string): Promise<number> {
    let fired = 0;
    for (const k of kind ? [kind] : this.handlers.keys()) fired += await this.pass(k);
    return fired;
  }

  private pass(kind: string): Promise<number> {
    const running = this.passes.get(kind);
    if (running) {
      this.again.add(kind);
      return running;
    }
    const pass = this.fireDue(kind).finally(() => {
      this.passes.delete(kind);
      if (this.again.delete(kind) && !this.stopping.signal.aborted) void this.pass(kind);
    });
    this.passes.set(kind, pass);
    return pass;
  }

  private async fireDue(kind: string): Promise<number> {
    const { handler, background } = this.handlers.get(kind)!;
    let fired = 0;
    try {
      const now = this.store.now();
      for await (const timer of this.store.timers.eachDue(kind, now)) {
        if (this.stopping.signal.aborted) break;
        const team = workspaceTimerTeam(timer.id);
        const id = `${kind} ${timer.id}`;
        if (background) {
          const mine = [...this.background.values()].filter((b) => b.kind === kind);
          if (mine.length >= background.total) break;
          const ofTeam = mine.filter((b) => b.team === team).length;
          if (this.background.has(id) || ofTeam >= background.perWorkspace) continue;
        }
        const leaseMs = this.options.leaseMs ?? LEASE_MS;
        if (!(await this.store.timers.claim(kind, timer, this.owner, leaseMs))) continue;
        fired++;
        const firing = (async () => {
          const kept = this.store.timers.keep(kind, timer, this.owner, leaseMs);
          try {
            await this.store.timers.advance(kind, timer, await handler(timer, now, this.stopping.signal));
          } catch (err) {
            this.logger.error({ err, kind, timer: timer.id }, 'a timer failed; it is tried again after its lease');
          } finally {
            await kept.stop();
          }
        })();
        if (!background) await firing;
        else {
          const task = firing.finally(() => {
            this.background.delete(id);
            // A slot is free: a firing passed over may take it now.
            if (!this.stopping.signal.aborted) void this.pass(kind);
          });
          this.background.set(id, { kind, team, task });
        }
      }
    } catch (err) {
      this.logger.warn({ err, kind }, 'could not read due timers (store unreachable?); trying again next tick');
    }
    return fired;
  }
}
