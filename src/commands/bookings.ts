/**
 * `/campaign bookings <campaign>`: the campaign's bookings with status icons and failure reasons,
 * paged past Slack's per-message block limit. The campaign is its id or its name (`campaign-ref.ts`).
 */
import type { Booking, CampaignClient } from '../api/index.js';
import {
  context,
  escapeMrkdwn,
  header,
  literal,
  message,
  section,
  slackDate,
  truncate,
  type KnownBlock,
  type MessagePayload,
} from '../slack/blocks.js';
import { askAbout, campaignTitle, chooseCampaign, code, remember } from './campaign-ref.js';
import { campaignNotFound, paginate, pagerBlocks, registerPager, type PageSubject } from './paging.js';
import type { Subcommand } from './types.js';
import type { CustomerView } from '../app/customer-view.js';

const PAGE_SIZE = 20;
const PAGE_ACTION = 'bookings_page';

/** A Map, not an object: a status the platform sends is looked up as data (`constructor` is no key here). */
const STATUS_ICON = new Map([
  ['success', '✅'],
  ['fail', '❌'],
  ['booking', '⏳'],
]);

export const bookings: Subcommand = {
  name: 'bookings',
  usage: 'bookings <campaignId>',
  summary: 'bookings of a campaign, with status and failure reason',
  readOnly: true,
  audience: 'members',
  args: { min: 1, max: 12 },
  async run(ctx) {
    const choice = await chooseCampaign(ctx.deps, ctx.teamId, ctx.args.join(' '));
    if (!choice.ok) return ctx.tell(choice.sentence);
    const target = choice.target;
    const client = await ctx.deps.platform.clientFor(ctx.teamId);
    // The platform answers an empty list for any id: for one the bot never saw, that says nothing about it.
    const rows = await askAbout(
      ctx,
      target,
      campaignNotFound(target.id).notFound ?? '',
      () => client.bookings.list(target.id),
      (list) => list.length === 0,
    );
    if (rows === undefined) return;
    if (rows.length > 0) await remember(ctx.deps, ctx.logger, ctx.teamId, 'campaigns', { id: target.id });
    await ctx.reply(renderBookings(target, rows, 0, await ctx.customerView()));
  },
  register(app, deps) {
    registerPager(app, deps, bookings, PAGE_ACTION, renderBookingsPage, campaignNotFound);
  },
};

async function renderBookingsPage(
  client: CampaignClient,
  subject: PageSubject,
  page: number,
  view: CustomerView,
): Promise<MessagePayload> {
  return renderBookings(subject, await client.bookings.list(subject.id), page, view);
}

function renderBookings(
  subject: PageSubject,
  rows: readonly Booking[],
  pageNumber: number,
  view: CustomerView,
): MessagePayload {
  const id = escapeMrkdwn(subject.id);
  if (rows.length === 0) {
    return message(`No bookings for campaign ${id}`, [section(`Campaign ${code(subject.id)} has no bookings yet.`)]);
  }
  // Newest first: the booking people ask about is usually the latest.
  const sorted = [...rows].sort((a, b) => dateValue(b.BookingDate) - dateValue(a.BookingDate));
  const counts = countBy(sorted, (b) => b.Status ?? 'unknown');
  const page = paginate(sorted, pageNumber, PAGE_SIZE);
  const blocks: KnownBlock[] = [
    header(truncate(`Bookings — ${campaignTitle(subject)}`, 150)),
    context(...[...counts].map(([status, n]) => `${STATUS_ICON.get(status) ?? '•'} ${escapeMrkdwn(status)}: *${n}*`)),
    ...page.items.map((b) => section(bookingLine(view.fields(b)))),
    ...pagerBlocks(PAGE_ACTION, subject, page, 'bookings'),
  ];
  return message(`${rows.length} bookings for campaign ${id}`, blocks);
}

function bookingLine(b: Booking): string {
  const icon = STATUS_ICON.get(b.Status ?? '') ?? '•';
  const who = literal(b.CustomerName || 'Unknown customer');
  const email = b.CustomerEmail ? ` · ${escapeMrkdwn(b.CustomerEmail)}` : '';
  const lines = [
    `${icon} *${who}*${email}`,
    `${slackDate(b.BookingDate)} · ${escapeMrkdwn(b.Status ?? 'unknown')}${b.CallId ? ` · call \`${escapeMrkdwn(b.CallId)}\`` : ''}`,
  ];
  if (b.Status === 'fail') lines.push(`> ${escapeMrkdwn(truncate(b.Reason || 'no reason given', 500))}`);
  return lines.join('\n');
}

function dateValue(iso: string | undefined): number {
  const t = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(t) ? 0 : t;
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const out = new Map<string, number>();
  for (const item of items) out.set(key(item), (out.get(key(item)) ?? 0) + 1);
  return out;
}
