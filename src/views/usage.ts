/**
 * Usage renderers shared by `/campaign stats` and `quota`, App Home and digests: dashboard totals, the month's
 * quota with its usage bar. Millisecond fields are 64-bit integers the API client hands over as `bigint`.
 */
import type { DashboardStats, QuotaRow } from '../api/index.js';
import { groupDigits, hoursMinutes, percent, usageBar } from '../format/numbers.js';
import {
  context,
  dataTable,
  divider,
  escapeMrkdwn,
  fields,
  header,
  literal,
  message,
  section,
  slackDate,
  truncate,
  type KnownBlock,
  type MessagePayload,
  type TableCell,
} from '../slack/blocks.js';
import type { KnownBlock as SlackKnownBlock } from '@slack/types';

const CATEGORIES = ['Outbound', 'Inbound', 'Web'] as const;
const TOP_CAMPAIGNS_SHOWN = 10;
const EARLIER_MONTHS_SHOWN = 5;
const NO_NAMES: ReadonlyMap<string, string> = new Map();

/**
 * The dashboard as a message (`/campaign stats`): the top campaigns in a table people can sort. `names`:
 * campaign id → name, for the campaigns the bot knows (the dashboard sends ids only).
 */
export function renderStats(s: DashboardStats, names: ReadonlyMap<string, string> = new Map()): MessagePayload {
  const { blocks, totalCalls } = totalsBlocks(s);
  const top = (s.topCampaigns ?? []).slice(0, TOP_CAMPAIGNS_SHOWN);
  if (top.length > 0) {
    const rows = top.map((t): TableCell[] => [
      campaignCell(names, t.campaignId),
      { value: t.calls ?? 0, text: groupDigits(t.calls ?? 0) },
      t.connectionRate !== undefined ? { value: t.connectionRate, text: percent(t.connectionRate) } : '—',
    ]);
    blocks.push(divider(), dataTable('Top campaigns', ['Campaign', 'Calls', 'Connected'], rows));
  }
  blocks.push(...elementsBlocks(s));
  const leader =
    top[0] && ` · top: ${campaignCell(names, top[0].campaignId)} (${groupDigits(top[0].calls ?? 0)} calls)`;
  return message(`Campaign dashboard: ${groupDigits(totalCalls)} calls in total${leader ?? ''}`, blocks);
}

/** The dashboard in a modal (App Home's stats), where the top campaigns stay a mrkdwn list. */
export function renderStatsModal(s: DashboardStats): SlackKnownBlock[] {
  const { blocks } = totalsBlocks(s);
  const top = (s.topCampaigns ?? []).slice(0, TOP_CAMPAIGNS_SHOWN);
  if (top.length > 0) {
    const lines = top.map(
      (t, i) =>
        `${i + 1}. ${campaignLabel(NO_NAMES, t.campaignId)} — ${groupDigits(t.calls ?? 0)} calls, ${percent(t.connectionRate)} connected`,
    );
    blocks.push(divider(), section(`*Top campaigns*\n${lines.join('\n')}`));
  }
  return [...blocks, ...elementsBlocks(s)];
}

function totalsBlocks(s: DashboardStats): { blocks: SlackKnownBlock[]; totalCalls: number } {
  const blocks: SlackKnownBlock[] = [header('Campaign dashboard')];
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
  return { blocks, totalCalls };
}

function elementsBlocks(s: DashboardStats): SlackKnownBlock[] {
  const e = s.elements;
  if (!e) return [];
  return [
    divider(),
    context(
      `Agents: *${groupDigits(e.agents ?? 0)}*`,
      `Contacts: *${groupDigits(e.contacts ?? 0)}*`,
      `Knowledge files: *${groupDigits(e.knowledgeFiles ?? 0)}*`,
      `Actions: *${groupDigits(e.actions ?? 0)}*`,
    ),
  ];
}

/** A table cell is plain text: `Spring Recall (camp-1)`, or the id alone when the bot knows no name. */
function campaignCell(names: ReadonlyMap<string, string>, id: string | undefined): string {
  const name = id !== undefined ? names.get(id) : undefined;
  return name !== undefined ? `${truncate(name, 80)} (${id})` : (id ?? 'unknown campaign');
}

/** The allowance of a month in ms: the plan (when it is a number of ms) plus purchased and rollover time. */
export function allowanceMs(row: QuotaRow): { plan: bigint | undefined; total: bigint } {
  const plan =
    row.PlanQuota !== undefined && /^\d+$/.test(row.PlanQuota.trim()) ? BigInt(row.PlanQuota.trim()) : undefined;
  return { plan, total: (plan ?? 0n) + (row.PurchasedMs ?? 0n) + (row.RolloverMs ?? 0n) };
}

export function renderQuota(rows: readonly QuotaRow[]): MessagePayload {
  if (rows.length === 0)
    return message('No quota on record', [section('The platform has no usage quota on record for this account yet.')]);
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
    blocks.push(
      context(...earlier.map((r) => `${escapeMrkdwn(monthLabel(r))}: ${hoursMinutes(r.TotalUsageMs ?? 0n)} used`)),
    );
  }
  return message(
    `Quota ${escapeMrkdwn(monthLabel(current))}: ${hoursMinutes(used)} used of ${hoursMinutes(total)}`,
    blocks,
  );
}

function byMonthNewestFirst(rows: readonly QuotaRow[]): QuotaRow[] {
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

/** `Spring promo (`camp-1`)` when the name is known, else the id alone. */
function campaignLabel(names: ReadonlyMap<string, string>, campaignId: string | undefined): string {
  const id = `\`${escapeMrkdwn(campaignId ?? '?')}\``;
  const name = campaignId === undefined ? undefined : names.get(campaignId);
  return name === undefined ? id : `${literal(truncate(name, 80))} (${id})`;
}
