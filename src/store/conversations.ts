/**
 * Handoff conversations: (workspace, campaign, customer number) ↔ one Slack thread per routed
 * channel ↔ the platform chat session an agent's replies go to.
 *
 * - conversation hash: `thread:<channelId>` → parent ts for every channel it is open in, the card
 *   facts (names, type) and its state.
 * - thread hash: the reverse lookup a thread reply needs (campaign, customer number, channel), the
 *   linked session id and the state.
 * - reply records (`reply:<ts>` fields of the thread hash): what became of each human reply relayed from
 *   the thread (its text, sent / refused / failed, the notice posted about it), for Retry and edit notes.
 * - agent work on a thread: who claimed it (a string key of its own, so claims are compare-and-set), since
 *   when the customer waits for an answer (the first unanswered message), whether that wait was nudged, and
 *   who answered last; the workspace's open threads are indexed for `/campaign handoffs` and App Home.
 * Everything about a conversation — names, number, reply texts, session links, claims — expires
 * `retentionMs` (CONVERSATION_RETENTION_DAYS) after its last activity; closing it counts as one, so a
 * closed conversation is forgotten that long after it closed. Closing keeps its threads until then (a reply
 * there gets "this conversation is closed") but forgets them on the conversation, so the customer's next
 * message opens a new card. The open-thread index lives as long as its newest thread can.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { AttachmentFile } from './attachments.js';
import type { CustomerNames } from './customer-names.js';
import { showsCustomerData, type ChannelAudienceRepo } from './channel-audiences.js';
import type { Keys } from './keys.js';
import type { KeyValueStore } from './kv.js';

export interface ConversationRef {
  teamId: string;
  campaignId: string;
  customerNumber: string;
}

export type ConversationState = 'open' | 'closed';

export interface CardFacts {
  customerName?: string;
  campaignName?: string;
  agentName?: string;
  campaignType?: string;
}

export interface ThreadInfo extends ConversationRef {
  channelId: string;
  threadTs: string;
  sessionId?: string;
  /** A session the platform's payload named that differs from the linked one (not used until switched to). */
  reportedSessionId?: string;
  state: ConversationState;
  facts: CardFacts;
  /** The Slack user who claimed the conversation in this channel. */
  owner?: string;
  /** Epoch ms of the customer's first message not answered yet; absent when nobody waits. */
  waitingSince?: number;
  /** The current wait passed the SLA and the thread was nudged. */
  overdue?: boolean;
  /** Who answered the customer last: a Slack user (from the thread) or the platform (its agent's name). */
  answeredBy?: Answerer;
  /** Someone marked the conversation done in this channel (`resolutions.ts`), and when (epoch ms). */
  resolvedBy?: string;
  resolvedAt?: number;
  /** What the customer wrote last (bounded; shown on the card, escaped there). */
  latestWords?: string;
  /** The Slack user group the card paged when the conversation arrived in this channel. */
  pagedGroup?: string;
  /**
   * Whether the channel may see the customer's number, e-mail and words in full now (`showsCustomerData`):
   * read with the thread, so every card, nudge and list that shows it masks what the channel may not see.
   */
  customerDataShown: boolean;
  /** How the channel's assignment (`handoff-sla … assign:`) placed it: with an agent on shift, or nobody was. */
  assignment?: Assignment;
}

/** An agent on shift the conversation was handed to, or nobody (no one was on shift). */
export type Assignment = { to: string } | { nobodyOnShift: true };

export type Answerer = { user: string } | { platformAgent: string };

/** The outcome of a claim: `ok`, or who holds the conversation instead. */
export type ClaimResult = { ok: true } | { ok: false; owner: string | undefined };

/**
 * What became of one human reply in a handoff thread:
 * - `sending`: a send is under way (or a process died mid-send: never sent again automatically);
 * - `sent`: the platform answered 200;
 * - `refused`: 400 (session stale, closed or not handed off); `unlinked`: no session, nothing sent;
 *   `closed`: the conversation had ended, nothing sent; `failed`: 5xx, timeout, unreachable — outcome unknown
 *   or not delivered; `withdrawn`: deleted or turned into a note before it was sent.
 */
const REPLY_STATES = ['sending', 'sent', 'refused', 'unlinked', 'closed', 'failed', 'withdrawn'] as const;
export type ReplyState = (typeof REPLY_STATES)[number];

export interface ThreadReply {
  /** Slack user who wrote it. */
  user: string;
  /** The text as the customer gets it (Slack markup already turned into plain text). */
  text: string;
  state: ReplyState;
  /** Sends started so far (the next claim is for this number). */
  attempts: number;
  /** Epoch ms of the last state change (a `sending` that is old was cut off mid-send). */
  updatedAt: number;
  /** The in-thread notice about it, when one was posted (Retry updates it in place). */
  noticeTs?: string;
  /** Slack files it sends the customer, as links made anew for each send (never kept). */
  files?: AttachmentFile[];
}

const threadReplySchema = z.object({
  user: z.string(),
  text: z.string(),
  state: z.enum(REPLY_STATES),
  attempts: z.number().int().nonnegative(),
  updatedAt: z.number(),
  noticeTs: z.string().optional(),
  files: z.array(z.object({ id: z.string(), name: z.string(), mimetype: z.string(), size: z.number() })).optional(),
});

/** CONVERSATION_RETENTION_DAYS' default. */
const DEFAULT_RETENTION_MS = 30 * 24 * 3600_000;
/** Agent links are settings, kept while they are used: a year after the last one was set or used. */
const AGENT_LINKS_IDLE_MS = 365 * 24 * 3600_000;
/** A send claim outlives any Slack retry (hours) and any Retry click on a notice still on screen. */
const SEND_CLAIM_TTL_MS = 7 * 24 * 3600_000;
const REPLY_FIELD = 'reply:';
/** How long an agent reply sent from Slack waits for the platform's `message_sent` echo of it. */
const ECHO_WINDOW_MS = 5 * 60_000;
const THREAD_FIELD = 'thread:';
const FACT_FIELDS = ['customerName', 'campaignName', 'agentName', 'campaignType'] as const;
/** Most characters of the customer's latest words kept for the card (it shows about 200 of them). */
const LATEST_WORDS_MAX = 400;

export class ConversationRepo {
  constructor(
    private readonly kv: KeyValueStore,
    private readonly keys: Keys,
    private readonly customers: CustomerNames,
    private readonly audiences: ChannelAudienceRepo,
    private readonly retentionMs: number = DEFAULT_RETENTION_MS,
  ) {}

  /** channelId → parent ts of the conversation's open threads. */
  async threads(ref: ConversationRef): Promise<Map<string, string>> {
    const fields = await this.conversationFields(ref);
    const out = new Map<string, string>();
    for (const [field, ts] of Object.entries(fields))
      if (field.startsWith(THREAD_FIELD)) out.set(field.slice(THREAD_FIELD.length), ts);
    return out;
  }

  async facts(ref: ConversationRef): Promise<CardFacts> {
    const fields = await this.conversationFields(ref);
    return pickFacts(fields);
  }

  /** Remembers the parent card posted for the conversation in a channel. */
  async recordThread(
    ref: ConversationRef,
    channelId: string,
    threadTs: string,
    facts: CardFacts,
    sessionId?: string,
    opened: { latestWords?: string | undefined; pagedGroup?: string | undefined; assignment?: Assignment } = {},
  ): Promise<void> {
    const factFields = definedFields(facts);
    const latestWords = bounded(opened.latestWords);
    const conv = await this.conversationKey(ref);
    await this.kv.hashSet(conv, { ...factFields, state: 'open', [`${THREAD_FIELD}${channelId}`]: threadTs });
    await this.kv.expire(conv, this.retentionMs);
    const thread = this.keys.thread(ref.teamId, channelId, threadTs);
    await this.kv.hashSet(thread, {
      ...factFields,
      teamId: ref.teamId,
      campaignId: ref.campaignId,
      customerNumber: ref.customerNumber,
      channelId,
      threadTs,
      state: 'open',
      ...(sessionId ? { sessionId } : {}),
      ...(latestWords ? { latestWords } : {}),
      ...(opened.pagedGroup ? { pagedGroup: opened.pagedGroup } : {}),
      ...(opened.assignment ? assignmentFields(opened.assignment) : {}),
    });
    await this.kv.expire(thread, this.retentionMs);
    const index = this.keys.openThreads(ref.teamId);
    await this.kv.setAdd(index, openMember(channelId, threadTs));
    await this.kv.expire(index, this.retentionMs);
  }

  async findThread(teamId: string, channelId: string, threadTs: string): Promise<ThreadInfo | null> {
    const [f, owner, audience] = await Promise.all([
      this.kv.hashGetAll(this.keys.thread(teamId, channelId, threadTs)),
      this.kv.get(this.keys.threadOwner(teamId, channelId, threadTs)),
      this.audiences.get(teamId, channelId),
    ]);
    if (!f.campaignId || !f.customerNumber) return null;
    const waitingSince = f.waitingSince ? Number(f.waitingSince) : NaN;
    const resolvedAt = f.resolvedAt ? Number(f.resolvedAt) : NaN;
    const answeredBy: Answerer | undefined = f.answeredBy
      ? { user: f.answeredBy }
      : f.answeredByAgent
        ? { platformAgent: f.answeredByAgent }
        : undefined;
    return {
      teamId,
      campaignId: f.campaignId,
      customerNumber: f.customerNumber,
      channelId,
      threadTs,
      state: f.state === 'closed' ? 'closed' : 'open',
      facts: pickFacts(f),
      customerDataShown: showsCustomerData(audience),
      ...(f.sessionId ? { sessionId: f.sessionId } : {}),
      ...(f.reportedSessionId ? { reportedSessionId: f.reportedSessionId } : {}),
      ...(owner ? { owner } : {}),
      ...(Number.isFinite(waitingSince)
        ? { waitingSince, ...(f.nudgedFor === f.waitingSince ? { overdue: true } : {}) }
        : {}),
      ...(answeredBy ? { answeredBy } : {}),
      ...(f.resolvedBy ? { resolvedBy: f.resolvedBy } : {}),
      ...(f.resolvedBy && Number.isFinite(resolvedAt) ? { resolvedAt } : {}),
      ...(f.latestWords ? { latestWords: f.latestWords } : {}),
      ...(f.pagedGroup ? { pagedGroup: f.pagedGroup } : {}),
      ...(f.assignedTo ? { assignment: { to: f.assignedTo } } : f.nobodyOnShift ? { assignment: NOBODY } : {}),
    };
  }

  /** How the conversation is assigned now (none: it is back with whoever claims it). */
  async setAssignment(
    teamId: string,
    channelId: string,
    threadTs: string,
    assignment: Assignment | undefined,
  ): Promise<void> {
    const key = this.keys.thread(teamId, channelId, threadTs);
    await this.kv.hashDel(key, 'assignedTo', 'nobodyOnShift');
    if (assignment) await this.kv.hashSet(key, assignmentFields(assignment));
  }

  /** The workspace's open threads (in channels where the conversation is open and not resolved), oldest first. */
  async openThreads(teamId: string): Promise<ThreadInfo[]> {
    const index = this.keys.openThreads(teamId);
    const found: ThreadInfo[] = [];
    for (const member of await this.kv.setMembers(index)) {
      const [channelId = '', threadTs = ''] = member.split(' ');
      const info = await this.findThread(teamId, channelId, threadTs);
      if (info?.state === 'open' && !info.resolvedBy) found.push(info);
      else await this.kv.setRemove(index, member); // expired, closed or resolved elsewhere
    }
    return found.sort((a, b) => Number(a.threadTs) - Number(b.threadTs));
  }

  /**
   * A customer message: starts the wait for an answer unless one is under way (the wait counts from the
   * first unanswered message). Returns whether a new waiting period started.
   */
  async startWaiting(teamId: string, channelId: string, threadTs: string, at: number): Promise<boolean> {
    const key = this.keys.thread(teamId, channelId, threadTs);
    if ((await this.kv.hashGet(key, 'waitingSince')) !== null) return false;
    await this.kv.hashSet(key, { waitingSince: String(Math.trunc(at)) });
    return true;
  }

  /** What the customer wrote last, for the card (blank words leave the previous ones). */
  async noteCustomerWords(
    teamId: string,
    channelId: string,
    threadTs: string,
    words: string | undefined,
  ): Promise<void> {
    const latestWords = bounded(words);
    if (latestWords) await this.kv.hashSet(this.keys.thread(teamId, channelId, threadTs), { latestWords });
  }

  /** An answer reached the customer: nobody waits any more, and the card says who answered. */
  async answered(teamId: string, channelId: string, threadTs: string, by: Answerer): Promise<void> {
    const key = this.keys.thread(teamId, channelId, threadTs);
    await this.kv.hashDel(key, 'waitingSince', 'nudgedFor', 'user' in by ? 'answeredByAgent' : 'answeredBy');
    await this.kv.hashSet(key, 'user' in by ? { answeredBy: by.user } : { answeredByAgent: by.platformAgent });
  }

  /** The wait that started at `waitingSince` was nudged (once per waiting period). */
  async markOverdue(teamId: string, channelId: string, threadTs: string, waitingSince: number): Promise<void> {
    await this.kv.hashSet(this.keys.thread(teamId, channelId, threadTs), { nudgedFor: String(waitingSince) });
  }

  /** Claims an unclaimed conversation (one claimer wins a race); else says who holds it. */
  async claim(teamId: string, channelId: string, threadTs: string, userId: string): Promise<ClaimResult> {
    const key = this.keys.threadOwner(teamId, channelId, threadTs);
    if (
      (await this.kv.set(key, userId, { onlyIfAbsent: true, ttlMs: this.retentionMs })) ||
      (await this.kv.setIfEqual(key, '', userId))
    )
      return { ok: true };
    return { ok: false, owner: (await this.kv.get(key)) || undefined };
  }

  /** Moves the conversation from `from` (the owner the taker saw) to `to`; fails when it changed hands since. */
  async takeOver(teamId: string, channelId: string, threadTs: string, from: string, to: string): Promise<ClaimResult> {
    const key = this.keys.threadOwner(teamId, channelId, threadTs);
    if (await this.kv.setIfEqual(key, from, to)) return { ok: true };
    return { ok: false, owner: (await this.kv.get(key)) || undefined };
  }

  /** The owner lets go; false when `userId` does not hold it (any more). */
  unclaim(teamId: string, channelId: string, threadTs: string, userId: string): Promise<boolean> {
    return this.kv.setIfEqual(this.keys.threadOwner(teamId, channelId, threadTs), userId, '');
  }

  /** The session replies go to from now on; a session the platform reported is forgotten with it. */
  async linkSession(teamId: string, channelId: string, threadTs: string, sessionId: string): Promise<void> {
    const key = this.keys.thread(teamId, channelId, threadTs);
    await this.kv.hashSet(key, { sessionId });
    await this.kv.hashDel(key, 'reportedSessionId');
    await this.kv.expire(key, this.retentionMs);
  }

  /** Notes a session id the platform's payload named while another one is linked: shown, never used unasked. */
  async reportSession(teamId: string, channelId: string, threadTs: string, sessionId: string): Promise<void> {
    const key = this.keys.thread(teamId, channelId, threadTs);
    await this.kv.hashSet(key, { reportedSessionId: sessionId });
    await this.kv.expire(key, this.retentionMs);
  }

  /**
   * Closes the conversation: its threads are marked closed with no session; the next message opens a new card.
   * What is kept of it (threads, replies, claims) is forgotten `retentionMs` from now. Returns the closed threads.
   */
  async close(ref: ConversationRef): Promise<Array<{ channelId: string; threadTs: string }>> {
    const threads = await this.threads(ref);
    for (const [channelId, ts] of threads) {
      const key = this.keys.thread(ref.teamId, channelId, ts);
      await this.kv.hashDel(key, 'sessionId', 'reportedSessionId');
      await this.kv.hashSet(key, { state: 'closed' });
      await this.kv.hashDel(key, 'waitingSince', 'nudgedFor');
      await this.kv.expire(key, this.retentionMs);
      await this.kv.expire(this.keys.threadOwner(ref.teamId, channelId, ts), this.retentionMs);
      await this.kv.setRemove(this.keys.openThreads(ref.teamId), openMember(channelId, ts));
    }
    const conv = await this.conversationKey(ref);
    if (threads.size > 0) await this.kv.hashDel(conv, ...[...threads.keys()].map((c) => `${THREAD_FIELD}${c}`));
    await this.kv.hashSet(conv, { state: 'closed' });
    await this.kv.expire(conv, this.retentionMs);
    return [...threads].map(([channelId, threadTs]) => ({ channelId, threadTs }));
  }

  /** Notes that an agent's reply was sent from Slack, so the platform's `message_sent` echo of it is not posted again. */
  async expectEcho(ref: ConversationRef, message: string): Promise<void> {
    await this.kv.incr(await this.echoKey(ref, message));
    await this.kv.expire(await this.echoKey(ref, message), ECHO_WINDOW_MS);
  }

  /** True (once per reply sent) when a `message_sent` is the echo of a reply sent from Slack. */
  async takeEcho(ref: ConversationRef, message: string): Promise<boolean> {
    const key = await this.echoKey(ref, message);
    if ((await this.kv.get(key)) === null) return false;
    const left = await this.kv.incr(key, -1);
    if (left <= 0) await this.kv.del(key);
    return left >= 0;
  }

  /** The record of a human reply in a thread, or null when it was never relayed (or has expired). */
  async findReply(teamId: string, channelId: string, threadTs: string, replyTs: string): Promise<ThreadReply | null> {
    const raw = await this.kv.hashGet(this.keys.thread(teamId, channelId, threadTs), `${REPLY_FIELD}${replyTs}`);
    if (raw === null) return null;
    try {
      const parsed = threadReplySchema.safeParse(JSON.parse(raw));
      return parsed.success ? stripUndefined(parsed.data) : null;
    } catch {
      return null;
    }
  }

  async saveReply(
    teamId: string,
    channelId: string,
    threadTs: string,
    replyTs: string,
    reply: ThreadReply,
  ): Promise<void> {
    const key = this.keys.thread(teamId, channelId, threadTs);
    await this.kv.hashSet(key, { [`${REPLY_FIELD}${replyTs}`]: JSON.stringify(reply) });
    await this.kv.expire(key, this.retentionMs);
  }

  /**
   * Claims send number `attempt` of a reply (SET NX): true for exactly one caller, however many Slack
   * retries, replicas or double-clicks ask. A reply is only ever sent after winning a claim.
   */
  async claimSend(teamId: string, channelId: string, replyTs: string, attempt: number): Promise<boolean> {
    const key = this.keys.dedup(teamId, 'handoff-send', JSON.stringify([channelId, replyTs, attempt]));
    return this.kv.set(key, '1', { ttlMs: SEND_CLAIM_TTL_MS, onlyIfAbsent: true });
  }

  /** Undoes `expectEcho` for a reply that certainly did not reach the platform (a 400, say). */
  async forgetEcho(ref: ConversationRef, message: string): Promise<void> {
    await this.takeEcho(ref, message);
  }

  /** The conversation's fields ({} when it is not known). */
  private async conversationFields(ref: ConversationRef): Promise<Record<string, string>> {
    return this.kv.hashGetAll(await this.conversationKey(ref));
  }

  /** Named by the customer's keyed hash: no number or email in a key name. */
  private async conversationKey(ref: ConversationRef): Promise<string> {
    return this.keys.conversation(ref.teamId, ref.campaignId, await this.customers.of(ref.customerNumber));
  }

  private async echoKey(ref: ConversationRef, message: string): Promise<string> {
    const digest = createHash('sha256')
      .update(JSON.stringify([ref.campaignId, await this.customers.of(ref.customerNumber), message.trim()]))
      .digest('hex');
    return this.keys.dedup(ref.teamId, 'echo', digest);
  }
}

/**
 * Slack user → platform agent id, set by admins with `/campaign agent-link`. Kept while the workspace uses
 * them: the links expire together a year after the last one was set or used (and at uninstall).
 */
export class AgentLinkRepo {
  constructor(
    private readonly kv: KeyValueStore,
    private readonly keys: Keys,
  ) {}

  async set(teamId: string, userId: string, agentId: string): Promise<void> {
    const key = this.keys.agentLinks(teamId);
    await this.kv.hashSet(key, { [userId]: agentId });
    await this.kv.expire(key, AGENT_LINKS_IDLE_MS);
  }

  async remove(teamId: string, userId: string): Promise<boolean> {
    return (await this.kv.hashDel(this.keys.agentLinks(teamId), userId)) > 0;
  }

  /** The agent a user is linked to; a link in use keeps the workspace's links for another year. */
  async get(teamId: string, userId: string): Promise<string | undefined> {
    const key = this.keys.agentLinks(teamId);
    const agentId = await this.kv.hashGet(key, userId);
    if (agentId === null) return undefined;
    await this.kv.expire(key, AGENT_LINKS_IDLE_MS);
    return agentId;
  }

  async all(teamId: string): Promise<Record<string, string>> {
    return this.kv.hashGetAll(this.keys.agentLinks(teamId));
  }
}

const NOBODY: Assignment = { nobodyOnShift: true };

function assignmentFields(a: Assignment): Record<string, string> {
  return 'to' in a ? { assignedTo: a.to } : { nobodyOnShift: '1' };
}

/** A thread's member in the workspace's open-threads set. */
export function openMember(channelId: string, threadTs: string): string {
  return `${channelId} ${threadTs}`;
}

/** Words flattened to one line and cut to what the card can use (the card escapes and shortens them again). */
function bounded(words: string | undefined): string | undefined {
  const flat = words?.replace(/\s+/g, ' ').trim();
  return flat ? [...flat].slice(0, LATEST_WORDS_MAX).join('') : undefined;
}

function definedFields(facts: CardFacts): Record<string, string> {
  return Object.fromEntries(
    Object.entries(facts).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== ''),
  );
}

function stripUndefined(reply: z.output<typeof threadReplySchema>): ThreadReply {
  const { noticeTs, files, ...rest } = reply;
  return { ...rest, ...(noticeTs === undefined ? {} : { noticeTs }), ...(files === undefined ? {} : { files }) };
}

function pickFacts(fields: Record<string, string>): CardFacts {
  const out: CardFacts = {};
  for (const name of FACT_FIELDS) if (fields[name]) out[name] = fields[name];
  return out;
}
