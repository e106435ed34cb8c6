/**
 * Everything the store keeps of one workspace, forgotten (the workspace uninstalled the app or revoked its
 * token):
 *
 * 1. its record — API key, hook tokens (webhooks to it are refused from here on);
 * 2. its queue entries and dead letters, with their part of the queue's shared keys;
 * 3. its members of other shared keys: the channels with waiting calls, its timers;
 * 4. every key that belongs to it (`Keys.workspaceOf`: conversations, threads, replies, claims, agent links,
 *    routes, digests, outboxes, marks, caches, attachment links, its installation…), found by one scan of every
 *    master — and with each attachment link, its lookup by token hash.
 *
 * A key added later is covered as long as it is built as a workspace kind in keys.ts. Not here: Slack call
 * budgets, which are keyed by bot token (revoked by now) and expire within seconds.
 */
import type { AttachmentRepo } from './attachments.js';
import { segment, type Keys } from './keys.js';
import type { KeyValueStore } from './kv.js';
import type { EventQueue } from './queue.js';
import type { ChannelOutboxRepo } from './channel-outbox.js';
import type { TimerRepo } from './timers.js';
import type { WorkspaceRepo } from './workspaces.js';

export interface ForgetOptions {
  /** Timer kinds whose timers of the workspace stay (the timer that runs this again, later). */
  keepTimers?: readonly string[];
}

export interface ForgetReport {
  /** Keys of the workspace deleted. */
  keys: number;
  /** Queue entries and dead letters removed. */
  queued: number;
  /** Timers removed. */
  timers: number;
}

interface Parts {
  kv: KeyValueStore;
  keys: Keys;
  workspaces: WorkspaceRepo;
  queue: EventQueue;
  outbox: ChannelOutboxRepo;
  timers: TimerRepo;
  attachments: AttachmentRepo;
}

/** Deletes in rounds of this many keys at once (one DEL each: on a Cluster they live in different slots). */
const DELETE_ROUND = 100;

export async function forgetWorkspace(
  store: Parts,
  teamId: string,
  options: ForgetOptions = {},
): Promise<ForgetReport> {
  const { kv, keys } = store;
  await store.workspaces.clear(teamId);
  const queued = await store.queue.forgetTeam(teamId);
  await store.outbox.forgetTeam(teamId);
  const timers = await store.timers.forgetTeam(teamId, options.keepTimers);
  // The scan narrows to keys holding the team id anywhere; `workspaceOf` keeps exactly the workspace's own.
  const found = await kv.keysWithPrefix(keys.prefix, segment(teamId));
  const own = found.filter((key) => keys.workspaceOf(key) === teamId);
  // Lookups first: one left without its record would still name the workspace.
  own.unshift(...store.attachments.lookupsOf(teamId, own));
  let deleted = 0;
  for (let i = 0; i < own.length; i += DELETE_ROUND) {
    const gone = await Promise.all(own.slice(i, i + DELETE_ROUND).map((key) => kv.del(key)));
    deleted += gone.filter(Boolean).length;
  }
  return { keys: deleted, queued, timers };
}
