/**
 * A digest's figures for its period. The dashboard only has lifetime totals, so the bot keeps snapshots of
 * them (at each digest and daily) and a period's calls, connection rate and bookings are the differences
 * between the snapshot at the period's start and now. Pure functions over `DigestFigures`.
 */
import type { CategoryStats, DashboardStats } from '../api/index.js';
import { CALL_CATEGORIES, type DigestFigures, type DigestSchedule } from '../store/index.js';

const MINUTE_MS = 60_000;
/** A snapshot is a baseline only when taken at least this long before the digest (not the one just taken). */
const MIN_PERIOD_MS = MINUTE_MS;
/** A day's figures need snapshots this close to the midnights that bound it (the daily one fires at midnight). */
const BOUNDARY_SLACK_MS = 2 * 60 * MINUTE_MS;

/** Figures summed over the call categories; `connected` / `bookings` undefined when a category lacks them. */
export interface Tally {
  calls: number;
  durationMs: number;
  connected: number | undefined;
  bookings: number | undefined;
}

/** The figures to keep: per category calls, talk time, connected calls (rate × calls) and bookings made. */
export function figuresOf(stats: DashboardStats, at: number): DigestFigures {
  const totals: DigestFigures['totals'] = {};
  for (const name of CALL_CATEGORIES) {
    const c: CategoryStats | undefined = stats.totals?.[name];
    if (!c) continue;
    const calls = c.calls ?? 0;
    const rate = fraction(c.connectionRate);
    totals[name] = {
      calls,
      durationMs: c.durationMs ?? 0,
      ...(rate !== undefined ? { connected: Math.round(rate * calls) } : {}),
      ...(c.bookingsMade !== undefined ? { bookings: c.bookingsMade } : {}),
    };
  }
  return { at, totals };
}

/** A rate the platform sends as 0–1 or 0–100, as 0–1. */
function fraction(rate: number | undefined): number | undefined {
  if (rate === undefined || !Number.isFinite(rate) || rate < 0) return undefined;
  return rate <= 1 ? rate : Math.min(rate / 100, 1);
}

/** One category's figures (or all categories' summed, without `name`). */
export function tally(f: DigestFigures, name?: (typeof CALL_CATEGORIES)[number]): Tally | undefined {
  const names = name ? [name] : CALL_CATEGORIES;
  const rows = names.flatMap((n) => (f.totals[n] ? [f.totals[n]] : []));
  if (rows.length === 0) return undefined;
  const sum = (pick: (r: (typeof rows)[number]) => number | undefined): number | undefined =>
    rows.every((r) => pick(r) !== undefined) ? rows.reduce((s, r) => s + (pick(r) ?? 0), 0) : undefined;
  return {
    calls: sum((r) => r.calls) ?? 0,
    durationMs: sum((r) => r.durationMs) ?? 0,
    connected: sum((r) => r.connected),
    bookings: sum((r) => r.bookings),
  };
}

/** What changed from `before` to `now` (a category new since then counts from zero). */
export function change(now: Tally, before: Tally | undefined): Tally {
  const b = before ?? { calls: 0, durationMs: 0, connected: 0, bookings: 0 };
  const minus = (x: number | undefined, y: number | undefined) =>
    x === undefined || y === undefined ? undefined : x - y;
  return {
    calls: now.calls - b.calls,
    durationMs: now.durationMs - b.durationMs,
    connected: minus(now.connected, b.connected),
    bookings: minus(now.bookings, b.bookings),
  };
}

/** Connected share of the calls (0–1); undefined without calls or without the figure. */
export function connectionRate(t: Tally): number | undefined {
  if (t.connected === undefined || t.calls <= 0) return undefined;
  return Math.min(Math.max(t.connected / t.calls, 0), 1);
}

/**
 * The baseline of a channel's first digest: the workspace's snapshot closest to one period ago, taken at most
 * half a period earlier than that and at least a minute before now; undefined when there is none.
 */
export function pickBaseline(
  snapshots: readonly DigestFigures[],
  now: number,
  periodMs: number,
): DigestFigures | undefined {
  const target = now - periodMs;
  let best: DigestFigures | undefined;
  for (const s of snapshots) {
    if (s.at < target - periodMs / 2 || s.at > now - MIN_PERIOD_MS) continue;
    if (!best || Math.abs(s.at - target) < Math.abs(best.at - target)) best = s;
  }
  return best;
}

export interface DayFigures {
  /** The local midnight the day starts at (epoch ms). */
  start: number;
  /** Calls of the day and the share connected; null where the snapshots that bound the day are missing. */
  calls: number | null;
  rate: number | null;
}

/**
 * Per day between consecutive `midnights`: the change between the snapshots nearest each midnight (within
 * `BOUNDARY_SLACK_MS`). A day whose snapshots are missing, or whose totals went down, has no figures.
 */
export function dailyFigures(snapshots: readonly DigestFigures[], midnights: readonly number[]): DayFigures[] {
  const at = midnights.map((m) => nearest(snapshots, m));
  const days: DayFigures[] = [];
  for (let i = 0; i + 1 < midnights.length; i++) {
    const [a, b] = [at[i], at[i + 1]];
    const from = a ? tally(a) : undefined;
    const to = b ? tally(b) : undefined;
    const d = from && to ? change(to, from) : undefined;
    const valid = d !== undefined && d.calls >= 0;
    days.push({
      start: midnights[i]!,
      calls: valid ? d.calls : null,
      rate: valid ? (connectionRate(d) ?? null) : null,
    });
  }
  return days;
}

function nearest(snapshots: readonly DigestFigures[], at: number): DigestFigures | undefined {
  let best: DigestFigures | undefined;
  for (const s of snapshots) {
    if (Math.abs(s.at - at) > BOUNDARY_SLACK_MS) continue;
    if (!best || Math.abs(s.at - at) < Math.abs(best.at - at)) best = s;
  }
  return best;
}

/**
 * The time zone of a workspace's daily snapshots (and so of its chart's days): the one most of its digests
 * use (the alphabetically first of a tie), else UTC.
 */
export function snapshotZone(schedules: ReadonlyArray<Pick<DigestSchedule, 'timeZone'>>): string {
  const counts = new Map<string, number>();
  for (const s of schedules) counts.set(s.timeZone, (counts.get(s.timeZone) ?? 0) + 1);
  let zone = 'UTC';
  let most = 0;
  for (const [z, n] of [...counts].sort(([a], [b]) => a.localeCompare(b))) {
    if (n > most) [zone, most] = [z, n];
  }
  return zone;
}
