/**
 * The digest card and the quota-alert card (Block Kit, within Slack's limits). Platform text (campaign ids,
 * failure reasons, plan names) is escaped; dates use Slack's date formatting, so each reader sees local time.
 */
import type { QuotaRow } from '../api/index.js';
import { groupDigits, hoursMinutes, percent, usageBar } from '../format/numbers.js';
import { ALL_CAMPAIGNS, CALL_CATEGORIES, type DigestCadence, type DigestFigures } from '../store/index.js';
import {
  context,
  divider,
  escapeMrkdwn,
  fields,
  header,
  message,
  section,
  slackDate,
  truncate,
  type KnownBlock,
  type MessagePayload,
} from '../slack/blocks.js';
import { allowanceMs, latestMonth } from '../views/usage.js';
import type { CustomerView } from '../app/customer-view.js';
import { MAX_BOOKING_CAMPAIGNS, type Baseline, type BookingTally, type DigestData } from './figures.js';
import { change, connectionRate, figuresOf, tally, type Tally } from './period.js';
import { callsPerDayChart, callsPerDayText, outcomesChart, type DailyCalls } from './charts.js';

const DAY_MS = 86_400_000;
const FAILURES_SHOWN = 5;

/** `Daily digest`, `Weekly digest`, or `Campaign digest` for one posted on demand without a schedule. */
function digestTitle(cadence: DigestCadence | undefined): string {
  return `${cadence === 'weekly' ? 'Weekly' : cadence === 'daily' ? 'Daily' : 'Campaign'} digest`;
}

/**
 * `view`: how the channel may see customers (the failed bookings name them); `daily`: the calls per day the
 * card charts, when the snapshots have any.
 */
export function renderDigest(
  d: DigestData,
  cadence: DigestCadence | undefined,
  view: CustomerView,
  daily?: DailyCalls,
): MessagePayload {
  const title = digestTitle(cadence);
  const what =
    d.campaignId === ALL_CAMPAIGNS ? 'every campaign' : `campaign \`${escapeMrkdwn(d.campaignId.replace(/`/g, ''))}\``;
  const blocks: KnownBlock[] = [
    header(title),
    context(`${what} · ${slackDate(new Date(d.since).toISOString())} → ${slackDate(new Date(d.until).toISOString())}`),
  ];
  if (
    !d.stats.ok &&
    !d.quota.ok &&
    !d.bookings.ok &&
    d.stats.problem === d.quota.problem &&
    d.quota.problem === d.bookings.problem
  ) {
    blocks.push(section(`⚠️ This digest could not be made: ${d.stats.problem}`));
    return message(truncate(`${title} could not be made: ${d.stats.problem}`, 300), blocks);
  }

  let summary = '';
  if (!d.stats.ok)
    blocks.push(section('*Calls*'), context(`Call figures are unavailable right now: ${d.stats.problem}`));
  else {
    const calls = callBlocks(figuresOf(d.stats.value, d.until), d.baseline);
    const charts = [daily && callsPerDayChart(daily), calls.period && outcomesChart(calls.period)];
    blocks.push(...calls.blocks, ...charts.filter((c) => c !== undefined));
    summary = [calls.summary, ...(daily ? [callsPerDayText(daily)] : [])].filter(Boolean).join('. ');
  }
  blocks.push(divider(), section('*Bookings in this period*'));
  if (!d.bookings.ok) blocks.push(context(`Bookings are unavailable right now: ${d.bookings.problem}`));
  else blocks.push(...bookingBlocks(d.bookings.value, d.campaignId, view));

  blocks.push(divider(), section('*Quota this month*'));
  if (!d.quota.ok) blocks.push(context(`Usage is unavailable right now: ${d.quota.problem}`));
  else {
    const row = latestMonth(d.quota.value);
    if (!row) blocks.push(context('The platform has no usage quota on record yet.'));
    else blocks.push(...quotaBlocks(row, d.until));
  }

  // The figures in words: what notifications show, and what a screen reader reads for the charts.
  return message(`${title} for ${what}${summary ? `: ${summary}` : ''}`, blocks);
}

/**
 * The period's calls, connection rate, bookings and talk time (all categories, then each), each with the
 * lifetime total beside it; without a baseline, the totals alone under a plain "no baseline yet".
 */
function callBlocks(
  now: DigestFigures,
  baseline: Baseline | undefined,
): { blocks: KnownBlock[]; summary: string; period?: Tally } {
  const all = tally(now);
  const categories = CALL_CATEGORIES.flatMap((name) => {
    const t = tally(now, name);
    return t ? [{ name, now: t }] : [];
  });
  if (!all || categories.length === 0)
    return { blocks: [section('*Calls*'), context('No calls recorded yet.')], summary: '' };
  const scope = 'Call figures are account-wide.';
  if (!baseline) {
    return {
      blocks: [
        section(
          '*Calls:* no baseline yet. This is the first digest here and the bot has no earlier snapshot of the totals, so it cannot tell this period’s calls from earlier ones: the next digest shows the period’s figures. The totals so far:',
        ),
        fields(categories.map(({ name, now: t }) => [name, totalsLines(t)])),
        context(scope),
      ],
      summary: `no baseline yet, ${groupDigits(all.calls)} calls in total`,
    };
  }
  const base = baseline.figures;
  const period = change(all, tally(base));
  const rate = connectionRate(period);
  // Bookings stay in the fields: the section below counts the campaign's own, which may differ.
  const headline = [
    `*${counted(period.calls, 'call')}* in this period`,
    ...(rate !== undefined ? [`${percent(rate)} connected`] : []),
  ];
  const since = slackDate(new Date(base.at).toISOString());
  const from = baseline.kind === 'previous' ? `the previous digest (${since})` : `the snapshot of ${since}`;
  return {
    blocks: [
      section(headline.join(' · ')),
      fields(categories.map(({ name, now: t }) => [name, periodLines(change(t, tally(base, name)), t)])),
      context(`Changes since ${from}, totals beside. ${scope}`),
    ],
    summary: [...headline, ...(period.bookings !== undefined ? [counted(period.bookings, 'booking') + ' made'] : [])]
      .join(', ')
      .replace(/\*/g, ''),
    period,
  };
}

/** `16 calls (of 1,300)` / `56% connected (62% overall)` / `3 bookings (of 146)` / `12 min talk time (of 27 h 26 min)`. */
function periodLines(p: Tally, total: Tally): string {
  const lines = [`${counted(p.calls, 'call')} (of ${groupDigits(total.calls)})`];
  const rate = connectionRate(p);
  const overall = connectionRate(total);
  if (rate !== undefined || overall !== undefined)
    lines.push(
      `${rate !== undefined ? percent(rate) : '—'} connected (${overall !== undefined ? percent(overall) : '—'} overall)`,
    );
  if (p.bookings !== undefined && total.bookings !== undefined)
    lines.push(`${counted(p.bookings, 'booking')} (of ${groupDigits(total.bookings)})`);
  lines.push(
    `${hoursMinutes(BigInt(Math.trunc(p.durationMs)))} talk time (of ${hoursMinutes(BigInt(Math.trunc(total.durationMs)))})`,
  );
  return lines.join('\n');
}

function totalsLines(t: Tally): string {
  const rate = connectionRate(t);
  return [
    `${groupDigits(t.calls)} calls in total`,
    ...(rate !== undefined ? [`${percent(rate)} connected`] : []),
    ...(t.bookings !== undefined ? [`${groupDigits(t.bookings)} bookings made`] : []),
    `${hoursMinutes(BigInt(Math.trunc(t.durationMs)))} talk time`,
  ].join('\n');
}

/** `1 call`, `16 calls`; a count that went down (the platform's totals were corrected) shows its sign. */
function counted(n: number, noun: string): string {
  return `${n < 0 ? `−${groupDigits(-n)}` : groupDigits(n)} ${noun}${n === 1 ? '' : 's'}`;
}

function bookingBlocks(t: BookingTally, campaignId: string, view: CustomerView): KnownBlock[] {
  const blocks: KnownBlock[] = [];
  if (t.campaigns.length === 0 && t.unreadable.length === 0) {
    return [
      context(
        'No campaigns to count bookings for: route one to Slack with `/campaign subscribe &lt;campaignId&gt;`, or pick one with `/campaign digest daily &lt;campaignId&gt;`.',
      ),
    ];
  }
  const parts = [`✅ ${groupDigits(t.made)} made`, `❌ ${groupDigits(t.failed)} failed`];
  if (t.pending > 0) parts.push(`⏳ ${groupDigits(t.pending)} in progress`);
  blocks.push(section(parts.join('   ')));
  if (t.failures.length > 0) {
    const lines = t.failures.slice(0, FAILURES_SHOWN).map(({ campaignId: c, booking }) => {
      const b = view.fields(booking);
      const who = escapeMrkdwn(truncate(b.CustomerName ?? b.CustomerEmail ?? 'unknown customer', 80));
      const why = escapeMrkdwn(truncate(b.Reason ?? 'no reason given', 200));
      return `• ${who}${campaignId === ALL_CAMPAIGNS ? ` (\`${escapeMrkdwn(c)}\`)` : ''}: ${why}`;
    });
    if (t.failures.length > FAILURES_SHOWN)
      lines.push(`…and ${t.failures.length - FAILURES_SHOWN} more (\`/campaign bookings &lt;campaignId&gt;\`)`);
    blocks.push(section(lines.join('\n')));
  }
  const notes: string[] = [];
  if (campaignId === ALL_CAMPAIGNS) {
    const list = t.campaigns.map((c) => `\`${escapeMrkdwn(c)}\``).join(', ');
    notes.push(
      `Counted for the campaigns routed to Slack and the dashboard's top campaigns (at most ${MAX_BOOKING_CAMPAIGNS}): ${list || 'none'}.`,
    );
  }
  if (t.unreadable.length > 0)
    notes.push(`Could not read the bookings of ${t.unreadable.map((c) => `\`${escapeMrkdwn(c)}\``).join(', ')}.`);
  if (notes.length > 0) blocks.push(context(truncate(notes.join(' '), 2900)));
  return blocks;
}

/** The usage bar, and how long the allowance lasts at this month's rate so far. */
function quotaBlocks(row: QuotaRow, now: number): KnownBlock[] {
  const { total } = allowanceMs(row);
  const used = row.TotalUsageMs ?? 0n;
  return [
    section(`\`${usageBar(used, total)}\`\n${usageLine(row, used, total, now)}`),
    context(`Updated ${slackDate(row.Timestamp)}`),
  ];
}

function usageLine(row: QuotaRow, used: bigint, total: bigint, now: number): string {
  const rate = daysLeftText(row, used, total, now);
  return `${hoursMinutes(used)} used of ${hoursMinutes(total)}${rate ? ` · ${rate}` : ''}`;
}

/** How long the allowance lasts at this month's rate; undefined when the row's month is not the current one. */
function daysLeftText(row: QuotaRow, used: bigint, total: bigint, now: number): string | undefined {
  const left = total - used;
  if (left <= 0n) return total > 0n ? '*the allowance is used up*' : 'no allowance this month';
  const start = monthStart(row, now);
  const end = new Date(start);
  end.setUTCMonth(end.getUTCMonth() + 1);
  const daysToMonthEnd = (end.getTime() - now) / DAY_MS;
  if (daysToMonthEnd <= 0) return undefined;
  const elapsedDays = (now - start) / DAY_MS;
  if (used <= 0n || elapsedDays <= 0) return 'no usage yet this month';
  const perDay = Number(used) / elapsedDays;
  const days = Number(left) / perDay;
  if (days >= daysToMonthEnd) return 'lasts past the end of the month at the current rate';
  const [n, unit] = days >= 1 ? [Math.floor(days), 'day'] : [Math.floor(days * 24), 'hour'];
  return `${n < 1 ? '*less than an hour*' : `about *${n} ${unit}${n === 1 ? '' : 's'}*`} left at the current rate`;
}

/** The first instant of the row's month (UTC): from CreatedAt, else a `YYYY-MM` RowKey, else this month. */
function monthStart(row: QuotaRow, now: number): number {
  const id = monthId(row, now);
  const [y, m] = id.split('-').map(Number);
  return Date.UTC(y ?? 1970, (m ?? 1) - 1, 1);
}

/** `YYYY-MM` of a quota row (its month), for "once per month" marks. */
export function monthId(row: QuotaRow, now: number): string {
  for (const candidate of [row.CreatedAt, row.RowKey]) {
    const m = /^(\d{4})-(\d{2})/.exec(candidate ?? '');
    if (m) return `${m[1]}-${m[2]}`;
  }
  return new Date(now).toISOString().slice(0, 7);
}

/** The alert posted when usage crosses `threshold` % (the highest one crossed since the last check). */
export function renderQuotaAlert(
  row: QuotaRow,
  threshold: number,
  thresholds: readonly number[],
  now: number,
): MessagePayload {
  const { total } = allowanceMs(row);
  const used = row.TotalUsageMs ?? 0n;
  const icon = threshold >= 100 ? '🚨' : '⚠️';
  const headline = `${icon} Usage crossed ${threshold}% of this month's allowance`;
  return message(`${headline}: ${hoursMinutes(used)} used of ${hoursMinutes(total)}`, [
    section(`*${headline}*`),
    section(`\`${usageBar(used, total)}\`\n${usageLine(row, used, total, now)}`),
    context(`Alerts in this channel at ${thresholds.map((t) => `${t}%`).join(', ')} · details: \`/campaign quota\``),
  ]);
}

/** Percentage of the allowance used (Infinity when there is usage and no allowance). */
export function usedPercent(row: QuotaRow): number {
  const { total } = allowanceMs(row);
  const used = row.TotalUsageMs ?? 0n;
  if (total <= 0n) return used > 0n ? Infinity : 0;
  // Basis points in bigint first: the values may be beyond 2^53.
  return Number((used * 10_000n) / total) / 100;
}
