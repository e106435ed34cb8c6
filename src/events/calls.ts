/**
 * Call events: a completed call is counted in the workspace's outcome alerts (outcome-alerts.ts) whether or not
 * a channel routes it; then each call event is handed to the call outbox of every routed channel, with whom the
 * channel's matching routes mention, and the outbox posts it at Slack's pace — one by one while the channel
 * keeps up, rolled up when it cannot (src/delivery/call-lane.ts).
 */
import type { CallOutbox } from '../delivery/call-lane.js';
import { countCompletedCall } from './outcome-alerts.js';
import { routedFor } from './router.js';
import { noteUnrouted } from './unrouted.js';
import type { QueuedEvent, EventWorker } from './worker.js';

export function registerCallHandlers(worker: EventWorker, outbox: CallOutbox): void {
  const handOn = async (d: QueuedEvent<'call_started' | 'call_completed'>) => {
    // A dead letter posted again (`stepsOf` is its id) was counted when it came, or came too long ago to count.
    if (d.event.trigger === 'call_completed' && d.stepsOf === d.entry.id) {
      // One key for every try of this call's event: counted once however often the entry runs.
      const callKey = d.event.data.callId ? `call:${d.event.data.callId}` : `entry:${d.stepsOf}`;
      await countCompletedCall(d.store, d.entry.teamId, d.event.data, callKey, d.entry.enqueuedAt);
    }
    const routed = await routedFor(d.store, d.entry.teamId, d.event);
    if (routed.size === 0) {
      d.log.info(
        { campaignId: d.event.data.campaignId },
        'no channel is subscribed to this event any more: nothing to post',
      );
      const { teamId, enqueuedAt } = d.entry;
      await noteUnrouted(d.store, d.log, { teamId, event: d.event, enqueuedAt, stepsOf: d.stepsOf });
      return 'skipped' as const;
    }
    for (const [channelId, asks] of routed) {
      // Remembered per channel: a retry of this entry (another channel was full) never hands a call on twice.
      await d.steps.once(d.step(channelId, 'outbox'), async () => {
        await outbox.add({ teamId: d.entry.teamId, channelId }, d.entry, d.event, asks);
        return 'added';
      });
    }
    return 'handed-on' as const;
  };
  worker.on('call_started', handOn);
  worker.on('call_completed', handOn);
}
