/**
 * `list_bookings`: a campaign's bookings as a count and a short text list, newest first — what
 * `/campaign bookings` shows. The list holds customer details (names, e-mails), so it follows the membership
 * policy of the commands: the person who used the workflow — named by Slack in a `user_context` input, never
 * by a builder — must be an active full member of the workspace (docs/WORKFLOWS.md). Where the list
 * goes next is the workflow's — a channel with guests, an e-mail, another organisation — and the bot cannot see it,
 * so the list masks e-mails and numbers as a channel with guests does (`customer-view.ts`); names stay.
 */
import { z } from 'zod';
import type { Booking } from '../api/index.js';
import { customerView } from '../app/customer-view.js';
import { customerDataRefusal } from '../app/membership.js';
import { chooseCampaign, code, remember, unknownCampaign } from '../commands/campaign-ref.js';
import { truncate } from '../slack/blocks.js';
import { CAMPAIGN_MAX, RUN_BY, requiredText, userContext } from './inputs.js';
import { defineStep } from './step.js';

export const LIST_BOOKINGS = 'list_bookings';

/** Lines in the list; the count says how many there are in all. */
const LISTED = 10;

export const listBookings = defineStep({
  callbackId: LIST_BOOKINGS,
  schema: z.object({ campaign: requiredText(CAMPAIGN_MAX), [RUN_BY]: userContext }),
  titles: { campaign: 'Campaign', [RUN_BY]: 'Requested by' },
  async run(ctx, inputs) {
    const { deps, ws } = ctx;
    const refusal = await deps.members.refusal(ctx.slack, ws, inputs.run_by.id);
    if (refusal !== undefined) {
      return { kind: 'refused', sentence: customerDataRefusal('The “List bookings” step', refusal) };
    }
    const choice = await chooseCampaign(deps, ws.teamId, inputs.campaign);
    if (!choice.ok) return { kind: 'refused', sentence: choice.sentence };
    const target = choice.target;
    const rows = await ctx.platform.bookings.list(target.id);
    // The platform answers an empty list for any id: for one the bot never saw, that says nothing about it.
    if (rows.length === 0 && target.by === 'unseen') return { kind: 'refused', sentence: unknownCampaign(target) };
    if (rows.length > 0) await remember(deps, ctx.logger, ws.teamId, 'campaigns', { id: target.id });
    return { kind: 'done', outputs: { count: rows.length, list: bookingList(target.id, rows) } };
  },
});

function bookingList(campaignId: string, rows: readonly Booking[]): string {
  if (rows.length === 0) return 'No bookings yet.';
  const sorted = [...rows].sort((a, b) => dateValue(b.BookingDate) - dateValue(a.BookingDate));
  const masked = customerView(false);
  const lines = sorted.slice(0, LISTED).map((b) => bookingLine(masked.fields(b)));
  if (rows.length > LISTED)
    lines.push(`… and ${rows.length - LISTED} more: /campaign bookings ${code(campaignId)} lists them all.`);
  return lines.join('\n');
}

const STATUS_ICON = new Map([
  ['success', '✅'],
  ['fail', '❌'],
  ['booking', '⏳'],
]);

function bookingLine(b: Booking): string {
  const who = truncate(b.CustomerName || 'Unknown customer', 80);
  const email = b.CustomerEmail ? ` <${truncate(b.CustomerEmail, 120)}>` : '';
  const when = b.BookingDate && !Number.isNaN(Date.parse(b.BookingDate)) ? ` — ${utc(b.BookingDate)}` : '';
  const status = b.Status ?? 'unknown';
  const reason = b.Status === 'fail' && b.Reason ? `: ${truncate(b.Reason, 120)}` : '';
  return `${STATUS_ICON.get(status) ?? '•'} ${who}${email}${when}, ${status}${reason}`;
}

/** `2024-03-11 16:00 UTC`: a later step posts the text as it is, to readers in any time zone. */
function utc(iso: string): string {
  return `${new Date(iso).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function dateValue(iso: string | undefined): number {
  const t = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(t) ? 0 : t;
}
