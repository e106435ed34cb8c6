/**
 * The in-process queue's dedup marks, kept as the Redis queue keeps them (its `{queue}:marks:<team>` sorted set):
 * per workspace, each event's mark (a digest of its dedup key, `dedupMark`) and when it was made, oldest first.
 * They count toward the workspace's byte cap (`DEDUP_MARK_BYTES` each), which bounds them; what gives way when is
 * the queue's (memory-queue.ts, and ENQUEUE in redis-scripts.ts). A workspace's marks all go a TTL after its
 * newest, as the Redis set expires.
 */
interface TeamMarks {
  /** Mark → when it was made; Map order is the order they were made (the store's clock only moves on). */
  marks: Map<string, number>;
  /** When the newest mark's TTL ends: the whole set goes then. */
  until: number;
}

export class DedupMarks {
  private readonly teams = new Map<string, TeamMarks>();

  /** Whether `mark` was made less than `ttlMs` before `now`. */
  holds(teamId: string, mark: string, now: number, ttlMs: number): boolean {
    const made = this.live(teamId, now)?.marks.get(mark);
    return made !== undefined && made > now - ttlMs;
  }

  /** How many marks the workspace keeps (those past their TTL included, until they are dropped). */
  count(teamId: string, now: number): number {
    return this.live(teamId, now)?.marks.size ?? 0;
  }

  /** Removes up to `upTo` of the workspace's oldest marks made at `atMost` or before; returns how many went. */
  drop(teamId: string, atMost: number, upTo: number, now: number): number {
    const team = this.live(teamId, now);
    let dropped = 0;
    if (!team) return dropped;
    for (const [mark, made] of team.marks) {
      if (dropped >= upTo || made > atMost) break;
      team.marks.delete(mark);
      dropped++;
    }
    if (team.marks.size === 0) this.teams.delete(teamId);
    return dropped;
  }

  /** Marks `mark` at `now` for `ttlMs` (a mark made before is made anew, as the newest). */
  add(teamId: string, mark: string, now: number, ttlMs: number): void {
    let team = this.live(teamId, now);
    if (!team) this.teams.set(teamId, (team = { marks: new Map(), until: 0 }));
    team.marks.delete(mark);
    team.marks.set(mark, now);
    team.until = now + ttlMs;
  }

  /** Removes one mark (an expired one about to be made anew). */
  remove(teamId: string, mark: string): void {
    this.teams.get(teamId)?.marks.delete(mark);
  }

  /** Drops every mark of the workspace (it uninstalled the app). */
  forgetTeam(teamId: string): void {
    this.teams.delete(teamId);
  }

  private live(teamId: string, now: number): TeamMarks | undefined {
    const team = this.teams.get(teamId);
    if (team && team.until <= now) this.teams.delete(teamId);
    return team && team.until > now ? team : undefined;
  }
}
