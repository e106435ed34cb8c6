/**
 * `/campaign quota`: this month's usage in hours/minutes with a usage bar. Millisecond fields are
 * 64-bit integers in strings; the API client hands them over as `bigint` and they stay exact here.
 */
import type { QuotaRow } from '../api/index.js';
import { hoursMinutes, usageBar } from '../format/numbers.js';
import { context, escapeMrkdwn, fields, header, message, section, slackDate, type KnownBlock, type MessagePayload } from '../slack/blocks.js';
import type { Subcommand } from './types.js';

const EARLIER_MONTHS_SHOWN = 5;

export const quota: Subcommand = {
  name: 'quota',
  usage: 'quota',
  summary: 'minutes used this month against the plan',
  readOnly: true,
  args: { min: 0, max: 0 },
  async run(ctx) {
    const client = await ctx.deps.platform.clientFor(ctx.teamId);
    await ctx.reply(renderQuota(await client.quota.list()));
  },
};

/** The allowance of a month in ms: the plan (when it is a number of ms) plus purchased and rollover time. */
export function allowanceMs(row: QuotaRow): { plan: bigint | undefined; total: bigint } {
  const plan = row.PlanQuota !== undefined && /^\d+$/.test(row.PlanQuota.trim()) ? BigInt(row.PlanQuota.trim()) : undefined;
  return { plan, total: (plan ?? 0n) + (row.PurchasedMs ?? 0n) + (row.RolloverMs ?? 0n) };
}

export function renderQuota(rows: readonly QuotaRow[]): MessagePayload {
  if (rows.length === 0) return message('No quota on record', [section('The platform has no usage quota on record for this account yet.')]);
  const sorted = byMonthNewestFirst(rows);
  const current = sorted[0]!;
  const { plan, total } = allowanceMs(current);
  const used = current.TotalUsageMs ?? 0n;
  const left = total - used;
  const blocks: KnownBlock[] = [
    // A header is plain text: the month goes in as written; mrkdwn uses below escape it.
    header(`Usage quota — ${monthLabel(current)}`),
    section(`\`${usageBar(used, total)}\``),
    fields([
      ['Used', hoursMinutes(used)],
      [left >= 0n ? 'Left' : 'Over by', hoursMinutes(left >= 0n ? left : -left)],
      ['Plan', plan !== undefined ? hoursMinutes(plan) : escapeMrkdwn(current.PlanQuota ?? '—')],
      ['Purchased', hoursMinutes(current.PurchasedMs ?? 0n)],
      ['Rolled over', hoursMinutes(current.RolloverMs ?? 0n)],
      ['Updated', slackDate(current.Timestamp)],
    ]),
  ];
  const earlier = sorted.slice(1, 1 + EARLIER_MONTHS_SHOWN);
  if (earlier.length > 0) {
    blocks.push(context(...earlier.map((r) => `${escapeMrkdwn(monthLabel(r))}: ${hoursMinutes(r.TotalUsageMs ?? 0n)} used`)));
  }
  return message(`Quota ${escapeMrkdwn(monthLabel(current))}: ${hoursMinutes(used)} used of ${hoursMinutes(total)}`, blocks);
}

export function byMonthNewestFirst(rows: readonly QuotaRow[]): QuotaRow[] {
  return [...rows].sort((a, b) => monthKey(b).localeCompare(monthKey(a)));
}

/** This month's row: the newest one. */
export function latestMonth(rows: readonly QuotaRow[]): QuotaRow | undefined {
  return byMonthNewestFirst(rows)[0];
}

/** Rows are per month; the month is best read from CreatedAt, else RowKey, else Timestamp. */
function monthKey(r: QuotaRow): string {
  return r.CreatedAt ?? r.RowKey ?? r.Timestamp ?? '';
}

function monthLabel(r: QuotaRow): string {
  const t = Date.parse(monthKey(r));
  if (Number.isNaN(t)) return r.RowKey ?? 'this month';
  return new Date(t).toLocaleString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });
}
