import type { Keys } from './keys.js';
import type { KeyValueStore } from './kv.js';

/** A workspace's "have we seen this before?" marks with a TTL, e.g. for Slack event retries (`x-slack-retry-num`). */
export class Dedup {
  constructor(
    private readonly kv: KeyValueStore,
    private readonly keys: Keys,
  ) {}

  /** True the first time (team, scope, id) is marked within `ttlMs`, false for every repeat (SET NX PX). */
  markOnce(teamId: string, scope: string, id: string, ttlMs: number): Promise<boolean> {
    return this.kv.set(this.keys.dedup(teamId, scope, id), '1', { ttlMs, onlyIfAbsent: true });
  }
}
