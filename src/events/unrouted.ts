/**
 * An event no channel is routed for is not dropped silently: it is kept among the workspace's recent unrouted
 * events (`store.unroutedEvents`), which `/campaign subscriptions` shows with how to receive them. Recording
 * never holds the event up: a store failure is logged and the event is done with all the same.
 */
import type { Logger } from '../logger.js';
import { ALL_CAMPAIGNS, type Store } from '../store/index.js';
import type { KnownEvent } from './events.js';
import { hasRoute } from './router.js';

/** The event that found no channel: its workspace, when it was queued, and the id its steps go by. */
export interface Unrouted {
  teamId: string;
  event: KnownEvent;
  enqueuedAt: number;
  /** A dead letter retried later is the same event: counted once. */
  stepsOf: string;
}

/**
 * Called when the event found no channel: recorded unless a route had it and its filters left it out, or it is a
 * completed call an outcome alert of its campaign counts (what the alert asked the platform for).
 */
export async function noteUnrouted(store: Store, log: Logger, d: Unrouted): Promise<void> {
  const { campaignId } = d.event.data;
  const { teamId } = d;
  try {
    if (await hasRoute(store, teamId, d.event)) return;
    if (
      d.event.trigger === 'call_completed' &&
      (await store.outcomeAlerts.hooks(teamId)).some(
        (h) => h.campaignId === ALL_CAMPAIGNS || h.campaignId === campaignId,
      )
    )
      return;
    await store.unroutedEvents.record(teamId, d.stepsOf, {
      trigger: d.event.trigger,
      ...(campaignId ? { campaignId } : {}),
      at: d.enqueuedAt,
    });
  } catch (err) {
    log.warn({ err, campaignId }, 'could not record an event that arrived for no channel');
  }
}
