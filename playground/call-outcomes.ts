/**
 * How a simulated call ends, so route filters (`status:`, `reason:`, `min:`, `summary:`) and outcome alerts
 * (`/campaign alert`) have something to sort: answered calls of a few minutes, with summaries a hot-lead filter
 * finds (`summary:interested,demo,pricing`) or not, and calls nobody answered, busy lines, voicemail and failures
 * of a few seconds. campaign-api.md leaves the values of `status` and `endedReason` open; these are the ones
 * voice platforms commonly send.
 */
import { randomBytes } from 'node:crypto';

interface CallOutcome {
  /** What the Simulate panel's menu says. */
  label: string;
  status: string;
  endedReason: string;
  minMs: number;
  spreadMs: number;
  summary: (name: string) => string;
  /** What was said after the agent's greeting (the transcript); none when the call never reached a person. */
  talk?: readonly string[];
  /** The call booked an appointment: the platform keeps a booking for it. */
  booking?: true;
}

export const CALL_OUTCOMES = {
  booked: {
    label: 'Answered, booked',
    status: 'completed',
    endedReason: 'customer-ended-call',
    minMs: 60_000,
    spreadMs: 240_000,
    summary: (name) => `${name} confirmed the check-up and booked Tuesday 10:00.`,
    booking: true,
    talk: [
      'Customer: Hi! Yes, Tuesday at 10 works for me.',
      "AI: Great, you're booked for Tuesday at 10:00. See you then!",
    ],
  },
  'hot-lead': {
    label: 'Answered, hot lead',
    status: 'completed',
    endedReason: 'customer-ended-call',
    minMs: 120_000,
    spreadMs: 300_000,
    summary: (name) =>
      `${name} is very interested in the premium plan, asked about pricing and booked a demo for Friday.`,
    booking: true,
    talk: [
      'Customer: Actually, yes. What does the premium plan cost?',
      'AI: It is $49 a month, with a free first month. Shall I book a demo with our team?',
      'Customer: Very interested, yes. Friday afternoon?',
      'AI: Booked: a demo on Friday at 14:00.',
    ],
  },
  'not-interested': {
    label: 'Answered, not interested',
    status: 'completed',
    endedReason: 'assistant-ended-call',
    minMs: 30_000,
    spreadMs: 90_000,
    summary: (name) => `${name} has no need right now; call again next quarter.`,
    talk: [
      "Customer: Thanks, but we don't need anything right now.",
      'AI: Understood. May I call again next quarter?',
      'Customer: Sure.',
    ],
  },
  transferred: {
    label: 'Answered, transferred to staff',
    status: 'completed',
    endedReason: 'assistant-forwarded-call',
    minMs: 45_000,
    spreadMs: 120_000,
    summary: (name) => `${name} asked for the billing team; the call was transferred to the front desk.`,
    talk: [
      'Customer: I have a question about my last bill.',
      'AI: Of course, let me put you through to our billing team.',
    ],
  },
  silence: {
    label: 'Answered, then silence',
    status: 'completed',
    endedReason: 'silence-timed-out',
    minMs: 20_000,
    spreadMs: 20_000,
    summary: () => 'The customer picked up but said nothing; the call timed out.',
    talk: ['Customer: …', 'AI: Hello? Are you still there?'],
  },
  'no-answer': {
    label: 'No answer',
    status: 'no-answer',
    endedReason: 'customer-did-not-answer',
    minMs: 20_000,
    spreadMs: 15_000,
    summary: () => 'No answer.',
  },
  busy: {
    label: 'Busy',
    status: 'busy',
    endedReason: 'customer-busy',
    minMs: 1_000,
    spreadMs: 5_000,
    summary: () => 'The line was busy.',
  },
  voicemail: {
    label: 'Voicemail',
    status: 'failed',
    endedReason: 'voicemail',
    minMs: 15_000,
    spreadMs: 30_000,
    summary: () => 'Reached voicemail; left a message.',
  },
  failed: {
    label: 'Failed to connect',
    status: 'failed',
    endedReason: 'twilio-failed-to-connect-call',
    minMs: 0,
    spreadMs: 3_000,
    summary: () => 'The call could not be connected.',
  },
} satisfies Record<string, CallOutcome>;

export type CallOutcomeName = keyof typeof CALL_OUTCOMES;

/** The names the page offers (`random` picks one of the others for each call). */
export const CALL_OUTCOME_CHOICES = ['random', ...(Object.keys(CALL_OUTCOMES) as CallOutcomeName[])] as const;

/** The outcome asked for, or one at random; with its duration drawn from the outcome's range. */
export function pickOutcome(name: CallOutcomeName | 'random' | undefined): CallOutcome & { durationMs: number } {
  const random = randomBytes(4);
  const names = Object.keys(CALL_OUTCOMES) as CallOutcomeName[];
  const chosen =
    name && name !== 'random' ? CALL_OUTCOMES[name] : CALL_OUTCOMES[names[random.readUInt8(0) % names.length]!];
  return { ...chosen, durationMs: chosen.minMs + (random.readUInt16BE(1) % chosen.spreadMs) };
}

/** Believable customers for a burst of calls: a name and a number each (numbers of the 555-01xx fiction range). */
const FIRST = ['Olivia', 'Noah', 'Emma', 'Liam', 'Ava', 'Mateo', 'Sofia', 'Lucas', 'Mia', 'Ethan', 'Isla', 'Omar'];
const LAST = ['Brown', 'Garcia', 'Chen', 'Okafor', 'Novak', 'Silva', 'Patel', 'Kim', 'Dubois', 'Rossi'];

export function customerFor(i: number): { customerName: string; customerNumber: string } {
  const first = FIRST[i % FIRST.length]!;
  const last = LAST[Math.floor(i / FIRST.length + i) % LAST.length]!;
  return { customerName: `${first} ${last}`, customerNumber: `+1415555${String(130 + (i % 70)).padStart(4, '0')}` };
}
