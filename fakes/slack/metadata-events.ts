/**
 * Slack's `message_metadata_posted` event: "sent when a message containing metadata is sent in Slack", and only
 * for the event types an app lists under `settings.event_subscriptions.metadata_subscriptions` in its manifest
 * (each an `app_id` — or `'*'`, any app — and an `event_type`)
 * (https://docs.slack.dev/reference/events/message_metadata_posted, https://docs.slack.dev/reference/app-manifest).
 * The stand-in tells its listeners (the harness sends each through the signer to the bot's event route) after the
 * post was carried out — also when its answer is lost, since Slack did post it.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { MetadataSubscription, SlackMessage } from './types.js';
import { isObj } from './util.js';

export type MetadataListener = (event: Record<string, unknown>) => void;

export class MetadataEvents {
  private readonly listeners: MetadataListener[] = [];

  constructor(private readonly subscriptions: readonly MetadataSubscription[]) {}

  listen(listener: MetadataListener): void {
    this.listeners.push(listener);
  }

  /** A message was posted by `appId`: its event goes out when its metadata's event type is subscribed to. */
  posted(msg: SlackMessage, appId: string, teamId: string): void {
    const metadata = msg.metadata;
    if (!isObj(metadata) || typeof metadata.event_type !== 'string') return;
    const eventType = metadata.event_type;
    if (!this.subscriptions.some((s) => s.event_type === eventType && (s.app_id === '*' || s.app_id === appId))) return;
    const event = {
      type: 'message_metadata_posted',
      app_id: appId,
      ...(msg.bot_id ? { bot_id: msg.bot_id } : {}),
      user_id: msg.user,
      team_id: teamId,
      channel_id: msg.channel,
      metadata,
      message_ts: msg.ts,
      event_ts: msg.ts,
    };
    // After the answer (or its loss): Slack's events arrive on their own, not within the call.
    setImmediate(() => {
      for (const listener of this.listeners) listener(event);
    });
  }
}

/** The metadata subscriptions an app's manifest.yml declares (`settings.event_subscriptions.metadata_subscriptions`). */
export function manifestMetadataSubscriptions(manifestYml: URL): MetadataSubscription[] {
  const manifest = parse(readFileSync(manifestYml, 'utf8')) as {
    settings?: { event_subscriptions?: { metadata_subscriptions?: unknown } };
  };
  const list = manifest.settings?.event_subscriptions?.metadata_subscriptions;
  if (!Array.isArray(list)) return [];
  return list.filter(
    (s): s is MetadataSubscription => isObj(s) && typeof s.app_id === 'string' && typeof s.event_type === 'string',
  );
}
