/**
 * `message_received` → a channel post with the customer's message quoted. (Threads per conversation come
 * with handoff; where a message goes is decided in `router.ts`, not here.)
 */
import { context, message, section, type MessagePayload } from '../../slack/blocks.js';
import type { MessageReceived } from '../events.js';
import { campaignLabel, customerLabel, customerPlain, dotted, inline, quote, when } from './text.js';

/** Room for the quoted message within one section, after the first line. */
export const MESSAGE_TEXT_MAX = 2600;

export function renderMessageReceived(e: MessageReceived): MessagePayload {
  const content = e.messageContent?.trim();
  const body = content ? `\n${quote(content, MESSAGE_TEXT_MAX)}` : '\n_(empty message)_';
  const campaign = campaignLabel(e);
  const agent = inline(e.agentName, 100);
  const meta = dotted(campaign ? `campaign ${campaign}` : undefined, agent ? `agent ${agent}` : undefined, when(e.receivedAt));
  return message(`Message from ${customerPlain(e)}: ${inline(content, 200) ?? '(empty)'}`, [
    section(`💬 ${customerLabel(e, 'An unknown customer')} wrote:${body}`),
    ...(meta ? [context(meta)] : []),
  ]);
}
