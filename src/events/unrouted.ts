/**
 * An event no channel is routed for is not dropped silently: it is kept among the workspace's recent unrouted
 * events (`store.unroutedEvents`), which `/campaign subscriptions` shows with how to receive them. Recording
 * never holds the event up: a store failure is logged and the event is done with all the same.
 */
import { ALL_CAMPAIGNS } from '../store/index.js';
import { hasRoute } from './router.js';
import type { QueuedEvent } from './worker.js';

/**
 * Called when the event found no channel: recorded unless a route had it and its filters left it out, or it is a
 * completed call an outcome alert of its campaign counts (what the alert asked the platform for).
 */
export async function noteUnrouted(d: QueuedEvent): Promise<void> {
  const { campaignId } = d.event.data;
  const teamId = d.entry.teamId;
  try {
    if (await hasRoute(d.store, teamId, d.event)) return;
    if (
      d.event.trigger === 'call_completed' &&
      (await d.store.outcomeAlerts.hooks(teamId)).some(
        (h) => h.campaignId === ALL_CAMPAIGNS || h.campaignId === campaignId,
      )
    )
      return;
    // `stepsOf`: a dead letter retried later is the same event, counted once.
    await d.store.unroutedEvents.record(teamId, d.stepsOf, {
      trigger: d.event.trigger,
      ...(campaignId ? { campaignId } : {}),
      at: d.entry.enqueuedAt,
    });
  } catch (err) {
    d.log.warn({ err, campaignId }, 'could not record an event that arrived for no channel');
  }
}
