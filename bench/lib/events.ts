/**
 * Real-shaped platform webhook bodies (docs/PLATFORM-API.md › Delivery: a JSON array holding one event).
 */

const TRANSCRIPT = [
  'AI: Hi, this is Riley calling from Acme Dental about your six-month check-up. Is now a good time?',
  'Customer: Oh hi, yes, I have a minute.',
  'AI: Great. Our records show you are due for a cleaning. We have openings next Tuesday at 10:00 or Thursday at 15:30.',
  'Customer: Tuesday at ten works for me. Will it be with Dr. Patel again?',
  'AI: Yes, Dr. Patel is in on Tuesday. I have booked you for Tuesday at 10:00. You will get a text confirmation shortly.',
  'Customer: Perfect. Can you also remind me what my insurance covers for cleanings?',
  'AI: Your plan covers two cleanings per year at no cost. This would be your second one this year.',
  'Customer: Good to know. Thanks for calling.',
  'AI: You are welcome, Olivia. Have a great day!',
].join('\n');

/** One completed call; `callId` makes it a distinct event (the dedup key is trigger + callId). */
export function callCompleted(callId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    campaignId: 'camp-bench',
    agentId: 'agent-7',
    callId,
    customerNumber: '+14155550123',
    customerName: 'Olivia Brown',
    campaignName: 'Spring Recall',
    agentName: 'Riley',
    campaignType: 'outbound',
    callSummary:
      'Customer confirmed the check-up and booked Tuesday 10:00 with Dr. Patel; asked about insurance coverage.',
    startedAt: '2024-03-08T16:38:35.000Z',
    endedAt: '2024-03-08T16:41:09.250Z',
    durationMs: 154_250,
    durationSeconds: 154,
    durationMinutes: 2.57,
    callTranscript: TRANSCRIPT,
    audioUrl: `https://recordings.example.com/${callId}.mp3`,
    customerEmail: 'olivia.brown@example.com',
    status: 'completed',
    endedReason: 'customer-ended-call',
    ...overrides,
  };
}

/** The delivery body the platform POSTs for one event. */
export function deliveryBody(event: Record<string, unknown>): string {
  return JSON.stringify([event]);
}

/** One customer chat message (a conversation is campaignId + customerNumber). */
export function messageReceived(
  customerNumber: string,
  content: string,
  receivedAt: string,
  campaignId = 'camp-chat',
): Record<string, unknown> {
  return {
    campaignId,
    agentId: 'agent-9',
    customerNumber,
    customerName: 'Noah Wilson',
    campaignName: 'Chat Support',
    agentName: 'Sam',
    campaignType: 'messages',
    messageContent: content,
    receivedAt,
  };
}

export function postJson(url: string, body: string, signal?: AbortSignal): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    ...(signal ? { signal } : {}),
  });
}

/**
 * The delivery body of a completed call in three parts, to be joined around its call id (twice: `callId` and
 * the recording URL): `head + id + middle + id + tail`. The load generator builds distinct bodies from them
 * without serialising JSON per request.
 */
export function callBodyParts(): [head: string, middle: string, tail: string] {
  const marker = '\u0000CALLID\u0000';
  return deliveryBody(callCompleted(marker)).split(JSON.stringify(marker).slice(1, -1)) as [string, string, string];
}
