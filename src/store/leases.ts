/**
 * The one lease primitive: a key holding its owner's token, taken with `SET NX PX`, renewed and released only by
 * that owner (compare-and-pexpire, compare-and-delete: check and write in one Lua step). Renewed on a timer while
 * its work runs (`keep`), so a killed replica's lease frees within `LEASE_MS`; what a replica that lost its lease
 * sent already is fenced by the post's idempotency key (src/delivery/idempotent-posts.ts).
 */
import type { KeyValueStore } from './kv.js';

/** Renewed every third of it: two missed renewals (a busy event loop, a slow store) are survived. */
export const LEASE_MS = 15_000;

/** A lease kept while its work runs (`Leases.keep`). */
export interface KeptLease {
  /** False once the lease may no longer be this owner's: a renewal found it gone, or none held for its length. */
  held(): boolean;
  /** Stops renewing (resolves once a renewal under way is done); the lease stays until released or expired. */
  stop(): Promise<void>;
  /** Stops renewing and gives the lease up, unless another owner holds it now. */
  end(): Promise<void>;
}

export class Leases {
  constructor(private readonly kv: KeyValueStore) {}

  /** True when `owner` holds `key` for `ttlMs` from now; its own lease counts (a lost answer must not lock it out). */
  async take(key: string, owner: string, ttlMs: number): Promise<boolean> {
    return (await this.claim(key, owner, ttlMs)) || this.renew(key, owner, ttlMs);
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

  /** Renews a lease `owner` has just taken every third of `ttlMs` until stopped or lost; `renewed` after each. */
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
      end: () => stop().then(() => this.release(key, owner)),
    };
  }
}
