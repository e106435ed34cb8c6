/**
 * Where an event goes: every channel with a route matching (workspace, campaignId or `*`, trigger), each once.
 */
import type { Store } from '../store/index.js';
import type { KnownEvent, MessageReceived, MessageSent } from './events.js';

export interface Destination {
  channel: string;
  /** Post as a reply in this thread instead of the channel itself. */
  threadTs?: string;
}

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

export type MessageEvent =
  | { trigger: 'message_received'; data: MessageReceived }
  | { trigger: 'message_sent'; data: MessageSent };

/**
 * Where one chat message goes inside a routed channel. The seam for handoff threads (a conversation's first
 * message opens a parent card, later ones reply in its thread): today every message is a plain channel post.
 */
export function messageDestination(_teamId: string, channel: string, _event: MessageEvent): Promise<Destination> {
  return Promise.resolve({ channel });
}
