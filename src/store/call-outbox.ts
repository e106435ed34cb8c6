/**
 * Call notifications waiting for their channel (see src/events/call-outbox.ts, which posts them at Slack's
 * pace). Per (workspace, channel): queue entry id → the event as JSON, parked with the event queue
 * (`EventQueue.parked`), so they count toward the workspace's backlog caps (events and bytes) until posted or
 * given up — and adding the same entry twice (a retried queue entry) keeps one copy. A set lists the channels
 * that may hold calls; a short lease makes one replica at a time post for a channel; the ids of a roll-up under
 * way are kept, so a roll-up that is tried again covers the same calls and is never posted twice.
 */
import type { Keys } from './keys.js';
import type { KeyValueStore } from './kv.js';
import { compareEntryIds } from './queue-backend.js';
import type { ParkedWork } from './queue.js';
import { segment, unsegment } from './keys.js';

export interface WaitingCall {
  /** The queue entry's id (orders the calls of a channel). */
  id: string;
  /** The event as its handler queued it (JSON). */
  json: string;
}

export interface ChannelRef {
  teamId: string;
  channelId: string;
}

export class CallOutboxRepo {
  constructor(
    private readonly kv: KeyValueStore,
    private readonly keys: Keys,
    private readonly parked: ParkedWork,
  ) {}

  async add(to: ChannelRef, call: WaitingCall): Promise<void> {
    await this.parked.put(to.teamId, to.channelId, call.id, call.json);
    await this.kv.setAdd(this.keys.callOutboxChannels(), member(to));
  }

  /** How many calls wait for the channel. */
  size(at: ChannelRef): Promise<number> {
    return this.parked.count(at.teamId, at.channelId);
  }

  /** Channels that may hold waiting calls. */
  async channels(): Promise<ChannelRef[]> {
    return (await this.kv.setMembers(this.keys.callOutboxChannels())).flatMap((m) => {
      const [team, channel] = m.split(':');
      return team && channel ? [{ teamId: unsegment(team), channelId: unsegment(channel) }] : [];
    });
  }

  /** The ids of every call waiting for the channel (in no order). */
  ids(at: ChannelRef): Promise<string[]> {
    return this.parked.ids(at.teamId, at.channelId);
  }

  /**
   * The channel's oldest waiting calls, oldest first — at most `limit` of them: the ids are read first and only
   * those calls' JSON after, so a long wait (up to HOOK_MAX_BACKLOG_MB of calls) is never read whole.
   */
  async waiting(at: ChannelRef, limit = Number.POSITIVE_INFINITY): Promise<WaitingCall[]> {
    const ids = await this.parked.ids(at.teamId, at.channelId);
    return this.pick(at, [...ids].sort(compareEntryIds).slice(0, limit));
  }

  /** These calls of the channel, those still waiting, oldest first. */
  async pick(at: ChannelRef, ids: readonly string[]): Promise<WaitingCall[]> {
    const parked = await this.parked.get(at.teamId, at.channelId, ids);
    return ids
      .flatMap((id) => {
        const json = parked[id];
        return json === undefined ? [] : [{ id, json }];
      })
      .sort((a, b) => compareEntryIds(a.id, b.id));
  }

  async remove(at: ChannelRef, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.parked.remove(at.teamId, at.channelId, ids);
  }

  /** Drops the channel from the list when it holds no calls (checked again after, so a call added meanwhile keeps it listed). */
  async forgetIfEmpty(at: ChannelRef): Promise<void> {
    if ((await this.size(at)) > 0) return;
    await this.kv.setRemove(this.keys.callOutboxChannels(), member(at));
    if ((await this.size(at)) > 0) await this.kv.setAdd(this.keys.callOutboxChannels(), member(at));
  }

  /** Takes the workspace's channels off the list (its outboxes themselves are workspace keys). */
  async forgetTeam(teamId: string): Promise<void> {
    const all = await this.kv.setMembers(this.keys.callOutboxChannels());
    const own = all.filter((m) => unsegment(m.split(':')[0] ?? '') === teamId);
    await this.kv.setRemove(this.keys.callOutboxChannels(), ...own);
  }

  /** The channel's drain lease (see `Leases`): one replica at a time posts for a channel. */
  lease(at: ChannelRef): string {
    return this.keys.callOutboxLease(at.teamId, at.channelId);
  }

  /** The ids of the roll-up under way in the channel, if one was started and not finished. */
  async rollupUnderWay(at: ChannelRef): Promise<string[] | undefined> {
    const raw = await this.kv.get(this.keys.callRollup(at.teamId, at.channelId));
    if (raw === null) return undefined;
    const ids: unknown = JSON.parse(raw);
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : undefined;
  }

  async startRollup(at: ChannelRef, ids: readonly string[], ttlMs: number): Promise<void> {
    await this.kv.set(this.keys.callRollup(at.teamId, at.channelId), JSON.stringify(ids), { ttlMs });
  }

  async finishRollup(at: ChannelRef, ids: readonly string[]): Promise<void> {
    await this.remove(at, ids);
    await this.kv.del(this.keys.callRollup(at.teamId, at.channelId));
  }
}

function member(at: ChannelRef): string {
  return `${segment(at.teamId)}:${segment(at.channelId)}`;
}
