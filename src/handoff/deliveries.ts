/**
 * Chat events on the worker side: each conversation (workspace, campaignId, customerNumber) gets one parent
 * card per routed channel and its messages go into that card's thread; the platform's echo of a reply sent
 * from Slack is dropped; `message_session_completed` closes the conversation's threads. A customer message
 * starts the wait for an answer; the platform's own answer (`message_sent`) ends it (`waiting.ts`). A payload
 * without the campaign or the number names no conversation: it is a plain post in the routed channels.
 */
import { z } from 'zod';
import type { Delivery, DeliveryOutcome, Events } from '../events/index.js';
import { renderAgentLine, renderCustomerLine, renderEvent } from '../events/render/index.js';
import { postMessage } from '../slack/post.js';
import { ConversationThreads, conversationOf } from './threads.js';
import type { Waiting } from './waiting.js';

const threadListSchema = z.array(z.object({ channelId: z.string(), threadTs: z.string() }));

export function registerChatHandlers(events: Pick<Events, 'on'>, waiting: Waiting): void {
  events.on('message_received', (d) => deliverChatMessage(d, waiting));
  events.on('message_sent', async (d) => {
    const ref = conversationOf(d.entry.teamId, d.event.data);
    if (ref && (await threadsOf(d).isEcho(d.entry.teamId, d.stepsOf, ref, d.event.data.messageContent))) {
      d.log.info(
        { campaignId: ref.campaignId },
        'message_sent is the echo of a reply sent from a Slack thread: not posted again',
      );
      return 'skipped';
    }
    const outcome = await deliverChatMessage(d, waiting);
    if (ref && outcome === 'posted') {
      // The platform answered the customer (its AI, or a human on the platform): nobody waits any more.
      const agent = d.event.data.agentName?.trim() || 'the platform’s agent';
      const changed = await d.steps.once(d.step('*', 'answered'), async () =>
        JSON.stringify(await waiting.answered(ref, { platformAgent: agent })),
      );
      const cards = threadListSchema.safeParse(JSON.parse(changed.result)).data ?? [];
      const slack = await d.slack();
      for (const at of cards) {
        await d.steps.once(d.step(at.channelId, `answered-card:${at.threadTs}`), async () => {
          await waiting.showCard(slack, d.entry.teamId, at, d.log);
          return 'done';
        });
      }
    }
    return outcome;
  });
  events.on('message_session_completed', async (d) => {
    const ref = conversationOf(d.entry.teamId, d.event.data);
    if (!ref) return d.toEachRoute(plainPost(d));
    const threads = threadsOf(d);
    const closed = await threads.closeOnce(d.entry.teamId, d.stepsOf, ref);
    if (closed.length === 0) {
      d.log.info(
        { campaignId: ref.campaignId },
        'chat session completed for a conversation with no open thread: nothing to close',
      );
      return 'skipped';
    }
    // Every open thread of the conversation is closed, whatever the routes say now; one per channel.
    const slack = await d.slack();
    const byChannel = new Map(closed.map((t) => [t.channelId, t.threadTs]));
    await d.eachChannel([...byChannel.keys()], (channel) =>
      threads.markClosed(
        slack,
        d.stepsOf,
        d.entry.teamId,
        { channelId: channel, threadTs: byChannel.get(channel) ?? '' },
        d.event.data,
        d.log,
      ),
    );
    d.log.info({ threads: closed.length, campaignId: ref.campaignId }, 'conversation closed');
    return 'posted';
  });
}

function threadsOf(d: Delivery): ConversationThreads {
  return new ConversationThreads(d.store, d.steps);
}

function deliverChatMessage(
  d: Delivery<'message_received' | 'message_sent'>,
  waiting: Waiting,
): Promise<DeliveryOutcome> {
  const conversation = conversationOf(d.entry.teamId, d.event.data);
  if (!conversation) return d.toEachRoute(plainPost(d));
  const threads = threadsOf(d);
  return d.toEachRoute(async (slack, channel) => {
    const threadTs = await threads.threadIn(slack, d.stepsOf, channel, conversation, d.event.data, d.log);
    const line =
      d.event.trigger === 'message_received' ? renderCustomerLine(d.event.data) : renderAgentLine(d.event.data);
    await d.steps.once(d.step(channel, 'post'), () => postMessage(slack, { channel, threadTs }, line));
    if (d.event.trigger === 'message_received') {
      const started = await d.steps.once(d.step(channel, 'waiting'), async () =>
        (await waiting.customerWrote(d.entry.teamId, channel, threadTs)) ? 'started' : 'waiting',
      );
      if (started.result === 'started') {
        await d.steps.once(d.step(channel, 'waiting-card'), async () => {
          await waiting.showCard(slack, d.entry.teamId, { channelId: channel, threadTs }, d.log);
          return 'done';
        });
      }
    }
  });
}

function plainPost(d: Delivery): Parameters<Delivery['toEachRoute']>[0] {
  return async (slack, channel) => {
    await d.steps.once(d.step(channel, 'post'), () => postMessage(slack, { channel }, renderEvent(d.event)));
  };
}
