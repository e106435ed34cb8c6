/**
 * Turns per workspace: at most `concurrency` requests of one workspace at once; the next ones wait, first come
 * first served, in a bounded list and for a bounded time. It shares out this process's connections to the
 * platform, so it lives in memory: each replica has its own (N replicas let a workspace run N × concurrency).
 */

export interface TurnLimits {
  /** Requests of one workspace running at once. */
  concurrency: number;
  /** Requests of one workspace that may wait beyond those; the next one is refused at once. */
  maxWaiting: number;
  /** How long a request may wait for its turn before it is refused. */
  maxWaitMs: number;
}

/** `full`: the waiting list was full; `waited`: the turn did not come in time; `closed`: shutting down. */
export type TurnRefusal = 'full' | 'waited' | 'closed';

export class TurnRefused extends Error {
  override name = 'TurnRefused';
  constructor(readonly reason: TurnRefusal) {
    super(`no turn: ${reason}`);
  }
}

/** Gives the turn back; calling it again does nothing. */
export type Release = () => void;

interface Waiter {
  grant: (release: Release) => void;
  refuse: (err: TurnRefused) => void;
  timer: NodeJS.Timeout;
}

interface Line {
  running: number;
  /** First come, first served; never longer than `maxWaiting`. */
  waiting: Waiter[];
}

export class KeyedTurns {
  readonly #lines = new Map<string, Line>();
  #closed = false;

  constructor(readonly limits: TurnLimits) {}

  /**
   * Resolves with a `Release` once it is this caller's turn for `key`. When it must wait, `onWait` is told at
   * once how many are ahead (running or waiting before it); it rejects with `TurnRefused` when the waiting
   * list is full or the turn does not come within `maxWaitMs`.
   */
  take(key: string, onWait?: (ahead: number) => void): Promise<Release> {
    if (this.#closed) return Promise.reject(new TurnRefused('closed'));
    let line = this.#lines.get(key);
    if (!line) {
      line = { running: 0, waiting: [] };
      this.#lines.set(key, line);
    }
    if (line.running < this.limits.concurrency) {
      line.running += 1;
      return Promise.resolve(this.#releaser(key, line));
    }
    if (line.waiting.length >= this.limits.maxWaiting) return Promise.reject(new TurnRefused('full'));
    const ahead = line.running + line.waiting.length;
    const waitingLine = line;
    const turn = new Promise<Release>((grant, refuse) => {
      const waiter: Waiter = {
        grant,
        refuse,
        timer: setTimeout(() => {
          const at = waitingLine.waiting.indexOf(waiter);
          if (at >= 0) waitingLine.waiting.splice(at, 1);
          this.#forgetIfIdle(key, waitingLine);
          refuse(new TurnRefused('waited'));
        }, this.limits.maxWaitMs),
      };
      waitingLine.waiting.push(waiter);
    });
    try {
      onWait?.(ahead);
    } catch {
      // A listener that fails (telling the user) must not cost the request its place.
    }
    return turn;
  }

  /** Refuses every waiting request (`closed`) and any later one; running ones finish. */
  close(): void {
    this.#closed = true;
    for (const line of this.#lines.values()) {
      for (const waiter of line.waiting.splice(0)) {
        clearTimeout(waiter.timer);
        waiter.refuse(new TurnRefused('closed'));
      }
    }
  }

  /** Running and waiting requests for `key` (what an operator or a test looks at). */
  load(key: string): { running: number; waiting: number } {
    const line = this.#lines.get(key);
    return { running: line?.running ?? 0, waiting: line?.waiting.length ?? 0 };
  }

  #releaser(key: string, line: Line): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = line.waiting.shift();
      if (next) {
        // The turn passes straight on: `running` stays as it is.
        clearTimeout(next.timer);
        next.grant(this.#releaser(key, line));
        return;
      }
      line.running -= 1;
      this.#forgetIfIdle(key, line);
    };
  }

  /** A workspace with nothing running or waiting leaves no entry behind. */
  #forgetIfIdle(key: string, line: Line): void {
    if (line.running === 0 && line.waiting.length === 0 && this.#lines.get(key) === line) this.#lines.delete(key);
  }
}
