/**
 * Where an event goes: every channel with a route matching (workspace, campaignId or `*`, trigger) whose
 * filters the event passes (`filters.ts`), each once.
 * Inside a channel, a chat message goes into its conversation's thread (`threads.ts`).
 */
import type { Store } from '../store/index.js';
import type { KnownEvent } from './events.js';
import { matchesFilters } from './filters.js';

export async function channelsFor(store: Store, teamId: string, event: KnownEvent): Promise<string[]> {
  const campaignId = event.data.campaignId ?? '';
  // Nobody subscribes to message_session_completed (the platform's subscribe does not accept it): it goes
  // where the conversation's messages go.
  const triggers =
    event.trigger === 'message_session_completed' ? ['message_received', 'message_sent'] : [event.trigger];
  const channels = new Set<string>();
  for (const trigger of triggers) {
    for (const route of await store.routes.routesFor(teamId, campaignId, trigger)) {
      if (matchesFilters(route.filters, event)) channels.add(route.channelId);
    }
  }
  return [...channels];
}
