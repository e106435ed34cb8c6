/**
 * The one masking policy for customer details (phone numbers, e-mails, and either of them in free text) in
 * everything the bot shows where someone other than the workspace's full members may read it: channel posts
 * (cards, lines, roll-ups, transcripts, digests, conversation cards and nudges), command answers posted with
 * `--public` and their pages, App Home's conversations, and workflow outputs. Whether a surface is masked is
 * decided elsewhere — a channel by who is in it (`channel-audience.ts`), a private answer by who asked — and
 * every surface then applies the view it got here, never a mask of its own. Names stay: a team needs them to
 * talk about a customer, and they are not a way to reach one.
 */
import { maskContactDetails, maskEmail, maskPhoneNumber } from '../api/mask.js';

/** How a surface may show customers: in full, or with numbers and e-mails masked. */
export interface CustomerView {
  readonly full: boolean;
  /** A payload (an event's data, a booking, a scheduled call) with its customer fields as the surface may show them. */
  fields<T extends object>(data: T): T;
}

/** Fields holding a customer's number or e-mail, as the platform names them in events and lists. */
const PHONE_FIELDS = new Set(['customerNumber', 'CustomerNumber', 'phoneNumber', 'PhoneNumber']);
const EMAIL_FIELDS = new Set(['customerEmail', 'CustomerEmail']);
/** Free text that may carry a number or an address: the customer's words, the AI's summary and transcript. */
const TEXT_FIELDS = new Set(['callSummary', 'callTranscript', 'messageContent', 'latestWords', 'Reason']);

const FULL: CustomerView = { full: true, fields: (data) => data };
const MASKED: CustomerView = {
  full: false,
  fields<T extends object>(data: T): T {
    const out = { ...data } as Record<string, unknown>;
    for (const [key, value] of Object.entries(out)) {
      if (typeof value !== 'string' || value === '') continue;
      if (PHONE_FIELDS.has(key)) out[key] = maskPhoneNumber(value);
      else if (EMAIL_FIELDS.has(key)) out[key] = maskEmail(value);
      else if (TEXT_FIELDS.has(key)) out[key] = maskContactDetails(value);
    }
    return out as T;
  },
};

/** The view for a surface that may (`shown`) or may not show customers in full. */
export function customerView(shown: boolean): CustomerView {
  return shown ? FULL : MASKED;
}

/** A stored thread's customer (for its card, nudge and list line) as its channel may see it now. */
export function threadCustomer(info: {
  customerNumber: string;
  facts: { customerName?: string | undefined };
  latestWords?: string | undefined;
  customerDataShown: boolean;
}): { customerName: string | undefined; customerNumber: string; latestWords: string | undefined } {
  return customerView(info.customerDataShown).fields({
    customerName: info.facts.customerName,
    customerNumber: info.customerNumber,
    latestWords: info.latestWords,
  });
}
