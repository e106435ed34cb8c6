/**
 * A handoff conversation's parent card and its closing line. The card names the customer, number, campaign,
 * agent, campaign type, state and linked chat session, who owns it and who answered last, what the customer
 * wrote last and since when they wait (overdue past the SLA). A card that arrived in a channel paging a user
 * group (`/campaign handoff-sla … page:new|both`) mentions it, in its first post and ever after; one handed to an
 * agent on shift (`assign:`) mentions that agent as well, or says nobody is on shift. While the conversation is open it offers **Claim** (or **Unclaim**
 * once claimed), **Quick reply**, **Resolve** and **Link session**; resolved, it says by whom and offers
 * **Quick reply**, **Reopen** and the session. It is re-rendered with `chat.update` when any of that changes.
 * Platform text is escaped (`slack/text.ts`).
 *
 * Slack shows one card to everyone, so it can't offer the owner Unclaim and everyone else Take over: the
 * claimed card's one ownership button reads **Unclaim**. The owner's press unclaims; anyone else's is answered
 * privately with a **Take over** button (`claim.ts`) — taking a colleague's conversation is a second,
 * deliberate click, and nobody is ever offered to take over their own.
 */
import type { SessionCompleted } from '../events/index.js';
import {
  actions,
  button,
  context,
  fields,
  message,
  section,
  type KnownBlock,
  type MessagePayload,
} from '../slack/blocks.js';
import { mentionsOf } from '../events/mentions.js';
import { code, customerLabel, customerPlain, dotted, inline, orDash, when } from '../slack/text.js';
import type { Answerer, Assignment, CardFacts, ConversationState } from '../store/index.js';

/** action_id of the card's (and the thread notices') Link session button. */
export const LINK_SESSION_ACTION = 'handoff_link_session';
/** action_id of the card's "Switch to the reported session" button; its value is that session id. */
export const SWITCH_SESSION_ACTION = 'handoff_switch_session';
/** block_id of the card's warning that the platform reports another session than the linked one. */
export const REPORTED_SESSION_BLOCK = 'handoff_reported_session';
/**
 * action_ids of the ownership buttons. Unclaim's value is the owner the card showed. Take over is offered to
 * one person privately (its value names the thread and that owner).
 */
export const CLAIM_ACTION = 'handoff_claim';
export const UNCLAIM_ACTION = 'handoff_unclaim';
export const TAKE_OVER_ACTION = 'handoff_take_over';
/** action_id of the card's Quick reply button (a saved reply, editable, sent like a thread reply). */
export const QUICK_REPLY_ACTION = 'handoff_quick_reply';
/** action_ids of the card's Resolve and Reopen buttons. */
export const RESOLVE_ACTION = 'handoff_resolve';
export const REOPEN_ACTION = 'handoff_reopen';

export interface ConversationCard {
  campaignId: string;
  customerNumber: string;
  facts: CardFacts;
  sessionId?: string | undefined;
  /** A different session the platform reported; replies keep going to `sessionId` until someone switches. */
  reportedSessionId?: string | undefined;
  state: ConversationState;
  /** The Slack user who claimed it. */
  owner?: string | undefined;
  answeredBy?: Answerer | undefined;
  /** Epoch ms of the first customer message not answered yet. */
  waitingSince?: number | undefined;
  /** That wait passed the SLA (the thread was nudged). */
  overdue?: boolean | undefined;
  /** Who marked it done, and when (epoch ms): off the open lists until the customer writes again. */
  resolvedBy?: string | undefined;
  resolvedAt?: number | undefined;
  /** What the customer wrote last, as they wrote it (escaped and shortened here). */
  latestWords?: string | undefined;
  /** The user group paged when the conversation arrived in this channel. */
  pagedGroup?: string | undefined;
  /** The agent on shift it was handed to (`handoff-sla … assign:`), or that nobody was on shift. */
  assignment?: Assignment | undefined;
}

/** About how much of the customer's latest words the card shows: a glance, the thread has the rest. */
const LATEST_WORDS_SHOWN = 200;

export function renderConversationCard(c: ConversationCard): MessagePayload {
  const who = { customerName: c.facts.customerName, customerNumber: c.customerNumber };
  const open = c.state === 'open';
  const resolved = open && c.resolvedBy !== undefined;
  const campaign = inline(c.facts.campaignName, 100);
  const paged = c.pagedGroup ? mentionsOf([c.pagedGroup]) : '';
  // Shown while the assigned agent still owns it: after a take-over or an unclaim the Owner field says it all.
  const assignee = open && c.assignment && 'to' in c.assignment && c.assignment.to === c.owner ? c.owner : undefined;
  const nobodyOnShift = open && !c.owner && c.assignment !== undefined && 'nobodyOnShift' in c.assignment;
  const blocks: KnownBlock[] = [
    section(`${resolved ? '✅' : open ? '💬' : '🏁'} Chat with ${customerLabel(who)}`),
    ...(assignee ? [context(`👤 Assigned to <@${assignee}> (on shift): reply in the thread.`)] : []),
    ...(nobodyOnShift ? [context('👤 Unassigned — nobody is on shift. Press *Claim* to take it.')] : []),
    ...(paged
      ? [context(`📣 ${paged} a new chat arrived${assignee ? '.' : ': press *Claim* and reply in the thread.'}`)]
      : []),
    fields([
      ['Customer', orDash(inline(c.facts.customerName, 150))],
      ['Number', orDash(inline(c.customerNumber, 60))],
      ['Campaign', campaign ? `${campaign} (${orDash(code(c.campaignId))})` : orDash(code(c.campaignId))],
      ['Agent', orDash(inline(c.facts.agentName, 150))],
      ['Campaign type', orDash(inline(c.facts.campaignType, 40))],
      ['State', stateLabel(c, resolved)],
      ['Session', c.sessionId ? orDash(code(c.sessionId)) : open ? '_not linked — replies can’t be sent yet_' : '—'],
      ['Owner', c.owner ? `<@${c.owner}>` : open ? '_unclaimed_' : '—'],
      ['Last answered by', answererLabel(c.answeredBy)],
    ]),
  ];
  // `inline`: one line, escaped, unable to open formatting — a customer can't mention, link or restyle the card.
  const latest = inline(c.latestWords, LATEST_WORDS_SHOWN);
  if (latest) blocks.push(section(`*The customer wrote last*\n>${latest}`));
  if (open && !resolved && c.waitingSince !== undefined) {
    const since = `${clockTime(c.waitingSince)} (${agoTime(c.waitingSince)})`;
    blocks.push(
      section(
        c.overdue
          ? `🔴 *Overdue* — the customer has been waiting since ${since}, longer than this channel’s answer time.`
          : `⏳ The customer has been waiting since ${since}.`,
      ),
    );
  }
  const reported =
    open && c.sessionId && c.reportedSessionId && c.reportedSessionId !== c.sessionId ? c.reportedSessionId : undefined;
  if (reported) {
    blocks.push(
      section(
        `⚠️ The platform reports session ${code(reported)}; replies still go to ${code(c.sessionId)}. Switch only if that is the customer’s current chat.`,
        { block_id: REPORTED_SESSION_BLOCK },
      ),
    );
  }
  if (open) {
    const buttons = resolved
      ? [button('💬 Quick reply', QUICK_REPLY_ACTION), button('↩️ Reopen', REOPEN_ACTION)]
      : [
          c.owner
            ? button('Unclaim', UNCLAIM_ACTION, { value: c.owner })
            : button('🙋 Claim', CLAIM_ACTION, { style: 'primary', value: 'unclaimed' }),
          button('💬 Quick reply', QUICK_REPLY_ACTION),
          button('✅ Resolve', RESOLVE_ACTION),
        ];
    buttons.push(button(c.sessionId ? '🔗 Change session' : '🔗 Link session', LINK_SESSION_ACTION));
    if (reported) buttons.push(button('🔁 Switch to reported session', SWITCH_SESSION_ACTION, { value: reported }));
    blocks.push(actions(buttons));
    blocks.push(
      context(
        resolved
          ? 'Resolved: off the open lists, nobody is nudged. Replies in this thread still reach the customer, and the customer’s next message reopens it.'
          : 'Reply in this thread to answer the customer. Start a reply with `note:` to keep it in Slack, or `session: &lt;id&gt;` to link the chat session.',
      ),
    );
  } else {
    blocks.push(context('This conversation is closed. The customer’s next message opens a new thread.'));
  }
  const status = resolved ? 'resolved' : open ? 'open' : 'closed';
  // The mention leads the fallback text too, so the notification reaches the group (or agent) it pages.
  const pages = [assignee ? `<@${assignee}>` : '', paged].filter(Boolean).join(' ');
  const fallback = `${pages ? `${pages} ` : ''}Chat with ${customerPlain(who)}${campaign ? ` — ${campaign}` : ''} (${status})`;
  return message(fallback, blocks);
}

function stateLabel(c: ConversationCard, resolved: boolean): string {
  if (c.state !== 'open') return '⚪ Closed — the chat session completed';
  if (!resolved) return '🟢 Open';
  return `✅ Resolved by <@${c.resolvedBy}>${c.resolvedAt !== undefined ? ` at ${clockTime(c.resolvedAt)}` : ''}`;
}

function answererLabel(by: Answerer | undefined): string {
  if (!by) return '—';
  if ('user' in by) return `<@${by.user}>`;
  return `🤖 ${orDash(inline(by.platformAgent, 100))} (on the platform)`;
}

/** A time Slack shows in each reader's own time zone (hh:mm), with UTC as the fallback. */
export function clockTime(epochMs: number): string {
  const fallback = `${new Date(epochMs).toISOString().slice(11, 16)} UTC`;
  return `<!date^${Math.floor(epochMs / 1000)}^{time}|${fallback}>`;
}

/**
 * How long ago, as Slack words it in each reader's client ("5 minutes ago"): the `{ago}` date token
 * (https://docs.slack.dev/messaging/formatting-message-text#date-formatting); the fallback is the UTC date.
 */
function agoTime(epochMs: number): string {
  return `<!date^${Math.floor(epochMs / 1000)}^{ago}|${new Date(epochMs).toISOString().slice(0, 10)}>`;
}

/** The last line of a closed conversation's thread. */
export function renderSessionClosedLine(e: SessionCompleted): MessagePayload {
  const line = dotted('🏁 *Chat session completed*', when(e.completedAt ?? e.sentAt ?? e.receivedAt));
  return message('Chat session completed', [
    section(line),
    context('This thread is closed: replies here are no longer sent. The customer’s next message opens a new thread.'),
  ]);
}

/** The one line a resolved thread gets when the customer writes again (the card is open again too). */
export function renderReopenedLine(resolvedBy: string, resolvedAt: number | undefined): MessagePayload {
  const when = resolvedAt !== undefined ? ` at ${clockTime(resolvedAt)}` : '';
  return message('Reopened: the customer wrote again', [
    context(`↩️ *Reopened* — the customer wrote again after <@${resolvedBy}> resolved this conversation${when}.`),
  ]);
}
