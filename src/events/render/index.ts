/**
 * One renderer per event (pure: event → Block Kit + fallback text), and the sample marker.
 */
import { context, message, type MessagePayload } from '../../slack/blocks.js';
import type { KnownEvent } from '../events.js';
import type { CustomerView } from '../../app/customer-view.js';
import { renderCallCompleted } from './call-completed.js';
import { renderCallStarted } from './call-started.js';
import { renderSessionCompleted } from './session-completed.js';
import { renderAgentLine, renderCustomerLine } from './messages.js';

export { renderCallStarted } from './call-started.js';
export { renderCallCompleted, renderRecordingShare, renderTranscript, type TranscriptReply } from './call-completed.js';
export { renderAgentLine, renderCustomerLine, renderCustomerLines } from './messages.js';

/**
 * The post of a known event: for calls the channel post (call_completed: the card; its transcript is rendered
 * apart), for chat messages the line in the conversation's thread (the card itself: `renderConversationCard`).
 * `view`: how the channel it goes to may see customers (`CustomerView`, masked where guests can read it);
 * `buttons`: a call's Recording button value (`sealRecording`), without which the card has no such button, and
 * its Details button value (`sealCallDetails`), with which it is the short card.
 */
export function renderEvent(
  event: KnownEvent,
  view?: CustomerView,
  buttons?: { recording?: string | undefined; details?: string | undefined },
): MessagePayload {
  const shown = <T extends object>(data: T): T => view?.fields(data) ?? data;
  switch (event.trigger) {
    case 'call_started':
      return renderCallStarted(shown(event.data));
    case 'call_completed':
      return renderCallCompleted({ ...shown(event.data), ...buttons });
    case 'message_received':
      return renderCustomerLine(shown(event.data));
    case 'message_sent':
      return renderAgentLine(shown(event.data));
    case 'message_session_completed':
      return renderSessionCompleted(shown(event.data));
  }
}

/** block_id of the sample marker above a sample post. */
export const SAMPLE_MARKER_BLOCK = 'sample_marker';

/** The same post, marked as a sample so nobody mistakes it for a real call or message. */
export function markAsSample(payload: MessagePayload, trigger: string): MessagePayload {
  return message(`[Sample] ${payload.text}`, [
    {
      ...context(
        `🧪 *Sample* \`${trigger}\` event from the platform — this is how it will look in subscribed channels. Not a real ${trigger.startsWith('call') ? 'call' : 'message'}.`,
      ),
      block_id: SAMPLE_MARKER_BLOCK,
    },
    ...payload.blocks,
  ]);
}
