/**
 * The digest's charts, drawn by Slack from blocks in the card itself
 * (https://docs.slack.dev/reference/block-kit/blocks/data-visualization-block): calls per day over the last 7
 * whole days against the 7 days before, and the period's calls by outcome. The figures are checked first: a
 * day above any plausible figure (a platform total that jumped by 1e308, say) is a gap, not a bar, so no
 * input can make Slack refuse the card; the block constructors keep every label and count within Slack's limits.
 */
import { axisChart, pieChart, type DataVisualizationBlock } from '../slack/blocks.js';
import { groupDigits } from '../format/numbers.js';
import type { DigestFigures } from '../store/index.js';
import { dayLabel, recentMidnights } from './clock.js';
import { dailyFigures, type Tally } from './period.js';

/** The days a digest reads from the snapshots: this week's and the week before's. */
const WEEK = 7;
const DAYS_READ = 2 * WEEK;
/** No account makes ten million calls in a day: past it a figure is not believed. */
const MAX_CALLS_PER_DAY = 10_000_000;

/**
 * Calls per day in the snapshots' time zone, oldest first; `null` where the snapshots that bound the day are
 * missing or the figure is not believable. Plain JSON: a made digest waits in the outbox with it.
 */
export interface DailyCalls {
  timeZone: string;
  days: Array<{ label: string; calls: number | null }>;
}

/** The last 14 whole days' calls (today so far would be a short, misleading bar); undefined without any. */
export function dailyCalls(snapshots: readonly DigestFigures[], timeZone: string, now: number): DailyCalls | undefined {
  const days = dailyFigures(snapshots, recentMidnights(now, timeZone, DAYS_READ)).map((d) => ({
    label: dayLabel(d.start, timeZone),
    calls: d.calls !== null && Number.isFinite(d.calls) && d.calls <= MAX_CALLS_PER_DAY ? d.calls : null,
  }));
  return days.some((d) => d.calls !== null) ? { timeZone, days } : undefined;
}

/** Bars of the last 7 days, each beside the same weekday of the week before where that one has figures. */
export function callsPerDayChart(daily: DailyCalls): DataVisualizationBlock | undefined {
  const { recent, before } = weeks(daily);
  const series = [{ name: 'Last 7 days', values: recent.map((d) => d.calls) }];
  if (before.some((d) => d.calls !== null)) series.push({ name: 'Week before', values: before.map((d) => d.calls) });
  return axisChart(
    'bar',
    'Calls per day',
    { categories: recent.map((d) => d.label), xLabel: `Day (${daily.timeZone})`, yLabel: 'Calls' },
    series,
  );
}

/** The calls per day in words, for notifications and screen readers: `Mar 2: 12, Mar 3: no figure, …`. */
export function callsPerDayText(daily: DailyCalls): string {
  const { recent, before } = weeks(daily);
  const sum = (days: DailyCalls['days']) => days.reduce((s, d) => s + (d.calls ?? 0), 0);
  const list = recent.map((d) => `${d.label}: ${d.calls === null ? 'no figure' : groupDigits(d.calls)}`).join(', ');
  const against = before.some((d) => d.calls !== null) ? ` (week before: ${groupDigits(sum(before))})` : '';
  return `Calls per day, last 7 days (${daily.timeZone}), ${groupDigits(sum(recent))} in all${against}: ${list}.`;
}

function weeks(daily: DailyCalls): { recent: DailyCalls['days']; before: DailyCalls['days'] } {
  return { recent: daily.days.slice(-WEEK), before: daily.days.slice(-DAYS_READ, -WEEK) };
}

/**
 * The period's calls as a pie: booked, connected without a booking, not connected. Bookings are the
 * dashboard's (account-wide, chat included), so they count at most as many as were connected. Undefined when
 * the period has no calls, no connected figure, or a figure that went down (the platform corrected its totals).
 */
export function outcomesChart(period: Tally): DataVisualizationBlock | undefined {
  const { calls, connected, bookings } = period;
  if (calls <= 0 || calls > MAX_CALLS_PER_DAY * 31 || connected === undefined || connected < 0) return undefined;
  const reached = Math.min(connected, calls);
  const booked = Math.min(Math.max(bookings ?? 0, 0), reached);
  return pieChart('Calls in this period by outcome', [
    { label: 'Booked', value: booked },
    { label: 'Connected, unbooked', value: reached - booked },
    { label: 'Not connected', value: calls - reached },
  ]);
}
