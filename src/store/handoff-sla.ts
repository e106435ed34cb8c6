/**
 * Per channel: how long a handoff customer may wait for an answer before the thread is nudged, which Slack
 * user group is paged, and when: as a new conversation arrives (its card mentions the group), when an unclaimed
 * one waits too long (the nudge does), or both; and whether new conversations are assigned to an agent on shift
 * (`/campaign handoff-sla`). Channels without a setting use `HANDOFF_SLA_S`, page nobody and assign nobody.
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
  /** When the group is paged; absent means `both` (the default with a group). */
  page?: PageWhen;
  /** New conversations are handed to an agent on shift: in turn, or to the one with the fewest open. */
  assign?: AssignMode;
}

export const ASSIGN_MODES = ['round-robin', 'least-busy'] as const;
export type AssignMode = (typeof ASSIGN_MODES)[number];

export const PAGE_WHEN = ['new', 'late', 'both'] as const;
/** `new`: as a conversation arrives; `late`: when an unclaimed one waits past the SLA; `both`. */
export type PageWhen = (typeof PAGE_WHEN)[number];

/** The group to page as a new conversation arrives, if any. */
export function pagedOnArrival(sla: ChannelSla | undefined): string | undefined {
  return sla?.userGroup && sla.page !== 'late' ? sla.userGroup : undefined;
}

/** The group the SLA nudge mentions while nobody claimed the conversation, if any. */
export function pagedWhenLate(sla: ChannelSla | undefined): string | undefined {
  return sla?.userGroup && sla.page !== 'new' ? sla.userGroup : undefined;
}

const channelSlaSchema = z.object({
  slaS: z.number().int().positive(),
  userGroup: z.string().optional(),
  userGroupName: z.string().optional(),
  page: z.enum(PAGE_WHEN).optional(),
  assign: z.enum(ASSIGN_MODES).optional(),
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
      const { slaS, userGroup, userGroupName, page, assign } = parsed.data;
      const assigned = assign ? { assign } : {};
      if (!userGroup) return { slaS, ...assigned };
      return {
        slaS,
        userGroup,
        ...(userGroupName ? { userGroupName } : {}),
        ...(page ? { page } : {}),
        ...assigned,
      };
    } catch {
      return undefined;
    }
  }

  async set(teamId: string, channelId: string, sla: ChannelSla): Promise<void> {
    await this.kv.hashSet(this.keys.handoffSla(teamId), { [channelId]: JSON.stringify(sla) });
  }
}
