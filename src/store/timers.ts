/**
 * Timers kept in the store, so they survive restarts and every replica sees them: per kind (a digest, a
 * quota check, a handoff SLA…) a hash of timer id → due time. Firing is claimed with a lease (`SET NX PX`) on
 * (kind, id, due time), so one replica runs each firing; moving a timer on is conditional on it still being
 * due at the time that fired, so a timer re-set meanwhile (a new customer message) is never overwritten.
 */
import type { Keys } from './keys.js';
import type { KeyValueStore } from './kv.js';

export interface DueTimer {
  id: string;
  dueAt: number;
}

export class TimerRepo {
  constructor(
    private readonly kv: KeyValueStore,
    private readonly keys: Keys,
  ) {}

  /** Sets timer `id` of `kind` to fire at `dueAt` (epoch ms), replacing any earlier due time. */
  async set(kind: string, id: string, dueAt: number): Promise<void> {
    await this.kv.hashSet(this.keys.timers(kind), { [id]: String(Math.trunc(dueAt)) });
  }

  async cancel(kind: string, id: string): Promise<void> {
    await this.kv.hashDel(this.keys.timers(kind), id);
  }

  /** When timer `id` is due; undefined when it is not set. */
  async dueAt(kind: string, id: string): Promise<number | undefined> {
    const value = await this.kv.hashGet(this.keys.timers(kind), id);
    const at = value === null ? NaN : Number(value);
    return Number.isFinite(at) ? at : undefined;
  }

  /** Every timer of `kind` due at `now`, earliest first. */
  async due(kind: string, now: number): Promise<DueTimer[]> {
    const all = await this.kv.hashGetAll(this.keys.timers(kind));
    const due: DueTimer[] = [];
    for (const [id, value] of Object.entries(all)) {
      const dueAt = Number(value);
      if (Number.isFinite(dueAt) && dueAt <= now) due.push({ id, dueAt });
    }
    return due.sort((a, b) => a.dueAt - b.dueAt);
  }

  /** Claims one firing for `leaseMs`; false when another replica has it (or had it and finished). */
  claim(kind: string, timer: DueTimer, owner: string, leaseMs: number): Promise<boolean> {
    return this.kv.set(this.keys.timerLease(kind, timer.id, timer.dueAt), owner, {
      onlyIfAbsent: true,
      ttlMs: leaseMs,
    });
  }

  /** After a firing: the next due time, or none — only while the timer still holds the time that fired. */
  async advance(kind: string, timer: DueTimer, next: number | undefined): Promise<void> {
    const key = this.keys.timers(kind);
    const fired = String(timer.dueAt);
    if (next !== undefined) await this.kv.hashSetIfEqual(key, timer.id, fired, String(Math.trunc(next)));
    else await this.kv.hashDelIfEqual(key, timer.id, fired);
  }
}
