/**
 * Slack's word that one of the app's posts landed (`message_metadata_posted`, for the event type the manifest's
 * `metadata_subscriptions` name; https://docs.slack.dev/reference/events/message_metadata_posted): where it
 * landed is kept by its idempotency key, so a post whose answer was lost is settled without reading history
 * (src/delivery/idempotent-posts.ts). The subscription names any app (`'*'`: the app's id is not known before it exists),
 * so only events of this app's own posts count — another app's metadata proves nothing about ours.
 */
import type { App } from '@slack/bolt';
import type { Deps } from '../app/deps.js';
import { POST_EVENT_TYPE } from '../delivery/idempotent-posts.js';

export function register(app: App, deps: Deps): void {
  app.event('message_metadata_posted', async ({ event, body, context }) => {
    const teamId = context.teamId ?? event.team_id;
    const key = (event.metadata.event_payload as { key?: unknown } | undefined)?.key;
    if (event.app_id !== body.api_app_id || event.metadata.event_type !== POST_EVENT_TYPE) return;
    if (typeof key !== 'string' || !teamId) return;
    await deps.posts.landed(teamId, key, event.message_ts);
  });
}
