/**
 * `call_started` → one compact line: who, number, campaign, agent, campaign type (the direction).
 */
import { message, section, type MessagePayload } from '../../slack/blocks.js';
import type { CallStarted } from '../events.js';
import { campaignLabel, customerLabel, customerPlain, dotted, inline } from '../../slack/text.js';
import { mentionLine, type PostMentions } from './call-completed.js';

export function renderCallStarted(e: CallStarted, asks?: PostMentions): MessagePayload {
  const campaign = campaignLabel(e);
  const agent = inline(e.agentName, 100);
  const line = dotted(
    `📞 *Call started* with ${customerLabel(e)}`,
    campaign ? `campaign ${campaign}` : undefined,
    agent ? `agent ${agent}` : undefined,
    inline(e.campaignType, 40),
  );
  const fallback = `Call started with ${customerPlain(e)}${campaign ? ` (${inline(e.campaignName, 60) ?? inline(e.campaignId, 60)})` : ''}`;
  const mention = mentionLine(asks);
  return mention
    ? message(`${mention.text}${fallback}`, [mention.block, section(line)])
    : message(fallback, [section(line)]);
}
