/**
 * `message_sent` → a channel post with the agent's message quoted.
 */
import { context, message, section, type MessagePayload } from '../../slack/blocks.js';
import type { MessageSent } from '../events.js';
import { campaignLabel, customerLabel, customerPlain, dotted, inline, quote, when } from './text.js';
import { MESSAGE_TEXT_MAX } from './message-received.js';

export function renderMessageSent(e: MessageSent): MessagePayload {
  const content = e.messageContent?.trim();
  const body = content ? `\n${quote(content, MESSAGE_TEXT_MAX)}` : '\n_(empty message)_';
  const agent = inline(e.agentName, 100);
  const campaign = campaignLabel(e);
  const meta = dotted(campaign ? `campaign ${campaign}` : undefined, when(e.sentAt));
  return message(`${agent ?? 'Agent'} to ${customerPlain(e)}: ${inline(content, 200) ?? '(empty)'}`, [
    section(`🤖 ${agent ? `*${agent}*` : 'The agent'} replied to ${customerLabel(e)}:${body}`),
    ...(meta ? [context(meta)] : []),
  ]);
}
