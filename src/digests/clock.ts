/**
 * Wall-clock time in an IANA time zone, from `Intl.DateTimeFormat` alone: when the next `HH:MM` falls there
 * (daily, or weekly on Mondays), correct across daylight-saving changes. A local time skipped by a spring
 * change (02:30 on that night) moves to the same distance past the gap; one that happens twice takes the first.
 */
import type { DigestCadence } from '../store/index.js';

const DAY_MS = 86_400_000;
/** Weekly digests go out on Mondays (ISO weekday 1): the week just ended, at the start of the new one. */
const WEEKLY_WEEKDAY = 1;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** Whether `Intl` knows the zone (`Europe/Berlin`, `America/New_York`, `UTC`…). */
export function isTimeZone(name: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/.test(name)) return false;
  try {
    formatterFor(name);
    return true;
  } catch {
    return false;
  }
}

/** `HH:MM` (24 h, `9:05` accepted) → minutes after midnight; undefined when it is no time of day. */
export function parseTimeOfDay(text: string): { hour: number; minute: number; text: string } | undefined {
  const m = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(text);
  if (!m) return undefined;
  const hour = Number(m[1]);
  const minute = Number(m[2]);
  return { hour, minute, text: `${String(hour).padStart(2, '0')}:${m[2]}` };
}

interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** ISO weekday: Monday 1 … Sunday 7. */
  weekday: number;
}

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

function localParts(at: number, timeZone: string): LocalParts {
  const parts: Record<string, string> = {};
  for (const p of formatterFor(timeZone).formatToParts(new Date(at))) parts[p.type] = p.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: WEEKDAYS.indexOf(parts.weekday ?? '') + 1,
  };
}

/** How far the zone's wall clock is ahead of UTC at `at` (ms). */
function offsetAt(at: number, timeZone: string): number {
  const p = localParts(at, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - Math.floor(at / 1000) * 1000;
}

/** The instant a local date and time happen in the zone (see the header for skipped and doubled times). */
function instantOf(
  date: { year: number; month: number; day: number },
  time: { hour: number; minute: number },
  timeZone: string,
): number {
  const wall = Date.UTC(date.year, date.month - 1, date.day, time.hour, time.minute);
  // The offset just before and just after the wall time brackets any change that night.
  const before = offsetAt(wall - DAY_MS / 2, timeZone);
  const after = offsetAt(wall + DAY_MS / 2, timeZone);
  const first = wall - before;
  if (offsetAt(first, timeZone) === before) return first; // valid with the earlier offset (also the first of two)
  const second = wall - after;
  if (offsetAt(second, timeZone) === after) return second;
  // Skipped by a spring change: as far past the gap as the time was into it.
  return first;
}

/** The first slot of the schedule strictly after `after` (epoch ms). */
export function nextSlot(after: number, schedule: { cadence: DigestCadence; time: string; timeZone: string }): number {
  const time = parseTimeOfDay(schedule.time);
  if (!time) throw new Error(`not a time of day: ${schedule.time}`);
  const today = localParts(after, schedule.timeZone);
  // Walk local calendar days (UTC date arithmetic on the local date: no offsets involved).
  for (let i = 0; i <= 8; i++) {
    const d = new Date(Date.UTC(today.year, today.month - 1, today.day + i));
    const date = { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
    const weekday = ((d.getUTCDay() + 6) % 7) + 1;
    if (schedule.cadence === 'weekly' && weekday !== WEEKLY_WEEKDAY) continue;
    const at = instantOf(date, time, schedule.timeZone);
    if (at > after) return at;
  }
  throw new Error('no slot within eight days');
}

/** How long one period of the cadence is, for the first digest (which has no previous one to start from). */
export function periodMs(cadence: DigestCadence): number {
  return cadence === 'weekly' ? 7 * DAY_MS : DAY_MS;
}

/** The last `days` + 1 local midnights in the zone up to `now`, oldest first (the last one starts today). */
export function recentMidnights(now: number, timeZone: string, days: number): number[] {
  const midnight = { cadence: 'daily' as const, time: '00:00', timeZone };
  const out: number[] = [];
  for (let at = nextSlot(now - (days + 2) * DAY_MS, midnight); at <= now; at = nextSlot(at, midnight)) out.push(at);
  return out.slice(-(days + 1));
}

/** `Fri, Mar 8`: an instant's local date in the zone, for chart axes (the weekday lines up the week before). */
export function dayLabel(at: number, timeZone: string): string {
  return new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short', month: 'short', day: 'numeric' }).format(
    new Date(at),
  );
}
