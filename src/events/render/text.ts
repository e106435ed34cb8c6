/**
 * Text helpers shared by the event renderers. Everything the platform sends is customer- or
 * agent-controlled, so it goes through `escapeMrkdwn` here before it reaches a Slack text object —
 * nobody can inject `<!channel>`, `<@U…>` or `<https://…|links>` through a name or a message.
 */
import { escapeMrkdwn, slackDate } from '../../slack/blocks.js';

/** Escapes, then cuts to at most `max` characters without splitting an `&amp;`-style entity. */
export function escapeWithin(raw: string, max: number): string {
  const escaped = escapeMrkdwn(raw);
  if (escaped.length <= max) return escaped;
  let out = '';
  for (const ch of raw) {
    const piece = escapeMrkdwn(ch);
    if (out.length + piece.length > max - 1) break;
    out += piece;
  }
  return `${out}…`;
}

/** A one-line value: whitespace (newlines included) collapsed, escaped, bounded. Undefined when blank. */
export function inline(raw: string | undefined, max = 200): string | undefined {
  if (raw === undefined) return undefined;
  const flat = raw.replace(/\s+/g, ' ').trim();
  return flat === '' ? undefined : escapeWithin(flat, max);
}

/** Ids shown in code spans (a backtick in an id would end the span early; it is dropped). */
export function code(raw: string | undefined): string | undefined {
  const v = inline(raw?.replace(/`/g, ''), 120);
  return v === undefined ? undefined : `\`${v}\``;
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
