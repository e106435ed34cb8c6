import { z } from 'zod';
import type { Keys } from './keys.js';
import type { KeyValueStore } from './kv.js';

/** Events of one campaign (or of every campaign, `campaignId: '*'`) posted to a channel. */
export interface Route {
  teamId: string;
  /** A campaign id, or '*' for every campaign. */
  campaignId: string;
  triggerName: string;
  channelId: string;
}

export const ALL_CAMPAIGNS = '*';

// Set members are JSON arrays: unambiguous whatever characters the ids contain.
const member = z.tuple([z.string(), z.string(), z.string()]);

/** The workspace's event routes, one Redis set per team. */
export class RouteRepo {
  constructor(
    private readonly kv: KeyValueStore,
    private readonly keys: Keys,
  ) {}

  /** Returns false when the route already existed. */
  async add(route: Route): Promise<boolean> {
    return (await this.kv.setAdd(this.keys.routes(route.teamId), encode(route))) === 1;
  }

  /** Returns false when there was no such route. */
  async remove(route: Route): Promise<boolean> {
    return (await this.kv.setRemove(this.keys.routes(route.teamId), encode(route))) === 1;
  }

  /** All routes of the team, sorted by campaign, event, channel. */
  async listForTeam(teamId: string): Promise<Route[]> {
    const members = await this.kv.setMembers(this.keys.routes(teamId));
    return members
      .flatMap((m) => decode(teamId, m))
      .sort(
        (a, b) =>
          a.campaignId.localeCompare(b.campaignId) ||
          a.triggerName.localeCompare(b.triggerName) ||
          a.channelId.localeCompare(b.channelId),
      );
  }

  async listForChannel(teamId: string, channelId: string): Promise<Route[]> {
    return (await this.listForTeam(teamId)).filter((r) => r.channelId === channelId);
  }

  /** Channels an event of this campaign goes to: routes of the campaign itself or of '*', each channel once. */
  async channelsFor(teamId: string, campaignId: string, triggerName: string): Promise<string[]> {
    const channels = new Set<string>();
    for (const r of await this.listForTeam(teamId)) {
      if (r.triggerName === triggerName && (r.campaignId === campaignId || r.campaignId === ALL_CAMPAIGNS)) {
        channels.add(r.channelId);
      }
    }
    return [...channels];
  }

  /**
   * Whether some channel still routes exactly this (campaignId, triggerName) — i.e. whether the platform
   * subscription made for it is still needed. `campaignId` is matched literally ('*' only matches '*'),
   * because the platform keeps a subscription for '*' apart from those of single campaigns.
   */
  async isNeeded(teamId: string, campaignId: string, triggerName: string): Promise<boolean> {
    return (await this.listForTeam(teamId)).some(
      (r) => r.campaignId === campaignId && r.triggerName === triggerName,
    );
  }
}

function encode(route: Route): string {
  return JSON.stringify([route.campaignId, route.triggerName, route.channelId]);
}

function decode(teamId: string, raw: string): Route[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return [];
  }
  const result = member.safeParse(parsed);
  if (!result.success) return [];
  const [campaignId, triggerName, channelId] = result.data;
  return [{ teamId, campaignId, triggerName, channelId }];
}
