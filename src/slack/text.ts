/**
 * Text helpers shared by the event renderers. Everything the platform sends is customer- or
 * agent-controlled, so it goes through `escapeMrkdwn` here before it reaches a Slack text object —
 * nobody can inject `<!channel>`, `<@U…>` or `<https://…|links>` through a name or a message.
 */
import { escapeMrkdwn, literalChar, slackDate } from './blocks.js';

/**
 * Escapes each character with `piece` (default: `escapeMrkdwn`), then cuts to at most `max` characters
 * without splitting an `&amp;`-style entity.
 */
export function escapeWithin(
  raw: string,
  max: number,
  piece: (chars: readonly string[], i: number) => string = (chars, i) => escapeMrkdwn(chars[i] ?? ''),
): string {
  const chars = [...raw];
  const pieces = chars.map((_, i) => piece(chars, i));
  const whole = pieces.join('');
  if (whole.length <= max) return whole;
  let out = '';
  for (const p of pieces) {
    if (out.length + p.length > max - 1) break;
    out += p;
  }
  return `${out}…`;
}

function flatten(raw: string | undefined): string | undefined {
  const flat = raw?.replace(/\s+/g, ' ').trim();
  return flat ? flat : undefined;
}

/**
 * A one-line value (name, number, status): whitespace collapsed, escaped, unable to start or end mrkdwn
 * formatting (a `*` in a name would end the bold around it), bounded. Undefined when blank.
 */
export function inline(raw: string | undefined, max = 200): string | undefined {
  const flat = flatten(raw);
  return flat === undefined ? undefined : escapeWithin(flat, max, literalChar);
}

/** Ids shown in code spans, kept exact (a backtick in an id would end the span early; it is dropped). */
export function code(raw: string | undefined): string | undefined {
  const flat = flatten(raw?.replace(/`/g, ''));
  return flat === undefined ? undefined : `\`${escapeWithin(flat, 120)}\``;
}

export interface Who {
  customerName?: string | undefined;
  customerNumber?: string | undefined;
}

/** `*Olivia Brown* (+14155550123)`, or whichever of the two is known. */
export function customerLabel(e: Who, fallback = 'an unknown customer'): string {
  const name = inline(e.customerName, 100);
  const number = inline(e.customerNumber, 40);
  if (name && number) return `*${name}* (${number})`;
  if (name) return `*${name}*`;
  if (number) return `*${number}*`;
  return fallback;
}

/** Customer for a notification's fallback text (Slack parses that text too, so it is escaped as well). */
export function customerPlain(e: Who, fallback = 'unknown customer'): string {
  const name = inline(e.customerName, 60);
  const number = inline(e.customerNumber, 40);
  if (name && number) return `${name} (${number})`;
  return name ?? number ?? fallback;
}

export interface CampaignRef {
  campaignName?: string | undefined;
  campaignId?: string | undefined;
}

/** The campaign's name, else its id in a code span. */
export function campaignLabel(e: CampaignRef): string | undefined {
  return inline(e.campaignName, 100) ?? code(e.campaignId);
}

/** Multi-line text quoted with `>` (escaping guarantees the text cannot end the quote with its own markup). */
export function quote(raw: string, max: number): string {
  return escapeWithin(raw.trim(), max)
    .split('\n')
    .map((line) => `>${line}`)
    .join('\n');
}

/** A Slack date for an ISO timestamp, or undefined when there is none. */
export function when(iso: string | undefined): string | undefined {
  return iso ? slackDate(iso) : undefined;
}

/** Joins the parts that exist with ` · `. */
export function dotted(...parts: Array<string | undefined>): string {
  return parts.filter((p): p is string => p !== undefined && p !== '').join(' · ');
}

/** The value, or an em dash for a field whose value the platform did not send. */
export function orDash(value: string | undefined): string {
  return value ?? '—';
}

/** An https URL safe for a link button (Slack: ≤ 3000 characters), else undefined. */
export function httpsUrl(raw: string | undefined): string | undefined {
  if (!raw || raw.length > 3000) return undefined;
  try {
    const url = new URL(raw.trim()).toString();
    return url.startsWith('https://') && url.length <= 3000 ? url : undefined;
  } catch {
    return undefined;
  }
}
