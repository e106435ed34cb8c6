/**
 * Real-shaped platform events (docs/PLATFORM-API.md › Payload fields), full and minimal, with customer- and
 * agent-controlled text that tries to inject Slack mentions and links.
 */

/** What a customer could type into a name or a chat message to ping everyone or smuggle a link. */
export const INJECTION = '<!channel> <@U0ADMIN01> <https://evil.example/login|Reset your password> & more';

/** A name using every mrkdwn formatting character: it must not open or close bold/italic/strike/code around it. */
export const FORMATTING_NAME = 'Ann *VIP* _Marie_ ~x~ `y` snake_case';

export const CALL_STARTED_FULL = {
  campaignId: 'camp-1',
  agentId: 'agent-7',
  callId: 'call-0001',
  customerNumber: '+14155550123',
  customerName: `Olivia ${INJECTION}`,
  campaignName: 'Spring Recall',
  agentName: 'Riley',
  campaignType: 'outbound',
};

export const CALL_STARTED_MINIMAL = { campaignId: 'camp-1', callId: 'call-0002' };

export const CALL_COMPLETED_FULL = {
  ...CALL_STARTED_FULL,
  callSummary: `Customer confirmed the check-up and booked Tuesday 10:00. ${INJECTION}`,
  startedAt: '2024-03-08T16:38:35.000Z',
  endedAt: '2024-03-08T16:41:09.250Z',
  durationMs: 154_250,
  durationSeconds: 154,
  durationMinutes: 2.57,
  callTranscript: `AI: Hi Olivia, this is Riley from Acme Dental...\nCustomer: Hi, yes, Tuesday works. ${INJECTION}`,
  audioUrl: 'https://recordings.example.com/call-0001.mp3',
  customerEmail: 'olivia.brown@example.com',
  status: 'completed',
  endedReason: 'customer-ended-call',
  // Unknown fields are kept, never rendered.
  somethingNew: { nested: true },
};

export const CALL_COMPLETED_MINIMAL = { campaignId: 'camp-1', callId: 'call-0003', endedAt: '2024-03-08T16:41:09Z' };

export const MESSAGE_RECEIVED_FULL = {
  campaignId: 'camp-chat',
  agentId: 'agent-9',
  customerNumber: '+14155550199',
  customerName: 'Noah Wilson',
  campaignName: 'Chat Support',
  agentName: 'Sam',
  campaignType: 'messages',
  messageContent: `Can I move my appointment to Friday?\n${INJECTION}`,
  receivedAt: '2024-03-08T16:45:00.000Z',
};

export const MESSAGE_RECEIVED_MINIMAL = { campaignId: 'camp-chat', receivedAt: '2024-03-08T16:45:00Z' };

export const MESSAGE_SENT_FULL = {
  ...MESSAGE_RECEIVED_FULL,
  receivedAt: undefined,
  messageContent: `Sure! Friday 9:30 is free. ${INJECTION}`,
  sentAt: '2024-03-08T16:45:04.000Z',
};

export const MESSAGE_SENT_MINIMAL = { campaignId: 'camp-chat', sentAt: '2024-03-08T16:45:04Z' };

export const SESSION_COMPLETED_FULL = {
  triggerName: 'message_session_completed',
  campaignId: 'camp-chat',
  customerNumber: '+14155550199',
  customerName: `Noah ${INJECTION}`,
  campaignName: 'Chat Support',
  completedAt: '2024-03-08T17:00:00.000Z',
};

export const SESSION_COMPLETED_MINIMAL = { triggerName: 'message_session_completed' };

/** Slack markup that must never appear unescaped in what we post (our own `<!date^…>` is allowed). */
export function injectedMarkup(json: string): string[] {
  return ['<!channel>', '<@U0ADMIN01>', '<https://evil.example'].filter((m) => json.includes(m));
}
