/**
 * What waits for a channel's turn at Slack (src/delivery/scheduler.ts posts it): per channel, entry id → its work in
 * a lane, kept with the event queue (`EventQueue.outboxes`) so it counts toward the workspace's backlog caps; the same
 * entry added twice is kept once. One sorted set holds the channels with waiting work by when each is next due.
 */
import type { Keys } from './keys.js';
import type { KeyValueStore } from './kv.js';
import type { OutboxItems } from './queue.js';
import { segment, unsegment } from './keys.js';

/** What goes out first in a channel: customers (and a person's action), then calls, then what can always wait. */
export const LANES = ['urgent', 'routine', 'bulk'] as const;
export type Lane = (typeof LANES)[number];

/** The work as its lane queued it (JSON), under its queue entry's id (which orders a lane). */
export interface WaitingWork {
  id: string;
  json: string;
}

export interface WaitingItem extends WaitingWork {
  lane: Lane;
}

export interface ChannelRef {
  teamId: string;
  channelId: string;
}

export class ChannelOutboxRepo {
  constructor(
    private readonly kv: KeyValueStore,
    private readonly keys: Keys,
    private readonly items: OutboxItems,
  ) {}

  /** Parks the work in the channel's lane; due now unless due already (it waits, or a replica is posting there). */
  async add(to: ChannelRef, lane: Lane, work: WaitingWork): Promise<void> {
    await this.items.put(to.teamId, to.channelId, work.id, work.json, LANES.indexOf(lane));
    await this.dueAt(to, Date.now(), { unlessDue: true });
  }

  /** How much waits for the channel (every lane). */
  size(at: ChannelRef): Promise<number> {
    return this.items.count(at.teamId, at.channelId);
  }

  /** The channel's first `limit` items: its most urgent lane first, oldest first within a lane. */
  async head(at: ChannelRef, limit: number): Promise<WaitingItem[]> {
    const items = await this.items.head(at.teamId, at.channelId, limit);
    return items.map(({ id, json, rank }) => ({ id, json, lane: LANES[rank] ?? 'bulk' }));
  }

  /** Returns how many were there. */
  async remove(at: ChannelRef, ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    return this.items.remove(at.teamId, at.channelId, ids);
  }

  /** Channels due at `now`, the longest due first: at most `limit`. */
  async due(now: number, limit: number): Promise<ChannelRef[]> {
    return (await this.kv.sortedUpTo(this.keys.outboxDue(), now, limit)).flatMap(({ member }) => refOf(member));
  }

  /** How many channels have waiting work (one count, for metrics). */
  waitingChannels(): Promise<number> {
    return this.kv.sortedCount(this.keys.outboxDue());
  }

  /** Every channel with waiting work (reads the whole due set: for uninstalls and tests, never a post's path). */
  channels(): Promise<ChannelRef[]> {
    return this.due(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  }

  /** When the channel is next due; `unlessDue` leaves a channel that has a due time already as it is. */
  async dueAt(at: ChannelRef, when: number, options: { unlessDue?: boolean } = {}): Promise<void> {
    await this.kv.sortedAdd(this.keys.outboxDue(), [{ member: member(at), score: Math.trunc(when) }], {
      onlyIfAbsent: options.unlessDue ?? false,
    });
  }

  /** Drops the channel from the due set when nothing waits; work added meanwhile is due now, not at a lease's end. */
  async forgetIfEmpty(at: ChannelRef): Promise<void> {
    if ((await this.size(at)) > 0) return this.dueAt(at, Date.now());
    await this.kv.sortedRemove(this.keys.outboxDue(), member(at));
    if ((await this.size(at)) > 0) await this.dueAt(at, Date.now(), { unlessDue: true });
  }

  /** Takes the workspace's channels out of the due set (their waiting work itself is workspace keys). */
  async forgetTeam(teamId: string): Promise<void> {
    const own = (await this.channels()).filter((at) => at.teamId === teamId);
    await this.kv.sortedRemove(this.keys.outboxDue(), ...own.map(member));
  }

  /** The channel's drain lease: one replica at a time posts for a channel. */
  lease(at: ChannelRef): string {
    return this.keys.outboxLease(at.teamId, at.channelId);
  }

  /** The roll-up under way's calls still waiting, in order: written down before it is posted, so a retry covers them. */
  async rollupUnderWay(at: ChannelRef): Promise<WaitingWork[] | undefined> {
    const raw = await this.kv.get(this.keys.callRollup(at.teamId, at.channelId));
    if (raw === null) return undefined;
    const ids = JSON.parse(raw) as string[];
    const found = await this.items.get(at.teamId, at.channelId, ids);
    return ids.flatMap((id) => (found[id] === undefined ? [] : [{ id, json: found[id] }]));
  }

  async startRollup(at: ChannelRef, ids: readonly string[], ttlMs: number): Promise<void> {
    await this.kv.set(this.keys.callRollup(at.teamId, at.channelId), JSON.stringify(ids), { ttlMs });
  }

  /** Removes the items and the roll-up under way (if any). */
  async finishRollup(at: ChannelRef, ids: readonly string[]): Promise<void> {
    await this.remove(at, ids);
    await this.kv.del(this.keys.callRollup(at.teamId, at.channelId));
  }
}

const member = (at: ChannelRef) => `${segment(at.teamId)}:${segment(at.channelId)}`;

function refOf(m: string): ChannelRef[] {
  const [team, channel] = m.split(':');
  return team && channel ? [{ teamId: unsegment(team), channelId: unsegment(channel) }] : [];
}
