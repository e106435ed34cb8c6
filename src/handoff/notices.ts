/**
 * What the bot says in a handoff thread about a reply: one clear sentence per outcome, naming the cause and
 * the next step, with the buttons that take it (Link session, Send again / Retry). Where each goes — the
 * thread, or privately to the one who needs it — is `relay.ts`'s choice.
 */
import type { RefusedFile } from './attachments.js';
import { LINK_SESSION_ACTION } from './card.js';
import { inline, quote } from '../slack/text.js';
import type { Button } from '@slack/types';
import {
  actions,
  button,
  context,
  escapeMrkdwn,
  literal,
  message,
  section,
  truncate,
  type KnownBlock,
  type MessagePayload,
} from '../slack/blocks.js';

/** action_id of the Send again / Retry button under a notice. */
export const RETRY_ACTION = 'handoff_retry_reply';

/** Which reply a Retry button is about (its value). */
export interface ReplyAddress {
  channel: string;
  threadTs: string;
  replyTs: string;
}

export type SendOutcome =
  | { kind: 'sent' }
  /** No session linked to the thread: nothing was sent. */
  | { kind: 'unlinked' }
  /** The conversation had ended: nothing was sent. */
  | { kind: 'closed' }
  /** 400: the session is stale, closed or not in human handoff (or another refusal the platform named). */
  | { kind: 'refused'; platformMessage: string; ref: string }
  /**
   * 5xx, timeout, unreachable, no key: `sentence` says which, `reference` is the platform's (status, code, request
   * id) when it answered; `unknown` when the reply may have arrived anyway.
   */
  | { kind: 'failed'; sentence: string; reference?: string; unknown: boolean };

function encodeAddress(a: ReplyAddress): string {
  return JSON.stringify({ c: a.channel, t: a.threadTs, r: a.replyTs });
}

function linkButton(): Button {
  return button('🔗 Link session', LINK_SESSION_ACTION);
}

function retryButton(address: ReplyAddress, label: string): Button {
  return button(label, RETRY_ACTION, { value: encodeAddress(address), style: 'primary' });
}

/** A 400 is about the session (docs/PLATFORM-API.md › Errors 2) unless the platform plainly named something else. */
function refusalSentence(platformMessage: string): string {
  if (/handoff|hand-off|session/i.test(platformMessage) || platformMessage.trim() === '') {
    return (
      'the platform refused it because this chat session is stale, closed or not handed off to a human agent ' +
      '(its answer, “human handoff is not enabled for the campaign”, is about this session, not a campaign setting). ' +
      'Link the customer’s current handed-off session, then press *Send again*.'
    );
  }
  return `the platform refused it: “${escapeMrkdwn(truncate(platformMessage, 300))}”. Link the customer’s current handed-off session if it changed, then press *Send again*.`;
}

/**
 * The notice about a reply that did not simply go through (`sent` is only used for a retry that worked).
 * `who` is the reply's author; `retriedBy` the user who pressed Retry, when it was a retry.
 */
export function renderReplyNotice(
  outcome: SendOutcome,
  address: ReplyAddress,
  who: string,
  retriedBy?: string,
): MessagePayload {
  const author = `<@${who}>`;
  let text: string;
  let buttons: Button[] = [];
  switch (outcome.kind) {
    case 'sent':
      text = `✅ ${author}’s reply reached the customer${retriedBy ? ` (sent again by <@${retriedBy}>)` : ''}.`;
      break;
    case 'unlinked':
      text =
        `⚠️ ${author} your reply was not sent: no chat session is linked to this thread, so the platform can’t tell which chat it belongs to. ` +
        'Press *Link session*, paste the customer’s current session id from the platform, then press *Send again*.';
      buttons = [linkButton(), retryButton(address, 'Send again')];
      break;
    case 'closed':
      text = `⚠️ ${author} your reply was not sent: this conversation is closed (the chat session completed). The customer’s next message opens a new thread.`;
      break;
    case 'refused':
      text = `⚠️ ${author} your reply was not sent: ${refusalSentence(outcome.platformMessage)}`;
      buttons = [linkButton(), retryButton(address, 'Send again')];
      break;
    case 'failed':
      text = outcome.unknown
        ? `❌ ${author} ${outcome.sentence} We can’t tell whether the customer got your reply — check the conversation on the platform before pressing *Retry*, which sends it again.`
        : `❌ ${author} your reply did not reach the customer. ${outcome.sentence} Your reply is kept: press *Retry* to send it.`;
      buttons = [retryButton(address, 'Retry')];
      break;
  }
  if (retriedBy && outcome.kind !== 'sent') text += ` _(tried again by <@${retriedBy}>)_`;
  const blocks: KnownBlock[] = [section(text)];
  // The platform's reference (status, code, request id) for support: a line of its own, below the sentence.
  const reference =
    outcome.kind === 'refused' ? outcome.ref : outcome.kind === 'failed' ? outcome.reference : undefined;
  if (reference) blocks.push(context(reference));
  if (buttons.length > 0) blocks.push(actions(buttons));
  return message(plainFallback(outcome), blocks);
}

function plainFallback(outcome: SendOutcome): string {
  switch (outcome.kind) {
    case 'sent':
      return 'Reply sent to the customer';
    case 'unlinked':
      return 'Reply not sent: no chat session is linked to this thread';
    case 'closed':
      return 'Reply not sent: this conversation is closed';
    case 'refused':
      return 'Reply not sent: the chat session is stale, closed or not handed off';
    case 'failed':
      return 'Reply not sent: the platform did not accept it';
  }
}

/** A reply from someone who may not answer customers (a guest, another organisation): `reason` says which. */
export function renderNotAllowedNotice(who: string, reason: string): MessagePayload {
  const text = `🚫 <@${who}> your reply was not sent to the customer: ${escapeMrkdwn(reason)}`;
  return message('Reply not sent: only full members of this workspace can answer customers', [section(text)]);
}

/** A reply that was withdrawn (deleted, or turned into a note) before it was ever sent. */
export function renderWithdrawnNotice(who: string): MessagePayload {
  const text = `↩️ <@${who}>’s reply was deleted or turned into a note before it was sent, so it will not be sent.`;
  return message('Reply withdrawn before it was sent', [section(text)]);
}

/** What only the agent needs to know about a sent SMS reply: it went out as several SMS. */
export function renderSmsSegmentsNotice(segments: number, characters: number, unicode: boolean): MessagePayload {
  const why = unicode ? ' — emoji and some letters make each SMS hold 70 characters instead of 160' : '';
  const text = `✅ Your reply went out as *${segments} SMS* (${characters} characters${why}); the customer’s phone shows them as one message.`;
  return message(`Your reply went out as ${segments} SMS`, [section(text)]);
}

/**
 * Files of a reply that are not sent, each with its reason; `rest` says what of the reply still goes (its text,
 * its other files, or nothing).
 */
export function renderFilesNotice(
  who: string,
  refused: readonly RefusedFile[],
  rest: 'text' | 'files' | 'nothing',
): MessagePayload {
  const shown = refused.slice(0, 5).map((f) => `• *${literal(truncate(f.label, 80))}* was not sent: ${f.reason}`);
  if (refused.length > 5) shown.push(`• and ${refused.length - 5} more`);
  const after =
    rest === 'nothing'
      ? 'Nothing was sent to the customer.'
      : rest === 'files'
        ? 'The rest of your reply goes to the customer.'
        : 'The text of your reply goes to the customer.';
  const text = `📎 <@${who}> ${refused.length === 1 ? 'a file' : 'some files'} of your reply can’t reach the customer:\n${shown.join('\n')}\n${after}`;
  return message(refused.length === 1 ? 'A file was not sent to the customer' : 'Files were not sent to the customer', [
    section(text),
  ]);
}

export function renderEditedNote(who: string, kind: 'edited' | 'deleted'): MessagePayload {
  const text =
    kind === 'edited'
      ? `✏️ <@${who}> edited a reply the customer already received. The customer still has the original — send a new reply to correct it.`
      : `🗑️ A reply by <@${who}> was deleted here, but the customer already received it and still has it.`;
  return message(kind === 'edited' ? 'A sent reply was edited in Slack' : 'A sent reply was deleted in Slack', [
    section(text),
  ]);
}

/**
 * The same reply, shown in the conversation's other channels so every thread tells the whole story; with the
 * names of the files it sent (as links: never shown in Slack, they open the file for anyone who has them).
 */
export function renderMirroredReply(
  agentName: string,
  fromChannel: string,
  text: string,
  fileNames: readonly string[] = [],
): MessagePayload {
  const name = literal(truncate(agentName.replace(/\s+/g, ' '), 100));
  const files =
    fileNames.length > 0
      ? `\n📎 ${fileNames
          .slice(0, 10)
          .map((n) => literal(truncate(n, 80)))
          .join(', ')}`
      : '';
  return message(`${name} answered the customer from another channel`, [
    section(`🧑‍💼 *${name}* answered the customer from <#${fromChannel}>:\n${quote(text, 2600)}${files}`),
  ]);
}

/** A Quick reply as the thread shows it: who sent it (on whose behalf the bot posts) and what the customer got. */
export function renderOnBehalf(agentName: string, text: string): MessagePayload {
  const name = literal(truncate(agentName.replace(/\s+/g, ' '), 100));
  return message(`${name} (quick reply): ${inline(text, 200) ?? ''}`, [
    section(`🧑‍💼 *${name}* _(quick reply)_\n${quote(text, 2600)}`),
  ]);
}

/** A Quick reply the thread did not take: it was not sent, so nothing reaches the customer unseen. */
export function renderNotShownNotice(): MessagePayload {
  return message('Your quick reply was not sent', [
    section(
      '⚠️ Your quick reply was not sent: Slack did not take it into this thread just now, and a reply is only sent where the team can see it. Press *Quick reply* on the card to send it again.',
    ),
  ]);
}
