/**
 * The one lease primitive: a key holding its owner's token, taken with `SET NX PX`, renewed and released only
 * by that owner (compare-and-pexpire, compare-and-delete: the owner check and the write in one Lua step on
 * Redis). A replica whose lease expired while it was busy can neither extend nor delete the lease another
 * replica holds now.
 *
 * Leases are short and renewed on a timer while their work runs (`keep`), as BullMQ keeps a job's lock: a
 * replica killed mid-work frees its lease within `LEASE_MS`, and one that finds its lease gone (`held`) stops
 * before its next post. What it sent already is fenced by the post's idempotency key (src/delivery/idempotent-posts.ts):
 * a post whose outcome is unknown is looked up in Slack before it is sent again.
 */
import type { KeyValueStore } from './kv.js';

/**
 * How long a lease lasts unless renewed: `keep` renews it every third of that, so two missed renewals (a busy
 * event loop, a slow store) are survived and a killed replica's work is taken on within 15 s.
 */
export const LEASE_MS = 15_000;

/** A lease kept while its work runs (`Leases.keep`). */
export interface KeptLease {
  /**
   * False once the lease may no longer be this owner's: a renewal found it gone, or none held for its length (a
   * frozen process learns it here before its next post, not at the next beat).
   */
  held(): boolean;
  /** Stops renewing (resolves once a renewal under way is done); the lease stays until released or expired. */
  stop(): Promise<void>;
  /** Stops renewing and gives the lease up, unless another owner holds it now. */
  end(): Promise<void>;
}

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

  /** Who holds `key` now; null when nobody does. */
  holder(key: string): Promise<string | null> {
    return this.kv.get(key);
  }

  /** Gives the lease up, unless it expired and another replica holds it. */
  async release(key: string, owner: string): Promise<void> {
    await this.kv.delIfEqual(key, owner);
  }

  /**
   * Renews a lease `owner` has just taken every third of `ttlMs` until stopped; `renewed` runs after each renewal
   * that held. Once a renewal finds the lease gone, renewals stop and `held` answers false.
   */
  keep(key: string, owner: string, ttlMs: number, renewed?: () => Promise<unknown>): KeptLease {
    let lost = false;
    let heldAt = Date.now();
    let renewing: Promise<void> | undefined;
    const beat = async () => {
      try {
        if (!(await this.renew(key, owner, ttlMs))) lost = true;
        else {
          heldAt = Date.now();
          await renewed?.();
        }
      } catch {
        // The store did not answer: tried again at the next beat, unless the lease may have run out by now.
        if (Date.now() - heldAt >= ttlMs) lost = true;
      }
      if (lost) clearInterval(timer);
    };
    const timer = setInterval(() => {
      renewing ??= beat().finally(() => (renewing = undefined));
    }, ttlMs / 3);
    timer.unref();
    const stop = async () => {
      clearInterval(timer);
      await renewing;
    };
    return {
      held: () => !lost && Date.now() - heldAt < ttlMs,
      stop,
      end: async () => {
        await stop();
        await this.release(key, owner);
      },
    };
  }
}
