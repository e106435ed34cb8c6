/**
 * Channels the bot cannot post in until someone acts (it was removed, the channel was archived, read-only…):
 * while paused, nothing is sent there (src/delivery/channel-pause.ts), and the admin who subscribed the channel
 * is told once. One hash per workspace, channel id → why and since when; another remembers who
 * subscribed each channel (the person to tell).
 */
import { z } from 'zod';
import type { Keys } from './keys.js';
import type { KeyValueStore } from './kv.js';
import { parseStored } from './stored-json.js';

const pauseSchema = z.object({ reason: z.string(), since: z.number() });
export type ChannelPause = z.infer<typeof pauseSchema>;

export class ChannelPauseRepo {
  constructor(
    private readonly kv: KeyValueStore,
    private readonly keys: Keys,
  ) {}

  /** Pauses the channel; true when it was not paused already (so whoever pauses it tells the admin, once). */
  async pause(teamId: string, channelId: string, reason: string, now = Date.now()): Promise<boolean> {
    // Only one of the replicas and workers that see Slack refuse the channel pauses it (and tells the admin).
    return this.kv.hashSetIfAbsent(this.keys.channelPauses(teamId), channelId, JSON.stringify({ reason, since: now }));
  }

  /** A paused channel refused again (a probe): its reason and time are the new ones. */
  async renew(teamId: string, channelId: string, reason: string, now = Date.now()): Promise<void> {
    await this.kv.hashSet(this.keys.channelPauses(teamId), { [channelId]: JSON.stringify({ reason, since: now }) });
  }

  async get(teamId: string, channelId: string): Promise<ChannelPause | undefined> {
    return parseStored(pauseSchema, await this.kv.hashGet(this.keys.channelPauses(teamId), channelId));
  }

  /** Paused channels of the workspace, longest paused first. */
  async list(teamId: string): Promise<Array<{ channelId: string } & ChannelPause>> {
    const all = await this.kv.hashGetAll(this.keys.channelPauses(teamId));
    return Object.entries(all)
      .flatMap(([channelId, raw]) => {
        const pause = parseStored(pauseSchema, raw);
        return pause ? [{ channelId, ...pause }] : [];
      })
      .sort((a, b) => a.since - b.since);
  }

  /** True when the channel was paused. */
  async resume(teamId: string, channelId: string): Promise<boolean> {
    return (await this.kv.hashDel(this.keys.channelPauses(teamId), channelId)) > 0;
  }

  /** Remembers who subscribed the channel (the admin told if it is paused). */
  async setSubscriber(teamId: string, channelId: string, userId: string): Promise<void> {
    await this.kv.hashSet(this.keys.channelSubscribers(teamId), { [channelId]: userId });
  }

  async subscriber(teamId: string, channelId: string): Promise<string | undefined> {
    return (await this.kv.hashGet(this.keys.channelSubscribers(teamId), channelId)) ?? undefined;
  }
}
