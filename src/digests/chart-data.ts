/**
 * What a digest's chart shows, from the workspace's snapshots and the platform's quota rows: calls and the
 * connected share per day over the last 14 days (days in the snapshots' time zone; a day whose snapshots are
 * missing is a gap), and the hours used per month against the month's allowance. Also the chart's alt text.
 */
import type { QuotaRow } from '../api/index.js';
import type { DigestFigures } from '../store/index.js';
import { allowanceMs } from '../views/usage.js';
import { monthId } from './card.js';
import { dayLabel, recentMidnights } from './clock.js';
import { dailyFigures } from './period.js';

export const CHART_DAYS = 14;
const CHART_MONTHS = 12;
/**
 * Past these a figure is not believed (a platform total that jumped by 1e308, say) and is charted as a gap:
 * no account makes ten million calls in a day, or uses ten million hours in a month.
 */
const MAX_CALLS_PER_DAY = 10_000_000;
const MAX_HOURS_PER_MONTH = 10_000_000;

export interface ChartInput {
  /** IANA zone the days are counted in. */
  timeZone: string;
  days: Array<{ label: string; calls: number | null; rate: number | null }>;
  /** `null`: no believable figure (a gap). */
  months: Array<{ label: string; usedHours: number | null; allowanceHours: number | null }>;
}

export function chartInput(
  snapshots: readonly DigestFigures[],
  timeZone: string,
  now: number,
  quota: readonly QuotaRow[] | undefined,
): ChartInput {
  // The 14 whole days before today: today so far would show as a short, misleading bar.
  const midnights = recentMidnights(now, timeZone, CHART_DAYS);
  const days = dailyFigures(snapshots, midnights).map((d) => ({
    label: dayLabel(d.start, timeZone),
    calls: plausible(d.calls, MAX_CALLS_PER_DAY),
    rate: d.rate !== null && d.rate >= 0 && d.rate <= 1 ? d.rate : null,
  }));
  return { timeZone, days, months: monthsOf(quota ?? [], now) };
}

/** Whether the chart has anything to show. */
export function hasFigures(input: ChartInput): boolean {
  return input.days.some((d) => d.calls !== null) || input.months.length > 0;
}

/** One row per month (the newest row of a month wins), the last 12 months on record, oldest first. */
function monthsOf(rows: readonly QuotaRow[], now: number): ChartInput['months'] {
  const byMonth = new Map<string, QuotaRow>();
  for (const row of rows) {
    const id = monthId(row, now);
    const kept = byMonth.get(id);
    if (!kept || (row.Timestamp ?? '') > (kept.Timestamp ?? '')) byMonth.set(id, row);
  }
  return [...byMonth]
    .sort(([a], [b]) => a.localeCompare(b))
    .slice(-CHART_MONTHS)
    .map(([id, row]) => {
      const { total } = allowanceMs(row);
      return {
        label: monthLabel(id),
        usedHours: plausible(hours(row.TotalUsageMs ?? 0n), MAX_HOURS_PER_MONTH),
        allowanceHours: total > 0n ? plausible(hours(total), MAX_HOURS_PER_MONTH) : null,
      };
    });
}

/** The figure when it is finite and within ±`max`; otherwise null (a gap). */
function plausible(value: number | null, max: number): number | null {
  return value !== null && Number.isFinite(value) && Math.abs(value) <= max ? value : null;
}

/** Hours to the minute (the values may be beyond 2^53 ms: divided as bigint first). */
function hours(ms: bigint): number {
  return Number(ms / 60_000n) / 60;
}

function monthLabel(id: string): string {
  const [y, m] = id.split('-').map(Number);
  return new Date(Date.UTC(y ?? 1970, (m ?? 1) - 1, 1)).toLocaleString('en-US', {
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  });
}

/** What the chart shows, in words, for screen readers (Slack's alt text). */
export function chartAltText(input: ChartInput): string {
  const known = input.days.filter((d) => d.calls !== null);
  const first = input.days[0]?.label ?? '';
  const last = input.days.at(-1)?.label ?? '';
  const calls = known.reduce((s, d) => s + (d.calls ?? 0), 0);
  const parts = [
    known.length === 0
      ? `Calls per day, ${first} to ${last} (${input.timeZone}): no daily figures yet.`
      : `Calls per day, ${first} to ${last} (${input.timeZone}): ${calls} calls over the ${known.length} days with figures.`,
  ];
  const month = input.months.at(-1);
  if (month) {
    const of = month.allowanceHours !== null ? ` of ${Math.round(month.allowanceHours)} h` : '';
    const used = month.usedHours !== null ? `${Math.round(month.usedHours)} h` : 'no figure';
    parts.push(`Quota used per month: ${month.label} ${used}${of}.`);
  }
  return parts.join(' ');
}
