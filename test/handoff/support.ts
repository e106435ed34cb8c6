/**
 * Handoff-thread tests: a conversation driven the way it really is — platform webhooks into the bot's hook,
 * Slack events and clicks signed into /slack/events — with helpers to read what landed in the fake Slack and
 * what reached the fake platform.
 */
import { randomBytes } from 'node:crypto';
import { LINK_SESSION_ACTION } from '../../src/handoff/card.js';
import { LINK_SESSION_CALLBACK, RETRY_ACTION } from '../../src/handoff/index.js';
import type { SlackMessage, SlackView } from '../fakes/slack.js';
import { findAction } from '../support/blocks.js';
import { MEMBER_ID, type Harness } from '../support/harness.js';
import { deliver, posts, routeTo } from '../events/support.js';

export const uid = () => randomBytes(4).toString('hex');

let seconds = 0;
/** A fresh ISO timestamp per call (message dedup keys include the timestamp). */
function at(): string {
  return new Date(Date.UTC(2024, 2, 8, 16, 0, 0) + ++seconds * 1000).toISOString();
}

let channels = 0;
function channelId(): string {
  return `C0HO${String(++channels).padStart(4, '0')}${uid().slice(0, 3).toUpperCase()}`;
}

export interface Conversation {
  campaignId: string;
  customerNumber: string;
  channels: string[];
  hook: string;
  /** A customer message (message_received) through the hook. */
  customer(text: string, extra?: Record<string, unknown>): Promise<void>;
  /** An agent message (message_sent) through the hook. */
  agent(text: string, extra?: Record<string, unknown>): Promise<void>;
  /** message_session_completed through the hook. */
  complete(): Promise<void>;
  /** The parent card in `channel` (the first top-level post), waiting for it. */
  card(channel?: string): Promise<SlackMessage>;
  /** The card's blocks as Slack holds them now, as JSON text. */
  cardText(channel?: string): Promise<string>;
  /** Waits until the card's blocks (JSON text) pass `check`, and returns them. */
  waitCard(check: (text: string) => boolean, channel?: string): Promise<string>;
  /** Presses the button `actionId` on the card (as a member by default); throws unless Slack's request is taken. */
  pressCard(
    actionId: string,
    opts?: { channel?: string; userId?: string; value?: string; responseUrlId?: string },
  ): Promise<void>;
  /** The replies in the card's thread (without the card). */
  thread(channel?: string): SlackMessage[];
  /** Waits until the thread has `n` replies. */
  waitThread(n: number, channel?: string): Promise<SlackMessage[]>;
  /** A platform session in human handoff (or not) for this campaign. */
  session(handoff?: boolean): string;
  /** Presses Link session on the card (as a member by default); resolves with the form Slack then shows. */
  openLinkForm(channel?: string, userId?: string): Promise<SlackView>;
  /** Link session button on the card, then the modal submitted with `sessionId`. */
  linkSession(sessionId: string, channel?: string, userId?: string): Promise<void>;
  /** A human's thread reply as a Slack message event; returns its ts. */
  reply(
    text: string,
    opts?: {
      channel?: string;
      userId?: string;
      eventId?: string;
      retryNum?: number;
      ts?: string;
      extra?: Record<string, unknown>;
      /** The workspace's Enterprise Grid org, named in the event's envelope as Slack does. */
      enterpriseId?: string;
    },
  ): Promise<string>;
  /** Presses the button `actionId` (Retry by default) under the notice `noticeTs` (`ephemeral`: a private one). */
  press(
    noticeTs: string,
    opts?: { channel?: string; userId?: string; actionId?: string; value?: string; ephemeral?: boolean },
  ): Promise<void>;
}

const FULL = {
  agentId: 'agent-31',
  customerName: 'Noah Wilson',
  campaignName: 'Chat Support',
  agentName: 'Sam',
  campaignType: 'messages',
};

export async function openConversation(
  h: Harness,
  opts: {
    channels?: number;
    customerNumber?: string;
    /** Channels to route to instead of new ones. */ in?: string[];
  } = {},
): Promise<Conversation> {
  const campaignId = `camp-h-${uid()}`;
  const customerNumber = opts.customerNumber ?? `+1415${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
  const list = opts.in ?? Array.from({ length: opts.channels ?? 1 }, channelId);
  const hook = await routeTo(
    h,
    list.flatMap((c) => [
      { campaignId, triggerName: 'message_received', channelId: c },
      { campaignId, triggerName: 'message_sent', channelId: c },
    ]),
  );
  const base = { campaignId, customerNumber, ...FULL };
  const first = list[0]!;
  const send = async (payload: Record<string, unknown>) => {
    const res = await deliver(hook, [payload]);
    if (res.status !== 200) throw new Error(`hook answered ${res.status}: ${await res.text()}`);
  };
  // The conversation's own card: a channel may hold other conversations' cards (`in`).
  const cardIn = (c: string) =>
    h.slack.waitFor(() => posts(h, c).find((m) => JSON.stringify(m.blocks ?? '').includes(campaignId)));
  const conv: Conversation = {
    campaignId,
    customerNumber,
    channels: list,
    hook,
    customer: (text, extra = {}) => send({ ...base, messageContent: text, receivedAt: at(), ...extra }),
    agent: (text, extra = {}) => send({ ...base, messageContent: text, sentAt: at(), ...extra }),
    complete: () => send({ triggerName: 'message_session_completed', campaignId, customerNumber, completedAt: at() }),
    card: (c = first) => cardIn(c),
    async cardText(c = first) {
      return JSON.stringify(h.slack.message(c, (await cardIn(c)).ts)?.blocks ?? []);
    },
    async waitCard(check, c = first) {
      const card = await cardIn(c);
      return h.slack.waitFor(() => {
        const text = JSON.stringify(h.slack.message(c, card.ts)?.blocks ?? []);
        return check(text) && text;
      });
    },
    async pressCard(actionId, o = {}) {
      const c = o.channel ?? first;
      const card = await cardIn(c);
      const res = await h.signer.blockAction({
        actionId,
        channelId: c,
        messageTs: card.ts,
        userId: o.userId ?? MEMBER_ID,
        ...(o.value !== undefined ? { value: o.value } : {}),
        ...(o.responseUrlId !== undefined ? { responseUrlId: o.responseUrlId } : {}),
      });
      if (res.status !== 200) throw new Error(`${actionId} on the card answered ${res.status}`);
    },
    thread(c = first) {
      const card = posts(h, c).find((m) => JSON.stringify(m.blocks ?? '').includes(campaignId));
      return card ? h.slack.thread(c, card.ts).slice(1) : [];
    },
    async waitThread(n, c = first) {
      const card = await cardIn(c);
      return h.slack.waitFor(() => {
        const replies = h.slack.thread(c, card.ts).slice(1);
        return replies.length >= n ? replies : undefined;
      });
    },
    session(handoff = true) {
      const id = `sess-${uid()}`;
      h.platform.state.sessions[id] = { campaignId, handoff };
      return id;
    },
    async openLinkForm(c = first, userId = MEMBER_ID) {
      const opened = h.slack.callsTo('views.open').length;
      await conv.pressCard(LINK_SESSION_ACTION, { channel: c, userId });
      await h.slack.waitFor(() => h.slack.callsTo('views.open').length > opened);
      return h.slack.views(LINK_SESSION_CALLBACK).at(-1)!.view;
    },
    async linkSession(sessionId, c = first, userId = MEMBER_ID) {
      const card = await cardIn(c);
      await conv.waitThread(1, c); // the card is on record once the first line follows it
      await conv.openLinkForm(c, userId);
      const submitted = await h.signer.viewSubmission({
        callbackId: LINK_SESSION_CALLBACK,
        userId,
        values: { session_id: { value: { type: 'plain_text_input', value: sessionId } } },
      });
      if (submitted.status !== 200 || submitted.body !== '')
        throw new Error(`Link session submit answered ${submitted.status} ${submitted.body}`);
      await h.slack.waitFor(() => JSON.stringify(h.slack.message(c, card.ts)?.blocks ?? []).includes(sessionId));
      // Told to the one who linked it, in the thread; the thread itself holds only the conversation.
      await h.slack.waitFor(() =>
        h.slack
          .ephemerals(c)
          .some(
            (e) =>
              e.user === userId &&
              e.thread_ts === card.ts &&
              e.text === 'Chat session linked' &&
              JSON.stringify(e.blocks).includes(sessionId),
          ),
      );
    },
    async reply(text, o = {}) {
      const c = o.channel ?? first;
      const card = await cardIn(c);
      await conv.waitThread(1, c); // a human can't reply before the first line; a test could
      const ts = o.ts ?? h.slack.nextTs();
      const res = await h.signer.event(
        { type: 'message', channel: c, user: o.userId ?? MEMBER_ID, text, ts, thread_ts: card.ts, ...o.extra },
        {
          ...(o.eventId ? { eventId: o.eventId } : {}),
          ...(o.retryNum !== undefined ? { retryNum: o.retryNum } : {}),
          ...(o.enterpriseId ? { enterpriseId: o.enterpriseId } : {}),
        },
      );
      if (res.status !== 200) throw new Error(`message event answered ${res.status}`);
      return ts;
    },
    async press(noticeTs, o = {}) {
      const c = o.channel ?? first;
      const card = await cardIn(c);
      const res = await h.signer.blockAction({
        actionId: o.actionId ?? RETRY_ACTION,
        channelId: c,
        messageTs: noticeTs,
        threadTs: card.ts,
        userId: o.userId ?? MEMBER_ID,
        ...(o.value !== undefined ? { value: o.value } : {}),
        ...(o.ephemeral ? { ephemeral: true } : {}),
      });
      if (res.status !== 200) throw new Error(`button click answered ${res.status}`);
    },
  };
  return conv;
}

/** The reaction names on a message. */
export function reactions(h: Harness, channel: string, ts: string): string[] {
  return (h.slack.message(channel, ts)?.reactions ?? []).map((r) => r.name);
}

/** What the fake platform received for send-human-response of a campaign. */
export function sends(h: Harness, campaignId: string) {
  return h.platform.requests.filter(
    (r) => r.method === 'POST' && r.path === `/campaign-chat/${campaignId}/send-human-response`,
  );
}

/** The value of the Retry / Send again button on a notice (what a screen still showing it would send). */
export function retryValue(message: Pick<SlackMessage, 'blocks'>): string {
  const value = findAction(message.blocks, RETRY_ACTION)?.value;
  if (value === undefined) throw new Error('the notice has no Retry button');
  return value;
}

/** Messages told privately (ephemeral) to `user` in the thread of the card `threadTs` whose blocks mention `text`. */
export function privateNotices(h: Harness, channel: string, threadTs: string, user: string, text: string) {
  return h.slack
    .ephemerals(channel)
    .filter((e) => e.user === user && e.thread_ts === threadTs && JSON.stringify(e.blocks ?? e.text).includes(text));
}

/** Bot messages in a thread whose blocks mention `text`. */
export function notices(replies: SlackMessage[], text: string): SlackMessage[] {
  return replies.filter((m) => m.bot_id !== undefined && JSON.stringify(m.blocks ?? m.text).includes(text));
}
