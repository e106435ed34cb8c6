/**
 * Call events: handed to the call outbox of every routed channel, which posts them at Slack's pace — one by
 * one while the channel keeps up, rolled up when it cannot (src/events/call-outbox.ts).
 */
import type { CallOutbox } from './call-outbox.js';
import type { Delivery, EventWorker } from './worker.js';

export function registerCallHandlers(worker: EventWorker, outbox: CallOutbox): void {
  const handOn = async (d: Delivery<'call_started' | 'call_completed'>) => {
    const channels = await d.channels();
    if (channels.length === 0) {
      d.log.info(
        { campaignId: d.event.data.campaignId },
        'no channel is subscribed to this event any more: nothing to post',
      );
      return 'skipped' as const;
    }
    for (const channelId of channels) {
      // Remembered per channel: a retry of this entry (another channel was full) never hands a call on twice.
      await d.steps.once(d.step(channelId, 'outbox'), async () => {
        await outbox.add({ teamId: d.entry.teamId, channelId }, d.entry, d.event);
        return 'added';
      });
    }
    return 'handed-on' as const;
  };
  worker.on('call_started', handOn);
  worker.on('call_completed', handOn);
}
