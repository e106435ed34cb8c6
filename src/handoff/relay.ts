/**
 * Slack → customer: a human's reply in a conversation thread goes out through send-human-response.
 *
 *   message event (acked by Bolt at once) → a human's thread reply? (no bot, not us, not an edit) → a thread
 *   we opened? → `note:` stays in Slack (`session: <id>` too: it links the session, `session-reply.ts`) → event id marked (a Slack retry stops here) → send claim for the
 *   reply (channel, ts) → its files that can go (`attachments.ts`; the others told to the author) → echo
 *   expected → a link per file → POST → ✅ / ⚠️ + notice / ❌ + notice with Retry.
 *
 * A Quick reply (`quick-reply.ts`) joins that path at the send claim: the bot shows it in the thread on the
 * agent's behalf, and that post is the reply its receipts, notices and Retry are about. A notice goes where
 * it is needed: nothing left Slack (no session, closed) → privately to the author; the platform refused or
 * failed → in the thread, where a teammate can act on it.
 *
 * No path sends a reply twice: every send first wins a claim (`claimSend`, SET NX) for its attempt number —
 * Slack's retries, a second replica and a double-clicked Retry all lose it. A reply whose send was cut off
 * (process died) stays `sending`; it is only sent again when someone presses Retry, with the wording saying
 * the outcome is unknown.
 *
 * Logs carry ids, the agent's display name and outcomes; message text only at debug level.
 */
import { SegmentedMessage } from 'sms-segments-calculator';
import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import { ApiConnectionError, ApiTimeoutError, BadRequestError } from '../api/index.js';
import type { Deps } from '../app/deps.js';
import { NotConnectedError } from '../app/platform-access.js';
import { failureOf, upstreamRef } from '../app/failure.js';
import type { MessagePayload } from '../slack/blocks.js';
import type { Logger } from '../logger.js';
import type { ReplyState, ThreadInfo, ThreadReply } from '../store/conversations.js';
import { displayName, platformAgentId } from './agents.js';
import {
  renderEditedNote,
  renderFilesNotice,
  renderMirroredReply,
  renderNotAllowedNotice,
  renderNotShownNotice,
  renderOnBehalf,
  renderReplyNotice,
  renderSmsSegmentsNotice,
  renderWithdrawnNotice,
  type ReplyAddress,
  type SendOutcome,
} from './notices.js';
import { isPrivateNote, toCustomerText } from './slack-text.js';
import { linkFromReply, sessionReplyId } from './session-reply.js';
import { attachmentLinks, filesOnlyMessage, replyFiles, type ReplyFiles } from './attachments.js';
import { refusalReason, replyRefusal } from './standing.js';
import { postInThread, postPrivately, updateNotice, type ThreadPosts } from './thread-posts.js';
import type { Waiting } from './waiting.js';

/** Slack retries an event for about an hour; a day is plenty. */
const EVENT_DEDUP_TTL_MS = 24 * 60 * 60_000;
/** A `sending` older than this was cut off (the platform client gives up well before). */
const STALE_SENDING_MS = 2 * 60_000;

/**
 * Outcomes where nothing reached the platform (no session linked, conversation closed): told to the author
 * alone. A refusal or failure of the platform is told in the thread: a teammate may have to act on it.
 */
const NOTHING_SENT: ReadonlySet<ReplyState> = new Set(['unlinked', 'closed']);

const NO_FILES: ReplyFiles = { files: [], refused: [] };

/** Replaces the private notice whose button was pressed (its response_url); false when Slack did not take it. */
export type ReplacePrivateNotice = (notice: MessagePayload) => Promise<boolean>;

const REACTION: Partial<Record<ReplyState, string>> = {
  sent: 'white_check_mark',
  refused: 'warning',
  unlinked: 'warning',
  closed: 'warning',
  failed: 'x',
};

const text = z
  .string()
  .nullish()
  .transform((v) => v ?? undefined);

const innerMessageSchema = z.looseObject({
  ts: text,
  user: text,
  bot_id: text,
  subtype: text,
  text,
  thread_ts: text,
});

const messageEventSchema = z.looseObject({
  type: z.literal('message'),
  subtype: text,
  channel: z.string(),
  ts: text,
  user: text,
  bot_id: text,
  text,
  thread_ts: text,
  files: z.array(z.unknown()).nullish(),
  message: innerMessageSchema.nullish(),
  previous_message: innerMessageSchema.nullish(),
  deleted_ts: text,
  /** In a shared channel: the author's team, and the team the message was posted from. */
  user_team: text,
  source_team: text,
});

type MessageEvent = z.output<typeof messageEventSchema>;

export interface EventContext {
  teamId: string;
  eventId: string | undefined;
  retryNum: number | undefined;
  botUserId: string | undefined;
  /** The installing workspace's Enterprise Grid org, when it has one. */
  enterpriseId?: string | undefined;
  client: WebClient;
}

export class ReplyRelay {
  private readonly log: Logger;

  constructor(
    private readonly deps: Deps,
    private readonly waiting: Waiting,
    private readonly posts: ThreadPosts,
  ) {
    this.log = deps.logger.child({ component: 'handoff' });
  }

  /** Every `message` event of the channels the bot is in. Cheap for anything that is not a handoff reply. */
  async onMessageEvent(raw: unknown, ctx: EventContext): Promise<void> {
    const parsed = messageEventSchema.safeParse(raw);
    if (!parsed.success) return;
    const ev = parsed.data;
    switch (ev.subtype) {
      case undefined:
      case 'file_share':
      case 'thread_broadcast':
        return this.onReply(ev, ctx);
      case 'message_changed':
        return this.onEdited(ev, ctx);
      case 'message_deleted':
        return this.onDeleted(ev, ctx);
      default:
        return;
    }
  }

  /**
   * The Retry / Send again button under a notice. Returns the sentence for the presser when nothing was sent.
   * `notice`: the notice pressed — in the thread (its ts, updated in place), or private to the presser (replaced
   * through the press's response_url: an ephemeral message can't be updated with `chat.update`).
   */
  async retry(
    address: ReplyAddress,
    presser: { teamId: string; enterpriseId?: string | undefined; userId: string; userTeam?: string | undefined },
    client: WebClient,
    notice: { ts?: string | undefined; replacePrivate?: ReplacePrivateNotice | undefined },
  ): Promise<string | undefined> {
    const noticeTs = notice.ts;
    const conversations = this.deps.store.conversations;
    const { channel, threadTs, replyTs } = address;
    const { teamId, userId: pressedBy } = presser;
    const log = this.log.child({ team: teamId, channel, thread: threadTs, reply: replyTs, pressedBy });
    const refusal = await replyRefusal(
      this.deps,
      client,
      { teamId, enterpriseId: presser.enterpriseId },
      { id: pressedBy, team: presser.userTeam },
      log,
    );
    if (refusal) {
      log.info({ refusal }, 'Retry pressed by someone who may not answer customers: nothing sent');
      return `Nothing was sent: ${refusalReason(refusal)}`;
    }
    const reply = await conversations.findReply(teamId, channel, threadTs, replyTs);
    if (!reply) return 'That reply is no longer on record — write it again in the thread.';
    switch (reply.state) {
      case 'sent':
        return 'That reply was already sent — the customer has it.';
      case 'withdrawn':
        return 'That reply was deleted or turned into a note, so it is not sent.';
      case 'sending':
        if (Date.now() - reply.updatedAt < STALE_SENDING_MS) return 'That reply is being sent right now.';
        break;
      default:
        break;
    }
    if (!(await conversations.claimSend(teamId, channel, replyTs, reply.attempts))) {
      log.info('Retry pressed while another press was already sending the reply: not sent twice');
      return 'Someone just pressed it: that reply is already being sent.';
    }
    const sending: ThreadReply = {
      ...reply,
      state: 'sending',
      attempts: reply.attempts + 1,
      updatedAt: Date.now(),
      ...(noticeTs && !reply.noticeTs ? { noticeTs } : {}),
    };
    await conversations.saveReply(teamId, channel, threadTs, replyTs, sending);
    const thread = await conversations.findThread(teamId, channel, threadTs);
    const agentName = await displayName(this.deps, client, teamId, reply.user);
    const outcome = thread ? await this.send(thread, sending, agentName, log) : ({ kind: 'closed' } as const);
    await this.settle({
      client,
      teamId,
      thread,
      address,
      reply: sending,
      previous: reply.state,
      outcome,
      agentName,
      retriedBy: pressedBy,
      replacePrivate: notice.replacePrivate,
      log,
    });
    return undefined;
  }

  /**
   * A reply written in the card's Quick reply form by `user` (who may answer customers, checked by the form):
   * shown in the thread on their behalf — so the team sees what the customer got — then sent and receipted
   * exactly like a reply typed in the thread (✅ on that post, the same notices, Retry, mirror, SLA).
   */
  async sendOnBehalf(client: WebClient, thread: ThreadInfo, user: string, text: string): Promise<void> {
    const { teamId, channelId: channel, threadTs } = thread;
    const log = this.log.child({ team: teamId, channel, thread: threadTs, user, campaignId: thread.campaignId });
    const agentName = await displayName(this.deps, client, teamId, user);
    const shown = await postInThread(client, { channel, threadTs }, renderOnBehalf(agentName, text), log);
    if (!shown) {
      // Never sent unseen: the team would not know what the customer got.
      await postPrivately(client, { channel, threadTs }, user, renderNotShownNotice(), log);
      return;
    }
    const address: ReplyAddress = { channel, threadTs, replyTs: shown };
    // A new post: the claim is always won, and it numbers this first send as Retry expects.
    await this.deps.store.conversations.claimSend(teamId, channel, shown, 0);
    const reply: ThreadReply = { user, text, state: 'sending', attempts: 1, updatedAt: Date.now() };
    await this.deps.store.conversations.saveReply(teamId, channel, threadTs, shown, reply);
    log.info({ agentName }, 'quick reply shown in the thread; sending it');
    const outcome = await this.send(thread, reply, agentName, log);
    await this.settle({ client, teamId, thread, address, reply, previous: undefined, outcome, agentName, log });
  }

  private async onReply(ev: MessageEvent, ctx: EventContext): Promise<void> {
    const { teamId, client } = ctx;
    if (ev.bot_id || !ev.user || ev.user === ctx.botUserId || !ev.ts) return;
    const threadTs = ev.thread_ts;
    if (!threadTs || threadTs === ev.ts) return; // a channel message or a thread's parent, not a reply
    const conversations = this.deps.store.conversations;
    const thread = await conversations.findThread(teamId, ev.channel, threadTs);
    if (!thread) return; // a thread that is not a handoff conversation
    const address: ReplyAddress = { channel: ev.channel, threadTs, replyTs: ev.ts };
    const log = this.log.child({
      team: teamId,
      channel: ev.channel,
      thread: threadTs,
      reply: ev.ts,
      user: ev.user,
      campaignId: thread.campaignId,
    });

    if (isPrivateNote(ev.text)) {
      log.debug('private note in a handoff thread: stays in Slack');
      return;
    }
    const sessionId = sessionReplyId(ev.text);
    if (sessionId !== undefined) {
      const reply = { user: ev.user, userTeam: ev.user_team, ts: ev.ts, sessionId };
      const ws = { teamId, enterpriseId: ctx.enterpriseId };
      if (await this.firstDelivery(ctx, log))
        await linkFromReply(this.deps, this.posts, client, ws, thread, reply, log);
      return;
    }
    if (!(await this.firstDelivery(ctx, log))) return;
    if (!(await conversations.claimSend(teamId, ev.channel, ev.ts, 0))) {
      log.info('this reply is already being handled: not sent twice');
      return;
    }
    const refusal = await replyRefusal(
      this.deps,
      client,
      { teamId, enterpriseId: ctx.enterpriseId },
      { id: ev.user, team: ev.user_team },
      log,
    );
    if (refusal) {
      await postPrivately(client, address, ev.user, renderNotAllowedNotice(ev.user, refusalReason(refusal)), log);
      await this.posts.receipt(teamId, address, { add: 'warning' });
      log.info(
        { refusal, userTeam: ev.user_team, sourceTeam: ev.source_team },
        'a reply from someone who may not answer customers: nothing sent',
      );
      return;
    }

    const agentName = await displayName(this.deps, client, teamId, ev.user);
    const message = await toCustomerText(ev.text ?? '', (id) => displayName(this.deps, client, teamId, id));
    const { files, refused } = ev.files?.length ? await replyFiles(this.deps, client, ev.files, log) : NO_FILES;
    if (refused.length > 0) {
      const rest = message !== '' ? 'text' : files.length > 0 ? 'files' : 'nothing';
      await postPrivately(client, address, ev.user, renderFilesNotice(ev.user, refused, rest), log);
      log.info({ agentName, refused: refused.length, sent: files.length }, 'files of a handoff reply were not sent');
    }
    if (message === '' && files.length === 0) {
      if (refused.length > 0) await this.posts.receipt(teamId, address, { add: 'warning' });
      return;
    }
    const reply: ThreadReply = {
      user: ev.user,
      text: message !== '' ? message : filesOnlyMessage(files),
      ...(files.length > 0 ? { files } : {}),
      state: 'sending',
      attempts: 1,
      updatedAt: Date.now(),
    };
    await conversations.saveReply(teamId, ev.channel, threadTs, ev.ts, reply);
    const outcome = await this.send(thread, reply, agentName, log);
    await this.settle({ client, teamId, thread, address, reply, previous: undefined, outcome, agentName, log });
  }

  /** Marks the Slack event id; false for a delivery already seen (Slack's retry of the same event). */
  private async firstDelivery(ctx: EventContext, log: Logger): Promise<boolean> {
    if (!ctx.eventId) return true;
    if (await this.deps.store.dedup.markOnce(ctx.teamId, 'slack-event', ctx.eventId, EVENT_DEDUP_TTL_MS)) return true;
    log.info(
      { eventId: ctx.eventId, retryNum: ctx.retryNum },
      'Slack delivered this event again: already handled, nothing sent twice',
    );
    return false;
  }

  /** One send-human-response for a reply whose send claim is already won. */
  private async send(thread: ThreadInfo, reply: ThreadReply, agentName: string, log: Logger): Promise<SendOutcome> {
    if (thread.state === 'closed') return { kind: 'closed' };
    const sessionId = thread.sessionId;
    if (!sessionId) return { kind: 'unlinked' };
    const ref = { teamId: thread.teamId, campaignId: thread.campaignId, customerNumber: thread.customerNumber };
    const conversations = this.deps.store.conversations;
    let api;
    let agentId: string | undefined;
    let attachments: string[] | undefined;
    try {
      api = await this.deps.platform.clientFor(thread.teamId);
      agentId = await platformAgentId(this.deps, thread.teamId, reply.user);
      // New links for each send: none is kept with the reply (see attachments.ts).
      if (reply.files?.length) attachments = await attachmentLinks(this.deps, thread.teamId, reply.files);
      // Before the send: the platform's `message_sent` echo may arrive before the answer does.
      await conversations.expectEcho(ref, reply.text);
    } catch (err) {
      // Nothing went out (no key, the store failing): the reply waits for Retry.
      if (!(err instanceof NotConnectedError)) log.error({ err }, 'could not prepare a handoff reply; it was not sent');
      return { kind: 'failed', ...failureOf(err), unknown: false };
    }
    log.debug({ chars: reply.text.length }, 'sending a handoff reply');
    try {
      await api.chat.sendHumanResponse(thread.campaignId, {
        sessionId,
        message: reply.text,
        ...(agentId ? { agentId } : {}),
        ...(attachments ? { attachments } : {}),
      });
      log.info(
        { agentName, agentId, chars: reply.text.length, files: attachments?.length ?? 0, attempt: reply.attempts },
        'handoff reply sent to the customer',
      );
      return { kind: 'sent' };
    } catch (err) {
      // Not (known to be) delivered: no echo to wait for. Should it have arrived after all, its echo is then
      // posted in the thread as the agent's message — which tells the agents it did.
      await conversations.forgetEcho(ref, reply.text).catch(() => undefined);
      if (err instanceof BadRequestError) {
        log.info(
          { agentName, code: err.code, requestId: err.requestId },
          'handoff reply refused (400): session stale, closed or not handed off',
        );
        return { kind: 'refused', platformMessage: err.message, ref: upstreamRef(err) };
      }
      const unknown =
        err instanceof ApiTimeoutError || (err instanceof ApiConnectionError && err.code !== 'ECONNREFUSED');
      log.warn({ err, agentName, attempt: reply.attempts }, 'handoff reply failed');
      return {
        kind: 'failed',
        unknown,
        ...(err instanceof ApiTimeoutError
          ? { sentence: 'The platform did not answer in time.' }
          : unknown
            ? { sentence: 'The connection to the platform broke before it answered.' }
            : failureOf(err)),
      };
    }
  }

  /** Stores the outcome, swaps the reaction, posts or updates the notice, and mirrors a sent reply. */
  private async settle(a: {
    client: WebClient;
    teamId: string;
    thread: ThreadInfo | null;
    address: ReplyAddress;
    reply: ThreadReply;
    previous: ReplyState | undefined;
    outcome: SendOutcome;
    agentName: string;
    retriedBy?: string;
    replacePrivate?: ReplacePrivateNotice | undefined;
    log: Logger;
  }): Promise<void> {
    const { client, address, outcome, log } = a;
    const state: ReplyState = outcome.kind;
    let noticeTs = a.reply.noticeTs;
    if (outcome.kind !== 'sent' || (a.retriedBy && (noticeTs || a.replacePrivate))) {
      const notice = renderReplyNotice(outcome, address, a.reply.user, a.retriedBy);
      if (noticeTs && (await updateNotice(client, address.channel, noticeTs, notice, log))) {
        // updated in place: the old buttons are gone with it
      } else if (a.replacePrivate && (await a.replacePrivate(notice))) {
        // the private notice pressed now says what became of the reply
      } else if (NOTHING_SENT.has(outcome.kind)) {
        // Nothing left Slack: only the one who wrote (or pressed) needs to know, and the ⚠️ stays on the reply.
        await postPrivately(client, address, a.retriedBy ?? a.reply.user, notice, log);
      } else if (outcome.kind !== 'sent') {
        noticeTs = await postInThread(client, address, notice, log);
      }
    }
    try {
      await this.deps.store.conversations.saveReply(a.teamId, address.channel, address.threadTs, address.replyTs, {
        ...a.reply,
        state,
        updatedAt: Date.now(),
        ...(noticeTs ? { noticeTs } : {}),
      });
    } catch (err) {
      // The reply stays `sending` on record: Retry then says the outcome is unknown instead of sending blindly.
      log.error({ err, outcome: state }, 'could not record the outcome of a handoff reply');
    }
    // Before the ✅: whoever sees the receipt can count on the SMS note being there when there is one.
    if (outcome.kind === 'sent' && a.thread && !a.retriedBy)
      await this.tellSmsSegments(client, a.thread, address, a.reply, log);
    const before = a.previous ? REACTION[a.previous] : undefined;
    const after = REACTION[state];
    if (before !== after)
      await this.posts.receipt(a.teamId, address, {
        ...(before ? { remove: before } : {}),
        ...(after ? { add: after } : {}),
      });
    if (outcome.kind === 'sent' && a.thread) {
      await this.mirror(a.thread, address.replyTs, a.reply, a.agentName);
      await this.cardsAfterAnswer(a.thread, a.reply.user, log);
    }
  }

  /**
   * On an SMS campaign, a reply longer than one SMS: its author is told (only them) how many it took. Segments
   * as carriers count them: GSM-7 160 characters (153 when joined), UCS-2 70 (67).
   */
  private async tellSmsSegments(
    client: WebClient,
    thread: ThreadInfo,
    address: ReplyAddress,
    reply: ThreadReply,
    log: Logger,
  ): Promise<void> {
    if (thread.facts.campaignType !== 'messages') return;
    const sms = new SegmentedMessage(reply.text, 'auto');
    if (sms.segmentsCount < 2) return;
    const notice = renderSmsSegmentsNotice(sms.segmentsCount, [...reply.text].length, sms.encodingName === 'UCS-2');
    await postPrivately(client, address, reply.user, notice, log);
  }

  /**
   * A reply sent from one channel's thread, shown in the conversation's threads in the other routed channels:
   * on the road, once per reply and channel.
   */
  private async mirror(thread: ThreadInfo, replyTs: string, reply: ThreadReply, agentName: string): Promise<void> {
    const files = (reply.files ?? []).map((f) => f.name);
    const ref = { teamId: thread.teamId, campaignId: thread.campaignId, customerNumber: thread.customerNumber };
    const mirrored = renderMirroredReply(agentName, thread.channelId, reply.text, files);
    for (const [channel, ts] of await this.deps.store.conversations.threads(ref)) {
      if (channel === thread.channelId) continue;
      await this.posts.line(
        thread.teamId,
        { channel, threadTs: ts },
        mirrored,
        `mirror:${thread.channelId}:${replyTs}`,
      );
    }
  }

  /** The customer got an answer: the conversation's cards stop the wait and name who answered (on the road). */
  private async cardsAfterAnswer(thread: ThreadInfo, user: string, log: Logger): Promise<void> {
    const ref = { teamId: thread.teamId, campaignId: thread.campaignId, customerNumber: thread.customerNumber };
    try {
      for (const at of await this.waiting.answered(ref, { user })) await this.posts.card(thread.teamId, at);
    } catch (err) {
      log.warn({ err }, 'could not show on the conversation cards that the customer was answered');
    }
  }

  private async onEdited(ev: MessageEvent, ctx: EventContext): Promise<void> {
    const m = ev.message;
    if (!m?.ts || !m.user || m.bot_id || m.user === ctx.botUserId) return;
    const threadTs = m.thread_ts;
    if (!threadTs || threadTs === m.ts) return;
    const before = ev.previous_message?.text;
    if (before !== undefined && before === m.text) return; // an unfurl or a reply count, not an edit
    const found = await this.replyOf(ctx.teamId, ev.channel, threadTs, m.ts);
    if (!found) return;
    const { reply } = found;
    const log = this.log.child({ team: ctx.teamId, channel: ev.channel, thread: threadTs, reply: m.ts, user: m.user });
    if (!(await this.firstDelivery(ctx, log))) return;
    const address: ReplyAddress = { channel: ev.channel, threadTs, replyTs: m.ts };
    if (reply.state === 'sent' || reply.state === 'sending') {
      await this.note(ctx, address, renderEditedNote(m.user, 'edited'));
      log.info('a sent handoff reply was edited in Slack: the customer keeps the original');
      return;
    }
    if (reply.state === 'withdrawn') return;
    // Not sent yet: Send again sends what the thread now shows.
    if (isPrivateNote(m.text) || sessionReplyId(m.text) !== undefined) {
      await this.withdraw(ctx.client, ctx.teamId, address, reply, log);
      return;
    }
    const message = await toCustomerText(m.text ?? '', (id) => displayName(this.deps, ctx.client, ctx.teamId, id));
    if (message === '') return;
    await this.deps.store.conversations.saveReply(ctx.teamId, ev.channel, threadTs, m.ts, {
      ...reply,
      text: message,
      updatedAt: Date.now(),
    });
    log.info('an unsent handoff reply was edited: Send again sends the new text');
  }

  private async onDeleted(ev: MessageEvent, ctx: EventContext): Promise<void> {
    const prev = ev.previous_message;
    const replyTs = ev.deleted_ts ?? prev?.ts;
    const threadTs = prev?.thread_ts;
    if (!prev || prev.bot_id || !replyTs || !threadTs || threadTs === replyTs) return;
    const found = await this.replyOf(ctx.teamId, ev.channel, threadTs, replyTs);
    if (!found) return;
    const { reply } = found;
    const log = this.log.child({
      team: ctx.teamId,
      channel: ev.channel,
      thread: threadTs,
      reply: replyTs,
      user: reply.user,
    });
    if (!(await this.firstDelivery(ctx, log))) return;
    const address: ReplyAddress = { channel: ev.channel, threadTs, replyTs };
    if (reply.state === 'sent' || reply.state === 'sending') {
      await this.note(ctx, address, renderEditedNote(reply.user, 'deleted'));
      log.info('a sent handoff reply was deleted in Slack: the customer keeps it');
      return;
    }
    if (reply.state !== 'withdrawn') await this.withdraw(ctx.client, ctx.teamId, address, reply, log);
  }

  /** A reply taken back before it was sent: never sent, its notice (and buttons) replaced. */
  private async withdraw(
    client: WebClient,
    teamId: string,
    address: ReplyAddress,
    reply: ThreadReply,
    log: Logger,
  ): Promise<void> {
    await this.deps.store.conversations.saveReply(teamId, address.channel, address.threadTs, address.replyTs, {
      ...reply,
      state: 'withdrawn',
      updatedAt: Date.now(),
    });
    if (reply.noticeTs)
      await updateNotice(client, address.channel, reply.noticeTs, renderWithdrawnNotice(reply.user), log);
    log.info('an unsent handoff reply was withdrawn: it will not be sent');
  }

  /** A note under a reply after its author changed it in Slack: once per Slack event. */
  private async note(ctx: EventContext, address: ReplyAddress, note: MessagePayload): Promise<void> {
    const id = `note:${address.replyTs}:${ctx.eventId ?? Date.now()}`;
    await this.posts.line(ctx.teamId, address, note, id);
  }

  private async replyOf(
    teamId: string,
    channel: string,
    threadTs: string,
    replyTs: string,
  ): Promise<{ reply: ThreadReply } | undefined> {
    const reply = await this.deps.store.conversations.findReply(teamId, channel, threadTs, replyTs);
    return reply ? { reply } : undefined;
  }
}
