/**
 * Per channel: how long a handoff customer may wait for an answer before the thread is nudged, and which
 * Slack user group is mentioned when nobody claimed the conversation (`/campaign handoff-sla`). Channels
 * without a setting use `HANDOFF_SLA_S` and mention nobody.
 */
import { z } from 'zod';
import type { Keys } from './keys.js';
import type { KeyValueStore } from './kv.js';

export interface ChannelSla {
  /** Seconds a customer message may wait unanswered. */
  slaS: number;
  /** Slack user group id (`S…`) nudged when the conversation is not claimed. */
  userGroup?: string;
  /** The group's handle as Slack gave it (`@support`): how the setting is shown without paging the group. */
  userGroupName?: string;
}

const channelSlaSchema = z.object({
  slaS: z.number().int().positive(),
  userGroup: z.string().optional(),
  userGroupName: z.string().optional(),
});

export class HandoffSlaRepo {
  constructor(
    private readonly kv: KeyValueStore,
    private readonly keys: Keys,
  ) {}

  async get(teamId: string, channelId: string): Promise<ChannelSla | undefined> {
    const raw = await this.kv.hashGet(this.keys.handoffSla(teamId), channelId);
    if (raw === null) return undefined;
    try {
      const parsed = channelSlaSchema.safeParse(JSON.parse(raw));
      if (!parsed.success) return undefined;
      const { slaS, userGroup, userGroupName } = parsed.data;
      return { slaS, ...(userGroup ? { userGroup, ...(userGroupName ? { userGroupName } : {}) } : {}) };
    } catch {
      return undefined;
    }
  }

  async set(teamId: string, channelId: string, sla: ChannelSla): Promise<void> {
    await this.kv.hashSet(this.keys.handoffSla(teamId), { [channelId]: JSON.stringify(sla) });
  }
}
