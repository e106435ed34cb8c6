/**
 * The in-process queue's dedup marks: (team, dedup key) → until when a second copy is a duplicate. Bounded: at
 * most `DEDUP_MARKS_KEPT` marks, the oldest dropped first (a copy arriving after that many newer events is
 * queued again), so a flood cannot grow the process without end. Marks go in the order they were made, so
 * the expired ones sit at the front and go as new ones come.
 */
const DEDUP_MARKS_KEPT = 100_000;

export class DedupMarks {
  private readonly marks = new Map<string, number>();

  constructor(private readonly kept = DEDUP_MARKS_KEPT) {}

  /** Whether a live mark holds (team, key). */
  holds(teamId: string, key: string, now: number): boolean {
    return (this.marks.get(markOf(teamId, key)) ?? 0) > now;
  }

  /** Marks (team, key) until `expiresAt` unless a live mark holds it already; true when it was not marked. */
  markOnce(teamId: string, key: string, now: number, expiresAt: number): boolean {
    const mark = markOf(teamId, key);
    if ((this.marks.get(mark) ?? 0) > now) return false;
    this.marks.delete(mark);
    this.marks.set(mark, expiresAt);
    for (const [oldest, until] of this.marks) {
      if (until > now && this.marks.size <= this.kept) break;
      this.marks.delete(oldest);
    }
    return true;
  }

  /** Drops every mark of the workspace (it uninstalled the app). */
  forgetTeam(teamId: string): void {
    const start = markOf(teamId, '');
    for (const mark of this.marks.keys()) if (mark.startsWith(start)) this.marks.delete(mark);
  }

  /** Live marks (for tests). */
  size(now: number): number {
    let live = 0;
    for (const until of this.marks.values()) if (until > now) live++;
    return live;
  }
}

function markOf(teamId: string, key: string): string {
  return `${teamId}\u0000${key}`;
}
