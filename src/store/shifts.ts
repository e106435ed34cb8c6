/**
 * Who is on shift — taking customer chats now — per workspace (`/campaign shift on|off`), and the workspace's
 * round-robin turn. The roster is a hash (user → since when), so every replica sees the same agents; the turn
 * is one counter raised atomically (INCR), so two replicas assigning at once never take the same turn.
 */
import type { Keys } from './keys.js';
import type { KeyValueStore } from './kv.js';

export interface OnShift {
  user: string;
  /** Epoch ms they went on shift. */
  since: number;
}

export class ShiftRepo {
  constructor(
    private readonly kv: KeyValueStore,
    private readonly keys: Keys,
    private readonly now: () => number,
  ) {}

  /** Puts `user` on shift; false when they already were (their start time is kept). */
  start(teamId: string, user: string): Promise<boolean> {
    return this.kv.hashSetIfAbsent(this.keys.shift(teamId), user, String(this.now()));
  }

  /** Takes `user` off shift; false when they were not on it. */
  async end(teamId: string, user: string): Promise<boolean> {
    return (await this.kv.hashDel(this.keys.shift(teamId), user)) > 0;
  }

  /** Everyone on shift, ordered by user id: the order round-robin turns go through. */
  async onShift(teamId: string): Promise<OnShift[]> {
    const all = await this.kv.hashGetAll(this.keys.shift(teamId));
    return Object.entries(all)
      .map(([user, since]) => ({ user, since: Number(since) || 0 }))
      .sort((a, b) => (a.user < b.user ? -1 : a.user > b.user ? 1 : 0));
  }

  /** The next turn of the workspace's rotation (1, 2, 3…), taken atomically across replicas. */
  nextTurn(teamId: string): Promise<number> {
    return this.kv.incr(this.keys.assignTurn(teamId));
  }
}
