/**
 * A chat message's line: in its conversation's thread (handoff), or a plain channel post when the payload
 * names no conversation. Customer (💬 name) and agent (🤖 name) lines are told apart at a glance.
 */
import { context, message, section, type MessagePayload } from '../../slack/blocks.js';
import { dotted, inline, quote, when } from '../../slack/text.js';
import type { MessageReceived, MessageSent } from '../events.js';

/** Room for the quoted message within one section, after the first line. */
const MESSAGE_TEXT_MAX = 2600;

function body(content: string | undefined): string {
  const trimmed = content?.trim();
  return trimmed ? `\n${quote(trimmed, MESSAGE_TEXT_MAX)}` : '\n_(empty message)_';
}

/** A customer's message in the conversation's thread. */
export function renderCustomerLine(e: MessageReceived): MessagePayload {
  const name = inline(e.customerName, 100) ?? inline(e.customerNumber, 40) ?? 'Customer';
  const meta = dotted('customer', when(e.receivedAt));
  return message(`${name}: ${inline(e.messageContent, 200) ?? '(empty)'}`, [
    section(`💬 *${name}*${body(e.messageContent)}`),
    context(meta),
  ]);
}

/**
 * Several messages of one customer that waited for the same thread, in one post (oldest first): one line
 * each, under one name. A single message is `renderCustomerLine`.
 */
export function renderCustomerLines(lines: readonly MessageReceived[]): MessagePayload {
  const [first, ...more] = lines;
  if (!first) throw new RangeError('renderCustomerLines: no message');
  if (more.length === 0) return renderCustomerLine(first);
  const name = inline(first.customerName, 100) ?? inline(first.customerNumber, 40) ?? 'Customer';
  return message(`${name}: ${inline(first.messageContent, 200) ?? '(empty)'} (+${more.length} more)`, [
    section(`💬 *${name}*${body(first.messageContent)}`),
    context(dotted('customer', when(first.receivedAt))),
    ...more.flatMap((e) => [section(body(e.messageContent).slice(1)), context(dotted('customer', when(e.receivedAt)))]),
  ]);
}

/** The agent's (AI or platform-side human) message in the conversation's thread. */
export function renderAgentLine(e: MessageSent): MessagePayload {
  const name = inline(e.agentName, 100) ?? 'Agent';
  const meta = dotted('agent', when(e.sentAt));
  return message(`🤖 ${name}: ${inline(e.messageContent, 200) ?? '(empty)'}`, [
    section(`🤖 *${name}*${body(e.messageContent)}`),
    context(meta),
  ]);
}
