/**
 * Timers kept in the store, so they survive restarts and every replica sees them: per kind (a digest, a
 * quota check, a handoff SLA…) a hash of timer id → due time. Firing is claimed with a lease (`SET NX PX`) on
 * (kind, id, due time), so one replica runs each firing; moving a timer on is conditional on it still being
 * due at the time that fired, so a timer re-set meanwhile (a new customer message) is never overwritten.
 */
import { timerTeam, type Keys } from './keys.js';
import type { KeyValueStore } from './kv.js';
import type { Leases } from './leases.js';

export interface DueTimer {
  id: string;
  dueAt: number;
}

export class TimerRepo {
  constructor(
    private readonly kv: KeyValueStore,
    private readonly keys: Keys,
    private readonly leases: Leases,
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
    return this.leases.claim(this.lease(kind, timer), owner, leaseMs);
  }

  /**
   * Removes every timer of the workspace (ids made by `timerId`), of every kind but `keep`; returns how many.
   * The kinds are found by a scan: a kind added later is covered without being named here.
   */
  async forgetTeam(teamId: string, keep: readonly string[] = []): Promise<number> {
    const kept = new Set(keep.map((kind) => this.keys.timers(kind)));
    let removed = 0;
    for (const key of await this.kv.keysWithPrefix(this.keys.kindPrefix('timers'))) {
      if (kept.has(key)) continue;
      const ids = Object.keys(await this.kv.hashGetAll(key)).filter((id) => timerTeam(id) === teamId);
      removed += await this.kv.hashDel(key, ...ids);
    }
    return removed;
  }

  /**
   * Gives a firing's lease back, unless it expired and another replica holds it: for timers fired often (a
   * transfer waiting its turn every few seconds), whose leases would otherwise pile up until they expire.
   */
  async release(kind: string, timer: DueTimer, owner: string): Promise<void> {
    await this.leases.release(this.lease(kind, timer), owner);
  }

  /** The lease key of one firing (a firing is claimed once; its lease is never renewed). */
  private lease(kind: string, timer: DueTimer): string {
    return this.keys.timerLease(kind, timer.id, timer.dueAt);
  }

  /** After a firing: the next due time, or none — only while the timer still holds the time that fired. */
  async advance(kind: string, timer: DueTimer, next: number | undefined): Promise<void> {
    const key = this.keys.timers(kind);
    const fired = String(timer.dueAt);
    if (next !== undefined) await this.kv.hashSetIfEqual(key, timer.id, fired, String(Math.trunc(next)));
    else await this.kv.hashDelIfEqual(key, timer.id, fired);
  }
}
