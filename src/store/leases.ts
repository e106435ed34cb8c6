/**
 * The one lease primitive: a key holding its owner's token, taken with `SET NX PX`, renewed and released only
 * by that owner (compare-and-pexpire, compare-and-delete: the owner check and the write in one Lua step on
 * Redis). A replica whose lease expired while it was busy can neither extend nor delete the lease another
 * replica holds now; it learns it lost the lease from `renew` answering false, and stops.
 *
 * Every lease of the bot goes through here: a channel's drain (the call outbox), a timer's firing, a step.
 * What a holder does after losing its lease mid-post is fenced by the post's idempotency key (src/slack/
 * post.ts): a post whose outcome is unknown is looked up in Slack before it is sent again.
 */
import type { KeyValueStore } from './kv.js';

export class Leases {
  constructor(private readonly kv: KeyValueStore) {}

  /**
   * True when `owner` holds `key` for `ttlMs` from now. A lease `owner` holds already counts as taken (and is
   * extended): a take whose answer was lost (Redis answered late) must not lock its own owner out.
   */
  async take(key: string, owner: string, ttlMs: number): Promise<boolean> {
    if (await this.kv.set(key, owner, { onlyIfAbsent: true, ttlMs })) return true;
    return this.kv.expireIfEqual(key, owner, ttlMs);
  }

  /** Takes a lease nobody holds, its own owner included: a firing claimed once, retried only after it expires. */
  claim(key: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.kv.set(key, owner, { onlyIfAbsent: true, ttlMs });
  }

  /** Extends the lease while `owner` still holds it; false when it expired (another replica may hold it now). */
  renew(key: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.kv.expireIfEqual(key, owner, ttlMs);
  }

  /** Gives the lease up, unless it expired and another replica holds it. */
  async release(key: string, owner: string): Promise<void> {
    await this.kv.delIfEqual(key, owner);
  }
}
