/**
 * `message_session_completed` → one short line where the conversation's messages go. Its payload is not
 * documented (docs/PLATFORM-API.md): the conversation fields are used when present and nothing else is assumed.
 */
import { message, section, type MessagePayload } from '../../slack/blocks.js';
import type { SessionCompleted } from '../events.js';
import { campaignLabel, customerLabel, customerPlain, dotted, when } from '../../slack/text.js';

export function renderSessionCompleted(e: SessionCompleted): MessagePayload {
  const campaign = campaignLabel(e);
  const line = dotted(
    `🏁 *Chat session completed* with ${customerLabel(e)}`,
    campaign ? `campaign ${campaign}` : undefined,
    when(e.completedAt ?? e.sentAt ?? e.receivedAt),
  );
  return message(`Chat session completed with ${customerPlain(e)}`, [section(line)]);
}
