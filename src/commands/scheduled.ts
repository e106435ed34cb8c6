/**
 * `/campaign scheduled <campaign>`: upcoming calls sorted by ScheduledDate, shown in each reader's
 * local time through Slack's date formatting. The campaign is its id or its name (`campaign-ref.ts`).
 */
import type { CampaignClient, ScheduledCall } from '../api/index.js';
import {
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

const PAGE_SIZE = 25;
const PAGE_ACTION = 'scheduled_page';

export const scheduled: Subcommand = {
  name: 'scheduled',
  usage: 'scheduled <campaignId>',
  summary: 'scheduled calls of a campaign, soonest first',
  readOnly: true,
  audience: 'members',
  args: { min: 1, max: 12 },
  async run(ctx) {
    const choice = await chooseCampaign(ctx.deps, ctx.teamId, ctx.args.join(' '));
    if (!choice.ok) return ctx.tell(choice.sentence);
    const target = choice.target;
    const client = await ctx.deps.platform.clientFor(ctx.teamId);
    const rows = await askAbout(ctx, target, campaignNotFound(target.id).notFound ?? '', () =>
      client.calls.listScheduled(target.id),
    );
    if (rows === undefined) return;
    // The platform knows the campaign (it answers 404 for one it does not), even with no calls: the catalog learns it.
    await remember(ctx.deps, ctx.logger, ctx.teamId, 'campaigns', { id: target.id });
    await ctx.reply(renderScheduled(target, rows, 0, await ctx.customerView()));
  },
  register(app, deps) {
    registerPager(app, deps, scheduled, PAGE_ACTION, renderScheduledPage, campaignNotFound);
  },
};

async function renderScheduledPage(
  client: CampaignClient,
  subject: PageSubject,
  page: number,
  view: CustomerView,
): Promise<MessagePayload> {
  return renderScheduled(subject, await client.calls.listScheduled(subject.id), page, view);
}

function renderScheduled(
  subject: PageSubject,
  rows: readonly ScheduledCall[],
  pageNumber: number,
  view: CustomerView,
): MessagePayload {
  const id = escapeMrkdwn(subject.id);
  if (rows.length === 0) {
    return message(`No scheduled calls for campaign ${id}`, [
      section(`Campaign ${code(subject.id)} has no scheduled calls.`),
    ]);
  }
  // Rows without a date go last rather than first: they can't be "soonest".
  const when = (r: ScheduledCall) => {
    const t = r.ScheduledDate ? Date.parse(r.ScheduledDate) : NaN;
    return Number.isNaN(t) ? Number.MAX_SAFE_INTEGER : t;
  };
  const sorted = [...rows].sort((a, b) => when(a) - when(b));
  const page = paginate(sorted, pageNumber, PAGE_SIZE);
  const lines = page.items
    .map((row) => view.fields(row))
    .map((r) =>
      `🗓️ ${slackDate(r.ScheduledDate)} — *${literal(r.Name || 'Unnamed contact')}* ${r.PhoneNumber ? escapeMrkdwn(r.PhoneNumber) : ''}`.trim(),
    );
  const blocks: KnownBlock[] = [
    header(truncate(`Scheduled calls — ${campaignTitle(subject)}`, 150)),
    // Several lines per section keeps long lists well under 50 blocks; chunked to respect 3000 chars.
    ...chunkLines(lines, 2900).map((text) => section(text)),
    ...pagerBlocks(PAGE_ACTION, subject, page, 'scheduled calls'),
  ];
  return message(`${rows.length} scheduled calls for campaign ${id}`, blocks);
}

function chunkLines(lines: readonly string[], maxChars: number): string[] {
  const chunks: string[] = [];
  let current = '';
  for (const line of lines) {
    const next = current ? `${current}\n${line}` : line;
    if (next.length > maxChars && current) {
      chunks.push(current);
      current = line;
    } else {
      current = next;
    }
  }
  if (current) chunks.push(current);
  return chunks;
}
