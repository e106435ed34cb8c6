/**
 * A sorted set in the process, ordered as Redis orders a ZSET: by score, equal scores by member (their bytes;
 * members here are ASCII, so string order is byte order). Reading the lowest members costs the members read,
 * not the set's size; adding or removing one moves the array's tail (a memmove), never sorts it again.
 */
import type { Scored } from './kv.js';

export class SortedMembers {
  private readonly scores = new Map<string, number>();
  private readonly order: Scored[] = [];

  get size(): number {
    return this.order.length;
  }

  /** True when `member` was new. `onlyIfAbsent`: an existing member stays where it is. */
  add(member: string, score: number, onlyIfAbsent = false): boolean {
    const current = this.scores.get(member);
    if (current !== undefined) {
      if (current === score || onlyIfAbsent) return false;
      this.order.splice(this.indexOf({ member, score: current }), 1);
    }
    this.scores.set(member, score);
    this.order.splice(this.indexOf({ member, score }), 0, { member, score });
    return current === undefined;
  }

  scoreOf(member: string): number | undefined {
    return this.scores.get(member);
  }

  remove(member: string): boolean {
    const score = this.scores.get(member);
    if (score === undefined) return false;
    this.scores.delete(member);
    this.order.splice(this.indexOf({ member, score }), 1);
    return true;
  }

  upTo(maxScore: number, limit: number, minScore = -Infinity): Scored[] {
    const out: Scored[] = [];
    for (let i = this.indexOf({ member: '', score: minScore }); i < this.order.length; i++) {
      const item = this.order[i]!;
      if (out.length >= limit || item.score > maxScore) break;
      out.push({ ...item });
    }
    return out;
  }

  first(limit: number): Scored[] {
    return this.order.slice(0, Math.max(0, limit)).map((item) => ({ ...item }));
  }

  /** Where `item` is or would go (binary search). */
  private indexOf(item: Scored): number {
    let lo = 0;
    let hi = this.order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (before(this.order[mid]!, item)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

function before(a: Scored, b: Scored): boolean {
  return a.score < b.score || (a.score === b.score && a.member < b.member);
}
