/**
 * `/campaign scheduled <campaignId>`: upcoming calls sorted by ScheduledDate, shown in each reader's
 * local time through Slack's date formatting.
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
import { campaignNotFound, paginate, pagerBlocks, registerPager } from './paging.js';
import type { Subcommand } from './types.js';

const PAGE_SIZE = 25;
const PAGE_ACTION = 'scheduled_page';

export const scheduled: Subcommand = {
  name: 'scheduled',
  usage: 'scheduled <campaignId>',
  summary: 'scheduled calls of a campaign, soonest first',
  readOnly: true,
  audience: 'members',
  args: { min: 1, max: 1 },
  async run(ctx) {
    const client = await ctx.deps.platform.clientFor(ctx.teamId);
    await ctx.reply(await renderScheduledPage(client, ctx.args[0] ?? '', 0));
  },
  failures: (ctx) => campaignNotFound(ctx.args[0] ?? ''),
  register(app, deps) {
    registerPager(app, deps, scheduled, PAGE_ACTION, renderScheduledPage, campaignNotFound);
  },
};

async function renderScheduledPage(client: CampaignClient, campaignId: string, page: number): Promise<MessagePayload> {
  return renderScheduled(campaignId, await client.calls.listScheduled(campaignId), page);
}

function renderScheduled(campaignId: string, rows: readonly ScheduledCall[], pageNumber: number): MessagePayload {
  const id = escapeMrkdwn(campaignId);
  if (rows.length === 0) {
    return message(`No scheduled calls for campaign ${id}`, [section(`Campaign \`${id}\` has no scheduled calls.`)]);
  }
  // Rows without a date go last rather than first: they can't be "soonest".
  const when = (r: ScheduledCall) => {
    const t = r.ScheduledDate ? Date.parse(r.ScheduledDate) : NaN;
    return Number.isNaN(t) ? Number.MAX_SAFE_INTEGER : t;
  };
  const sorted = [...rows].sort((a, b) => when(a) - when(b));
  const page = paginate(sorted, pageNumber, PAGE_SIZE);
  const lines = page.items.map((r) =>
    `🗓️ ${slackDate(r.ScheduledDate)} — *${literal(r.Name || 'Unnamed contact')}* ${r.PhoneNumber ? escapeMrkdwn(r.PhoneNumber) : ''}`.trim(),
  );
  const blocks: KnownBlock[] = [
    header(truncate(`Scheduled calls — ${campaignId}`, 150)),
    // Several lines per section keeps long lists well under 50 blocks; chunked to respect 3000 chars.
    ...chunkLines(lines, 2900).map((text) => section(text)),
    ...pagerBlocks(PAGE_ACTION, campaignId, page, 'scheduled calls'),
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
