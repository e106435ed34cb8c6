/**
 * `/campaign stats`: dashboard totals per channel type, top campaigns and account elements.
 */
import type { DashboardStats } from '../api/index.js';
import { hoursMinutes, groupDigits, percent } from '../format/numbers.js';
import { context, divider, escapeMrkdwn, fields, header, message, section, slackDate, type KnownBlock, type MessagePayload } from '../slack/blocks.js';
import type { Subcommand } from './types.js';

const CATEGORIES = ['Outbound', 'Inbound', 'Web'] as const;
const TOP_CAMPAIGNS_SHOWN = 10;

export const stats: Subcommand = {
  name: 'stats',
  usage: 'stats',
  summary: 'call totals per channel type, top campaigns and account elements',
  readOnly: true,
  args: { min: 0, max: 0 },
  async run(ctx) {
    const client = await ctx.deps.platform.clientFor(ctx.teamId);
    await ctx.reply(renderStats(await client.dashboard.getStats()));
  },
};

export function renderStats(s: DashboardStats): MessagePayload {
  const blocks: KnownBlock[] = [header('Campaign dashboard')];
  let totalCalls = 0;
  for (const name of CATEGORIES) {
    const c = s.totals?.[name];
    if (!c) continue;
    totalCalls += c.calls ?? 0;
    blocks.push(
      section(`*${name}*`),
      fields([
        ['Calls', groupDigits(c.calls ?? 0)],
        ['Talk time', hoursMinutes(BigInt(Math.trunc(c.durationMs ?? 0)))],
        ['Connection rate', percent(c.connectionRate)],
        ['Successful calls', groupDigits(c.successCalls ?? 0)],
        ['Bookings made', groupDigits(c.bookingsMade ?? 0)],
        ['Transfers made', groupDigits(c.transfersMade ?? 0)],
      ]),
      context(`Last call: ${c.lastCallDate ? slackDate(c.lastCallDate) : 'none yet'}`),
    );
  }
  if (blocks.length === 1) blocks.push(section('_No calls recorded yet._'));

  const top = (s.topCampaigns ?? []).slice(0, TOP_CAMPAIGNS_SHOWN);
  if (top.length > 0) {
    const lines = top.map(
      (t, i) => `${i + 1}. \`${escapeMrkdwn(t.campaignId ?? '?')}\` — ${groupDigits(t.calls ?? 0)} calls, ${percent(t.connectionRate)} connected`,
    );
    blocks.push(divider(), section(`*Top campaigns*\n${lines.join('\n')}`));
  }
  const e = s.elements;
  if (e) {
    blocks.push(
      divider(),
      context(
        `Agents: *${groupDigits(e.agents ?? 0)}*`,
        `Contacts: *${groupDigits(e.contacts ?? 0)}*`,
        `Knowledge files: *${groupDigits(e.knowledgeFiles ?? 0)}*`,
        `Actions: *${groupDigits(e.actions ?? 0)}*`,
      ),
    );
  }
  return message(`Campaign dashboard: ${groupDigits(totalCalls)} calls in total`, blocks);
}
