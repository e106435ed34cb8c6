/**
 * Where an event goes: every channel with a route matching (workspace, campaignId or `*`, trigger), each once.
 * Inside a channel, a chat message goes into its conversation's thread (`threads.ts`).
 */
import type { Store } from '../store/index.js';
import type { KnownEvent } from './events.js';

export async function channelsFor(store: Store, teamId: string, event: KnownEvent): Promise<string[]> {
  const campaignId = event.data.campaignId ?? '';
  if (event.trigger === 'message_session_completed') {
    // Nobody subscribes to it (the platform's subscribe does not accept it): it goes where the conversation's
    // messages go.
    const [received, sent] = await Promise.all([
      store.routes.channelsFor(teamId, campaignId, 'message_received'),
      store.routes.channelsFor(teamId, campaignId, 'message_sent'),
    ]);
    return [...new Set([...received, ...sent])];
  }
  return store.routes.channelsFor(teamId, campaignId, event.trigger);
}
