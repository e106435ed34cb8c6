/**
 * Resolving a handoff conversation's thread: someone marked it done. It stays open on the platform (replies
 * still reach the customer) but leaves the workspace's open-threads index (`/campaign handoffs`, App Home)
 * and its wait ends. The customer's next message — or a **Reopen** — brings it back. Both are
 * compare-and-set on the thread's `resolvedBy` field, so two presses, or a press and a customer message at
 * once, resolve or reopen it once.
 */
import type { Keys } from './keys.js';
import type { KeyValueStore } from './kv.js';
import { openMember } from './conversations.js';

/** Refused: someone resolved it already (`resolvedBy`), or the thread is no longer on record. */
export type ResolveResult = { ok: true } | { ok: false; resolvedBy?: string };

export interface Resolution {
  by: string;
  /** Epoch ms; absent on a record that lost it. */
  at?: number;
}

export class ResolutionRepo {
  constructor(
    private readonly kv: KeyValueStore,
    private readonly keys: Keys,
  ) {}

  /** Marks the thread resolved by `userId` at `at`; refused when someone resolved it already. */
  async resolve(
    teamId: string,
    channelId: string,
    threadTs: string,
    userId: string,
    at: number,
  ): Promise<ResolveResult> {
    const key = this.keys.thread(teamId, channelId, threadTs);
    // Never a thread record made of this field alone (it would have no expiry).
    if ((await this.kv.hashGet(key, 'campaignId')) === null) return { ok: false };
    if (!(await this.kv.hashSetIfAbsent(key, 'resolvedBy', userId))) {
      const by = await this.kv.hashGet(key, 'resolvedBy');
      return by ? { ok: false, resolvedBy: by } : { ok: false };
    }
    await this.kv.hashSet(key, { resolvedAt: String(Math.trunc(at)) });
    // Nobody waits for an answer in a resolved conversation: no wait on the card, no nudge.
    await this.kv.hashDel(key, 'waitingSince', 'nudgedFor');
    await this.kv.setRemove(this.keys.openThreads(teamId), openMember(channelId, threadTs));
    return { ok: true };
  }

  /** Reopens a resolved thread; returns who had resolved it (undefined when it was not resolved). */
  async reopen(teamId: string, channelId: string, threadTs: string): Promise<Resolution | undefined> {
    const key = this.keys.thread(teamId, channelId, threadTs);
    const [by, at] = await this.kv.hashGetMany(key, ['resolvedBy', 'resolvedAt']);
    if (!by || !(await this.kv.hashDelIfEqual(key, 'resolvedBy', by))) return undefined;
    await this.kv.hashDel(key, 'resolvedAt');
    await this.kv.setAdd(this.keys.openThreads(teamId), openMember(channelId, threadTs));
    const when = Number(at);
    return Number.isFinite(when) && at ? { by, at: when } : { by };
  }
}
