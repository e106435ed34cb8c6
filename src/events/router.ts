/**
 * Where an event goes: every channel with a route matching (workspace, campaignId or `*`, trigger) whose
 * filters the event passes (`filters.ts`), each once.
 * Inside a channel, a chat message goes into its conversation's thread (`threads.ts`).
 */
import type { Route, Store } from '../store/index.js';
import type { KnownEvent } from './events.js';
import { matchesFilters, summaryMatches } from './filters.js';

/** What a channel's matching routes ask of the post: whom to mention (`notify:`), the summary words found. */
export interface Routed {
  notify: string[];
  hot: string[];
}

export async function channelsFor(store: Store, teamId: string, event: KnownEvent): Promise<string[]> {
  return [...(await routedFor(store, teamId, event)).keys()];
}

/** The channels the event goes to, each once, with what its matching routes there ask of the post. */
export async function routedFor(store: Store, teamId: string, event: KnownEvent): Promise<Map<string, Routed>> {
  const channels = new Map<string, Routed>();
  for (const route of await routesOf(store, teamId, event)) {
    if (!matchesFilters(route.filters, event)) continue;
    const routed = channels.get(route.channelId) ?? { notify: [], hot: [] };
    const summary = event.trigger === 'call_completed' ? event.data.callSummary : undefined;
    channels.set(route.channelId, {
      notify: [...new Set([...routed.notify, ...(route.filters?.notify ?? [])])],
      hot: [...new Set([...routed.hot, ...summaryMatches(route.filters?.summary ?? [], summary)])],
    });
  }
  return channels;
}

/** Whether some route of the workspace takes this kind of event of its campaign, whatever the route's filters. */
export async function hasRoute(store: Store, teamId: string, event: KnownEvent): Promise<boolean> {
  return (await routesOf(store, teamId, event)).length > 0;
}

/** The routes of the event's campaign (or `*`) and trigger, filters not applied. */
async function routesOf(store: Store, teamId: string, event: KnownEvent): Promise<Route[]> {
  const campaignId = event.data.campaignId ?? '';
  // Nobody subscribes to message_session_completed (the platform's subscribe does not accept it): it goes
  // where the conversation's messages go.
  const triggers =
    event.trigger === 'message_session_completed' ? ['message_received', 'message_sent'] : [event.trigger];
  const routes: Route[] = [];
  for (const trigger of triggers) routes.push(...(await store.routes.routesFor(teamId, campaignId, trigger)));
  return routes;
}
