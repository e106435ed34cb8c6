/**
 * How many attachment downloads run at once, per link, per workspace and per process: one link opened by many
 * stalled readers (or one workspace's links) fills its own share, never every other workspace's. Each download
 * holds a socket to Slack and one to the customer, so the process cap bounds both.
 */

export interface DownloadCaps {
  perLink: number;
  perTeam: number;
  perProcess: number;
}

export const DEFAULT_DOWNLOAD_CAPS: DownloadCaps = { perLink: 4, perTeam: 16, perProcess: 64 };

/** Which share was full. */
export type FullShare = 'link' | 'workspace' | 'process';

export class DownloadSlots {
  private process = 0;
  private readonly teams = new Map<string, number>();
  private readonly links = new Map<string, number>();

  constructor(private readonly caps: DownloadCaps) {}

  /** A place in the process's share (taken before the link is even looked up); undefined when full. */
  enterProcess(): (() => void) | undefined {
    if (this.process >= this.caps.perProcess) return undefined;
    this.process++;
    return once(() => this.process--);
  }

  /** A place in the workspace's and the link's shares; the share that is full otherwise. */
  enter(teamId: string, link: string): (() => void) | FullShare {
    if ((this.links.get(link) ?? 0) >= this.caps.perLink) return 'link';
    if ((this.teams.get(teamId) ?? 0) >= this.caps.perTeam) return 'workspace';
    increment(this.links, link, 1);
    increment(this.teams, teamId, 1);
    return once(() => {
      increment(this.links, link, -1);
      increment(this.teams, teamId, -1);
    });
  }

  /** Downloads under way (for the logs). */
  get active(): number {
    return this.process;
  }
}

function increment(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next <= 0) counts.delete(key);
  else counts.set(key, next);
}

function once(release: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    release();
  };
}

/**
 * Downloads that must keep moving: one whose bytes have not moved for `idleMs` (a reader that stopped reading,
 * or Slack that stopped sending) is stopped by a sweep, so a stalled reader cannot keep its place for the whole
 * download's deadline. The sweep runs only while something is watched.
 */
export class IdleWatch {
  private readonly watched = new Set<{ last: number; stop: () => void }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly idleMs: number,
    private readonly now: () => number,
    private readonly sweepMs = Math.min(1_000, idleMs),
  ) {}

  /** Watches one download: `moved` on every chunk, `end` when it is over. */
  watch(stop: () => void): { moved(): void; end(): void } {
    const entry = { last: this.now(), stop };
    this.watched.add(entry);
    this.timer ??= setInterval(() => this.sweep(), this.sweepMs).unref();
    return {
      moved: () => {
        entry.last = this.now();
      },
      end: () => {
        this.watched.delete(entry);
        if (this.watched.size === 0 && this.timer) {
          clearInterval(this.timer);
          this.timer = undefined;
        }
      },
    };
  }

  private sweep(): void {
    const now = this.now();
    for (const entry of this.watched) if (now - entry.last >= this.idleMs) entry.stop();
  }
}
