/**
 * Handoff threads, worker side: a conversation (workspace, campaignId, customerNumber) gets one parent card
 * per routed channel, its messages go into that card's thread, the platform's echo of a reply sent from Slack
 * is recognised, and `message_session_completed` closes the threads.
 *
 * Every Slack write is a `StepLog` step of the queue entry, so a retried entry (this worker or one that took
 * it over) never posts a card, a line or a closing note twice. The queue's order key serialises one
 * conversation's events, so two messages of it never race to open a card.
 */
import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import type { Logger } from '../logger.js';
import type { MessagePayload } from '../slack/blocks.js';
import { pagedOnArrival, showsCustomerData, type Store } from '../store/index.js';
import { threadCustomer } from '../app/customer-view.js';
import type { CardFacts, ConversationRef, ThreadInfo } from '../store/conversations.js';
import type { MessageReceived, MessageSent, SessionCompleted } from '../events/events.js';
import { renderConversationCard, renderSessionClosedLine } from './card.js';
import { assignOnArrival } from './assignment.js';
import { slackErrorCode, updateMessage } from '../slack/post.js';
import { isGoneOrRefused } from '../delivery/slack-errors.js';
import type { StepLog, StepRef } from '../delivery/steps.js';

/** The conversation an event belongs to; undefined when the payload lacks the campaign or the number. */
export function conversationOf(
  teamId: string,
  data: { campaignId?: string | undefined; customerNumber?: string | undefined },
): ConversationRef | undefined {
  const campaignId = data.campaignId?.trim();
  const customerNumber = data.customerNumber?.trim();
  if (!campaignId || !customerNumber) return undefined;
  return { teamId, campaignId, customerNumber };
}

/** The card of a thread as it is stored now. */
function cardOf(info: ThreadInfo): MessagePayload {
  const customer = threadCustomer(info);
  return renderConversationCard({
    campaignId: info.campaignId,
    customerNumber: customer.customerNumber,
    facts: info.facts,
    sessionId: info.sessionId,
    reportedSessionId: info.reportedSessionId,
    state: info.state,
    owner: info.owner,
    answeredBy: info.answeredBy,
    waitingSince: info.waitingSince,
    overdue: info.overdue,
    resolvedBy: info.resolvedBy,
    resolvedAt: info.resolvedAt,
    latestWords: customer.latestWords,
    pagedGroup: info.pagedGroup,
    assignment: info.assignment,
  });
}

/**
 * Re-renders a thread's parent card from the store (session, state). A card that is gone (or in a channel that
 * refuses the bot) is logged and skipped; any other error (a 429 included) is thrown to the caller.
 */
export async function updateCard(slack: WebClient, info: ThreadInfo, logger: Logger): Promise<void> {
  const card = cardOf(info);
  try {
    await updateMessage(slack, { channel: info.channelId, ts: info.threadTs }, card);
  } catch (err) {
    const code = slackErrorCode(err);
    if (!isGoneOrRefused(code)) throw err;
    logger.warn(
      { channel: info.channelId, thread: info.threadTs, slackError: code },
      'could not update a conversation card (it is gone); left as it is',
    );
  }
}

function factsOf(data: MessageReceived | MessageSent): CardFacts {
  const facts: CardFacts = {};
  for (const name of ['customerName', 'campaignName', 'agentName', 'campaignType'] as const) {
    const value = data[name]?.trim();
    if (value) facts[name] = value;
  }
  return facts;
}

const closedThreadsSchema = z.array(z.object({ channelId: z.string(), threadTs: z.string() }));

export class ConversationThreads {
  constructor(
    private readonly store: Store,
    private readonly steps: StepLog,
  ) {}

  /**
   * Whether a `message_sent` is the platform's echo of a reply sent from a Slack thread. Decided once per
   * queue entry (a retry must not consume a second echo mark, nor post what it decided to drop).
   */
  async isEcho(teamId: string, entryId: string, ref: ConversationRef, content: string | undefined): Promise<boolean> {
    const text = content?.trim();
    if (!text) return false;
    const decision = await this.steps.once(step(teamId, entryId, '*', 'echo'), async () =>
      (await this.store.conversations.takeEcho(ref, text)) ? 'echo' : 'new',
    );
    return decision.result === 'echo';
  }

  /**
   * The parent ts of the conversation's thread in `channel`: the open one, or a new card posted now. A
   * `sessionId` in the payload (not in the spec) is linked only where none is; it never replaces the session a
   * person linked — a payload can be forged — the card shows it with a button to switch instead. A new card
   * shows the customer's words (`latestWords`) and pages the channel's user group when it is set to
   * (`/campaign handoff-sla … page:new|both`); where the channel assigns (`assign:`), it is handed to an agent
   * on shift, who owns it as by Claim and is mentioned in its first post too (`assignment.ts`).
   */
  async threadIn(
    slack: WebClient,
    entryId: string,
    channel: string,
    ref: ConversationRef,
    data: MessageReceived | MessageSent,
    logger: Logger,
    latestWords?: string,
  ): Promise<string> {
    const conversations = this.store.conversations;
    const sessionId = data.sessionId?.trim() || undefined;
    const existing = (await conversations.threads(ref)).get(channel);
    if (existing) {
      if (sessionId) await this.adoptSession(slack, ref.teamId, channel, existing, sessionId, logger);
      return existing;
    }
    const facts = factsOf(data);
    const sla = await this.store.handoffSla.get(ref.teamId, channel);
    const assignment = await assignOnArrival(
      this.store,
      this.steps,
      { teamId: ref.teamId, entryId, channel },
      sla?.assign,
    );
    const owner = assignment && 'to' in assignment ? assignment.to : undefined;
    // The group is paged as chats arrive whether or not one is assigned: the confirmation promised it, and the
    // group still sees what arrives; an assigned agent is mentioned besides.
    const pagedGroup = pagedOnArrival(sla);
    const shown = threadCustomer({
      customerNumber: ref.customerNumber,
      facts,
      latestWords,
      customerDataShown: showsCustomerData(await this.store.channelAudiences.get(ref.teamId, channel)),
    });
    const card = await this.steps.post(
      step(ref.teamId, entryId, channel, 'card'),
      slack,
      { channel },
      renderConversationCard({ ...ref, ...shown, facts, sessionId, state: 'open', pagedGroup, owner, assignment }),
    );
    const opened = { latestWords, pagedGroup, ...(assignment ? { assignment } : {}) };
    await conversations.recordThread(ref, channel, card.result, facts, sessionId, opened);
    if (owner) await conversations.claim(ref.teamId, channel, card.result, owner);
    if (card.ran)
      logger.info(
        { channel, thread: card.result, campaignId: ref.campaignId, userGroup: pagedGroup, assignedTo: owner },
        owner
          ? pagedGroup
            ? 'conversation card opened, assigned to an agent on shift, paging the channel’s user group'
            : 'conversation card opened, assigned to an agent on shift'
          : pagedGroup
            ? 'conversation card opened, paging the channel’s user group'
            : 'conversation card opened',
      );
    return card.result;
  }

  /** Closes the conversation once per entry; returns the threads that were open (the same list on a retry). */
  async closeOnce(
    teamId: string,
    entryId: string,
    ref: ConversationRef,
  ): Promise<Array<{ channelId: string; threadTs: string }>> {
    const closed = await this.steps.once(step(teamId, entryId, '*', 'close'), async () =>
      JSON.stringify(await this.store.conversations.close(ref)),
    );
    const parsed = closedThreadsSchema.safeParse(JSON.parse(closed.result));
    return parsed.success ? parsed.data : [];
  }

  /** A closed thread: its card shows "closed" without a session, and the thread gets a closing line. */
  async markClosed(
    slack: WebClient,
    entryId: string,
    teamId: string,
    thread: { channelId: string; threadTs: string },
    data: SessionCompleted,
    logger: Logger,
  ): Promise<void> {
    const { channelId, threadTs } = thread;
    await this.steps.once(step(teamId, entryId, channelId, `closed-card:${threadTs}`), async () => {
      const info = await this.store.conversations.findThread(teamId, channelId, threadTs);
      if (info) await updateCard(slack, info, logger);
      return 'done';
    });
    await this.steps.post(
      step(teamId, entryId, channelId, `closed-line:${threadTs}`),
      slack,
      { channel: channelId, threadTs },
      renderSessionClosedLine(data),
    );
  }

  private async adoptSession(
    slack: WebClient,
    teamId: string,
    channel: string,
    threadTs: string,
    sessionId: string,
    logger: Logger,
  ): Promise<void> {
    const conversations = this.store.conversations;
    const info = await conversations.findThread(teamId, channel, threadTs);
    if (!info || info.state !== 'open' || info.sessionId === sessionId || info.reportedSessionId === sessionId) return;
    if (!info.sessionId) {
      await conversations.linkSession(teamId, channel, threadTs, sessionId);
      await updateCard(slack, { ...info, sessionId }, logger);
      logger.info({ channel, thread: threadTs }, 'chat session linked from the platform’s payload');
      return;
    }
    await conversations.reportSession(teamId, channel, threadTs, sessionId);
    await updateCard(slack, { ...info, reportedSessionId: sessionId }, logger);
    logger.warn(
      { channel, thread: threadTs },
      'the platform’s payload names another session than the linked one: shown on the card, replies unchanged',
    );
  }
}

function step(teamId: string, entryId: string, channel: string, name: string): StepRef {
  return { teamId, entryId, channel, step: name };
}
