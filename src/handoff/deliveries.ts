/**
 * Chat events on the worker side: each conversation (workspace, campaignId, customerNumber) gets one parent
 * card per routed channel and its messages go into that card's thread; the platform's echo of a reply sent
 * from Slack is dropped; `message_session_completed` closes the conversation's threads. A customer message
 * reopens a resolved thread (one line says so) and starts the wait for an answer; the platform's own answer (`message_sent`) ends it (`waiting.ts`). A payload
 * without the campaign or the number names no conversation: it is a plain post in the routed channels.
 */
import { z } from 'zod';
import type { QueuedEvent, EventOutcome, Events } from '../events/index.js';
import type { MessageReceived } from '../events/events.js';
import { renderAgentLine, renderCustomerLines, renderEvent } from '../events/render/index.js';
import type { WebClient } from '@slack/web-api';
import { renderReopenedLine } from './card.js';
import { ConversationThreads, conversationOf } from './threads.js';
import type { Waiting } from './waiting.js';
import type { ChannelAudiences } from '../app/channel-audience.js';

const threadListSchema = z.array(z.object({ channelId: z.string(), threadTs: z.string() }));

/** Most customer messages one thread post carries (each is two blocks; Slack takes 50 a message). */
const MAX_LINES_PER_POST = 10;
const mergedSchema = z.array(z.object({ entryId: z.string(), data: z.unknown() }));

export function registerChatHandlers(events: Pick<Events, 'on'>, waiting: Waiting, audiences: ChannelAudiences): void {
  events.on('message_received', async (d) => {
    const into = await d.carriedBy();
    if (into !== undefined) {
      d.log.info({ into }, 'customer message was posted together with the one before it: nothing left to do');
      return 'skipped';
    }
    return postChatMessage(d, waiting, audiences);
  });
  events.on('message_sent', async (d) => {
    const ref = conversationOf(d.entry.teamId, d.event.data);
    if (ref && (await threadsOf(d).isEcho(d.entry.teamId, d.stepsOf, ref, d.event.data.messageContent))) {
      d.log.info(
        { campaignId: ref.campaignId },
        'message_sent is the echo of a reply sent from a Slack thread: not posted again',
      );
      return 'skipped';
    }
    const outcome = await postChatMessage(d, waiting, audiences);
    if (ref && outcome === 'posted') {
      // The platform answered the customer (its AI, or a human on the platform): nobody waits any more.
      const agent = d.event.data.agentName?.trim() || 'the platform’s agent';
      const changed = await d.steps.once(d.step('*', 'answered'), async () =>
        JSON.stringify(await waiting.answered(ref, { platformAgent: agent })),
      );
      // Each card in its own channel's turn: another channel's pace and pause are its own.
      const cards = threadListSchema.safeParse(JSON.parse(changed.result)).data ?? [];
      for (const at of cards) {
        await d.steps.once(d.step(at.channelId, `answered-card:${at.threadTs}`), async () => {
          await waiting.showCardInTurn(d.entry.teamId, at);
          return 'done';
        });
      }
    }
    return outcome;
  });
  events.on('message_session_completed', async (d) => {
    const ref = conversationOf(d.entry.teamId, d.event.data);
    if (!ref) return d.toEachRoute(plainPost(d, audiences));
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

function threadsOf(d: QueuedEvent): ConversationThreads {
  return new ConversationThreads(d.store, d.steps);
}

function postChatMessage(
  d: QueuedEvent<'message_received' | 'message_sent'>,
  waiting: Waiting,
  audiences: ChannelAudiences,
): Promise<EventOutcome> {
  const conversation = conversationOf(d.entry.teamId, d.event.data);
  if (!conversation) return d.toEachRoute(plainPost(d, audiences));
  const threads = threadsOf(d);
  const customer = d.event.trigger === 'message_received';
  let lines: Promise<MessageReceived[]> | undefined;
  return d.toEachRoute(async (slack, channel) => {
    // Learned before the card: the card, its lines and every later update mask what this channel may not see.
    const view = await audiences.viewFor(slack, { teamId: d.entry.teamId }, channel);
    const words = customer ? d.event.data.messageContent : undefined;
    const threadTs = await threads.threadIn(slack, d.stepsOf, channel, conversation, d.event.data, d.log, words);
    lines ??= customer ? customerLines(d as QueuedEvent<'message_received'>) : Promise.resolve([]);
    const said = await lines;
    const payload = customer
      ? renderCustomerLines(said.map((m) => view.fields(m)))
      : renderAgentLine(view.fields(d.event.data));
    const reopened = customer && (await reopenOnce(d, slack, channel, threadTs));
    await d.steps.post(d.step(channel, 'post'), slack, { channel, threadTs }, payload);
    if (customer) {
      // The newest of the messages this post carries is what the card shows the customer wrote last.
      const latest = said.at(-1)?.messageContent;
      const started = await d.steps.once(d.step(channel, 'waiting'), async () =>
        (await waiting.customerWrote(d.entry.teamId, channel, threadTs, latest)) ? 'started' : 'waiting',
      );
      // One card update per customer post shows it all: the latest words, open again, waiting since when.
      if (started.result === 'started' || reopened || latest?.trim()) {
        await d.steps.once(d.step(channel, 'waiting-card'), async () => {
          await waiting.showCard(slack, d.entry.teamId, { channelId: channel, threadTs }, d.log);
          return 'done';
        });
      }
    }
  });
}

const reopenedSchema = z.object({ by: z.string(), at: z.number().optional() }).nullable();

/**
 * A customer message in a resolved thread reopens it, once (the decision is a step of the entry, the reopen a
 * compare-and-set in the store), with one line in the thread saying so. True when this entry reopened it.
 */
async function reopenOnce(d: QueuedEvent, slack: WebClient, channel: string, threadTs: string): Promise<boolean> {
  const decided = await d.steps.once(d.step(channel, `reopen:${threadTs}`), async () =>
    JSON.stringify((await d.store.resolutions.reopen(d.entry.teamId, channel, threadTs)) ?? null),
  );
  const was = reopenedSchema.safeParse(JSON.parse(decided.result)).data;
  if (!was) return false;
  if (decided.ran)
    d.log.info({ channel, thread: threadTs }, 'resolved conversation reopened: the customer wrote again');
  await d.steps.post(
    d.step(channel, `reopened-line:${threadTs}`),
    slack,
    { channel, threadTs },
    renderReopenedLine(was.by, was.at),
  );
  return true;
}

/**
 * The customer messages this post carries: this one, and those of the same conversation that waited right
 * behind it (Slack's pace kept it waiting). The set only grows until the first channel has the post, and is
 * recorded with the messages themselves, so a retry anywhere posts the same lines and the carried entries
 * post nothing.
 */
async function customerLines(d: QueuedEvent<'message_received'>): Promise<MessageReceived[]> {
  const recordRef = d.step('*', 'merged');
  const stored = await d.steps.read(recordRef);
  const recorded = stored === null ? [] : (mergedSchema.safeParse(JSON.parse(stored)).data ?? []);
  const channels = await d.channels();
  // A post whose outcome is unknown may be in Slack already, with the lines recorded so far: the set stops growing.
  const posted = await Promise.all(channels.map((c) => d.steps.tried(d.step(c, 'post'))));
  let merged = recorded;
  if (!posted.some(Boolean)) {
    const known = new Set(recorded.map((r) => r.entryId));
    const more = d
      .waitingBehind()
      .filter((b) => !known.has(b.entryId))
      .map((b) => ({ entryId: b.entryId, data: b.event.data }));
    merged = [...recorded, ...more].slice(0, MAX_LINES_PER_POST - 1);
    if (merged.length > recorded.length) await d.steps.record(recordRef, JSON.stringify(merged));
  }
  await d.carry(merged.map((m) => m.entryId));
  return [d.event.data, ...merged.map((m) => m.data as MessageReceived)];
}

function plainPost(d: QueuedEvent, audiences: ChannelAudiences): Parameters<QueuedEvent['toEachRoute']>[0] {
  return async (slack, channel) => {
    const view = await audiences.viewFor(slack, { teamId: d.entry.teamId }, channel);
    await d.steps.post(d.step(channel, 'post'), slack, { channel }, renderEvent(d.event, view));
  };
}
