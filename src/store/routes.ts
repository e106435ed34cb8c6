import { z } from 'zod';
import type { Keys } from './keys.js';
import type { KeyValueStore } from './kv.js';

/**
 * Which events of a route reach its channel (docs/PRODUCT.md › Route filters). Words are kept lower-case and
 * sorted; durations in ms. Parsing and matching live with the events (`events/filters.ts`).
 */
export const routeFiltersSchema = z.object({
  status: z.array(z.string()).optional(),
  reason: z.array(z.string()).optional(),
  type: z.array(z.string()).optional(),
  agent: z.array(z.string()).optional(),
  /** Words or phrases (words joined by `-`) of the call's summary, lower-case. */
  summary: z.array(z.string()).optional(),
  minMs: z.number().int().nonnegative().optional(),
  maxMs: z.number().int().nonnegative().optional(),
  /** Route option `compact:off`: the channel's calls are never rolled up (they lag instead). */
  compact: z.literal(false).optional(),
  /** Route option `cards:full`: the channel's calls get the full card; `cards:short`, the default, is not kept. */
  cards: z.literal('full').optional(),
  /**
   * Route option `customers:full`: an admin accepted that everyone in the channel, guests and other
   * organisations included, may read customers' numbers, e-mails and words (`ChannelAudienceRepo.confirmed`).
   */
  customers: z.literal('full').optional(),
  /** Route option `notify:`: Slack users (`U…`/`W…`) and user groups (`S…`) the route's call posts mention. */
  notify: z.array(z.string()).optional(),
  /** The name Slack gave each of `notify`'s ids (`@sales`, `ada`): how listings name them without a mention. */
  notifyNames: z.record(z.string(), z.string()).optional(),
});
export type RouteFilters = z.infer<typeof routeFiltersSchema>;

/** Events of one campaign (or of every campaign, `campaignId: '*'`) posted to a channel. */
export interface Route {
  teamId: string;
  /** A campaign id, or '*' for every campaign. */
  campaignId: string;
  triggerName: string;
  channelId: string;
  /** Absent: every event of the route. */
  filters?: RouteFilters;
}

export const ALL_CAMPAIGNS = '*';

// Set members are JSON arrays: unambiguous whatever characters the ids contain. A route without filters is
// the 3-element array routes have always been; a filtered one adds its filters as a 4th element.
const member = z.union([
  z.tuple([z.string(), z.string(), z.string()]),
  z.tuple([z.string(), z.string(), z.string(), routeFiltersSchema]),
]);

/** The workspace's event routes, one Redis set per team. */
export class RouteRepo {
  constructor(
    private readonly kv: KeyValueStore,
    private readonly keys: Keys,
  ) {}

  /**
   * Stores the route; one of the same channel, campaign and event with other filters is replaced (the latest
   * subscribe sets the channel's filters). Returns false when exactly this route already existed.
   */
  async add(route: Route): Promise<boolean> {
    const key = this.keys.routes(route.teamId);
    const encoded = encode(route);
    const replaced = (await this.membersLike(route)).filter((m) => m !== encoded);
    const added = (await this.kv.setAdd(key, encoded)) === 1;
    // Added before the old one goes, so the channel never misses an event in between.
    if (replaced.length > 0) await this.kv.setRemove(key, ...replaced);
    return added || replaced.length > 0;
  }

  /** Removes the channel's route for that campaign and event, whatever its filters. False when there was none. */
  async remove(route: Route): Promise<boolean> {
    const members = await this.membersLike(route);
    if (members.length === 0) return false;
    return (await this.kv.setRemove(this.keys.routes(route.teamId), ...members)) > 0;
  }

  /** The stored members of the same (campaign, event, channel) as `route`, whatever their filters. */
  private async membersLike(route: Route): Promise<string[]> {
    const members = await this.kv.setMembers(this.keys.routes(route.teamId));
    return members.filter((m) => decode(route.teamId, m).some((r) => sameTarget(r, route)));
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

  /** Whether a call route of the channel says `cards:full`: its calls then get the full card, not the short one. */
  async fullCards(teamId: string, channelId: string): Promise<boolean> {
    return (await this.listForChannel(teamId, channelId)).some(
      (r) => r.triggerName.startsWith('call_') && r.filters?.cards === 'full',
    );
  }

  /** Routes an event of this campaign may take: those of the campaign itself or of '*' (filters not applied). */
  async routesFor(teamId: string, campaignId: string, triggerName: string): Promise<Route[]> {
    return (await this.listForTeam(teamId)).filter(
      (r) => r.triggerName === triggerName && (r.campaignId === campaignId || r.campaignId === ALL_CAMPAIGNS),
    );
  }

  /** Channels routing this campaign's event (itself or '*'), each once, whatever the routes' filters. */
  async channelsFor(teamId: string, campaignId: string, triggerName: string): Promise<string[]> {
    return [...new Set((await this.routesFor(teamId, campaignId, triggerName)).map((r) => r.channelId))];
  }

  /**
   * Whether some channel still routes exactly this (campaignId, triggerName) — i.e. whether the platform
   * subscription made for it is still needed. `campaignId` is matched literally ('*' only matches '*'),
   * because the platform keeps a subscription for '*' apart from those of single campaigns.
   */
  async isNeeded(teamId: string, campaignId: string, triggerName: string): Promise<boolean> {
    return (await this.listForTeam(teamId)).some((r) => r.campaignId === campaignId && r.triggerName === triggerName);
  }
}

function sameTarget(a: Route, b: Route): boolean {
  return a.campaignId === b.campaignId && a.triggerName === b.triggerName && a.channelId === b.channelId;
}

/** Same filters, same string: keys in one order, words sorted, empty lists dropped. */
export function canonicalFilters(filters: RouteFilters | undefined): RouteFilters | undefined {
  if (!filters) return undefined;
  const out: RouteFilters = {};
  for (const field of ['status', 'reason', 'type', 'agent', 'summary'] as const) {
    const words = filters[field];
    if (words && words.length > 0) out[field] = [...new Set(words)].sort();
  }
  if (filters.minMs !== undefined) out.minMs = filters.minMs;
  if (filters.maxMs !== undefined) out.maxMs = filters.maxMs;
  if (filters.compact === false) out.compact = false;
  if (filters.cards === 'full') out.cards = 'full';
  if (filters.customers === 'full') out.customers = 'full';
  if (filters.notify && filters.notify.length > 0) out.notify = [...new Set(filters.notify)].sort();
  const names = out.notify?.flatMap((id) => {
    const name = filters.notifyNames?.[id];
    return name ? [[id, name] as const] : [];
  });
  if (names && names.length > 0) out.notifyNames = Object.fromEntries(names);
  return Object.keys(out).length > 0 ? out : undefined;
}

function encode(route: Route): string {
  const filters = canonicalFilters(route.filters);
  return JSON.stringify(
    filters
      ? [route.campaignId, route.triggerName, route.channelId, filters]
      : [route.campaignId, route.triggerName, route.channelId],
  );
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
  const [campaignId, triggerName, channelId, stored] = result.data;
  const filters = canonicalFilters(stored);
  return [{ teamId, campaignId, triggerName, channelId, ...(filters ? { filters } : {}) }];
}
