/**
 * Timers kept in the store (they survive restarts; every replica sees them): per kind a sorted set of timer ids
 * by due time, so a tick reads only the due ones. A firing is claimed with a lease on (kind, id, due time), and
 * a timer moves on only while it still holds the time that fired, so one re-set meanwhile is never overwritten.
 */
import { timerTeam, type Keys } from './keys.js';
import type { KeyValueStore } from './kv.js';
import type { KeptLease, Leases } from './leases.js';

const DUE_PAGE = 200;

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
    await this.kv.sortedAdd(this.keys.timers(kind), [{ member: id, score: Math.trunc(dueAt) }]);
    const teamId = timerTeam(id);
    if (teamId !== undefined) await this.kv.setAdd(this.keys.timerIndex(teamId), indexed(kind, id));
  }

  async cancel(kind: string, id: string): Promise<void> {
    await this.kv.sortedRemove(this.keys.timers(kind), id);
    await this.unindex(kind, id);
  }

  dueAt(kind: string, id: string): Promise<number | undefined> {
    return this.kv.sortedScore(this.keys.timers(kind), id);
  }

  /** At most `limit` timers of `kind` due at `now` (from `from` on), earliest first: one read of due ones only. */
  async due(kind: string, now: number, limit = DUE_PAGE, from?: number): Promise<DueTimer[]> {
    const page = await this.kv.sortedUpTo(this.keys.timers(kind), now, limit, from);
    return page.map(({ member, score }) => ({ id: member, dueAt: score }));
  }

  /**
   * Every timer of `kind` due at `now`, earliest first, each once, a page at a time. Timers left due stay put, so
   * each page starts at the last due time read, past those already seen: the ones behind a stuck timer are reached.
   */
  async *eachDue(kind: string, now: number, pageSize = DUE_PAGE): AsyncGenerator<DueTimer> {
    let from: number | undefined;
    let seenAtFrom = new Set<string>();
    for (;;) {
      const limit = seenAtFrom.size + pageSize;
      const page = await this.due(kind, now, limit, from);
      for (const timer of page) {
        if (timer.dueAt === from && seenAtFrom.has(timer.id)) continue;
        if (timer.dueAt !== from) [from, seenAtFrom] = [timer.dueAt, new Set()];
        seenAtFrom.add(timer.id);
        yield timer;
      }
      if (page.length < limit) return;
    }
  }

  /** Claims one firing for `leaseMs`; false when another replica has it (or had it and finished). */
  claim(kind: string, timer: DueTimer, owner: string, leaseMs: number): Promise<boolean> {
    return this.leases.claim(this.keys.timerLease(kind, timer.id, timer.dueAt), owner, leaseMs);
  }

  /** Renews a claimed firing's lease while its handler runs. */
  keep(kind: string, timer: DueTimer, owner: string, leaseMs: number): KeptLease {
    return this.leases.keep(this.keys.timerLease(kind, timer.id, timer.dueAt), owner, leaseMs);
  }

  /** Removes every timer of the workspace (from its own index) of every kind but `keep`; returns how many. */
  async forgetTeam(teamId: string, keep: readonly string[] = []): Promise<number> {
    const index = this.keys.timerIndex(teamId);
    let removed = 0;
    for (const member of await this.kv.setMembers(index)) {
      const [kind = '', id = ''] = member.split('\n', 2);
      if (keep.includes(kind)) continue;
      removed += await this.kv.sortedRemove(this.keys.timers(kind), id);
      await this.kv.setRemove(index, member);
    }
    return removed;
  }

  private async unindex(kind: string, id: string): Promise<void> {
    const teamId = timerTeam(id);
    if (teamId !== undefined) await this.kv.setRemove(this.keys.timerIndex(teamId), indexed(kind, id));
  }

  /** After a firing: the next due time, or none — only while the timer still holds the time that fired. */
  async advance(kind: string, timer: DueTimer, next: number | undefined): Promise<void> {
    const key = this.keys.timers(kind);
    if (next !== undefined) await this.kv.sortedSetIfScore(key, timer.id, timer.dueAt, Math.trunc(next));
    else if (await this.kv.sortedRemoveIfScore(key, timer.id, timer.dueAt)) await this.unindex(kind, timer.id);
  }
}

/** A timer in its workspace's index (a kind holds no newline). */
function indexed(kind: string, id: string): string {
  return `${kind}\n${id}`;
}
