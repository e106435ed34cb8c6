/**
 * The seed moved to a given day: the default seed is written as of 8 March 2024, which tests rely on; the
 * playground moves it to today, so a person sees this month's quota, bookings of the last days and calls
 * scheduled for the next ones instead of dates two years old.
 */
import type { PlatformState } from './seed.js';

/** The moment the default seed describes (just after its last call). */
const SEED_NOW = Date.parse('2024-03-08T18:00:00.000Z');
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?Z$/;
const ETAG = /^W\/"datetime'([^']+)'"$/;

function shifted(value: unknown, by: number): unknown {
  if (typeof value === 'string') {
    if (ISO.test(value)) return new Date(Date.parse(value) + by).toISOString();
    const etag = ETAG.exec(value);
    if (etag?.[1] && ISO.test(decodeURIComponent(etag[1]))) {
      const ts = new Date(Date.parse(decodeURIComponent(etag[1])) + by).toISOString();
      return `W/"datetime'${encodeURIComponent(ts)}'"`;
    }
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => shifted(v, by));
  if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = shifted(v, by);
    return out;
  }
  return value;
}

const monthKey = (d: Date) => `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;

/**
 * Moves every date of `state` (in place) by the time between the seed's day and `today`; the quota rows become
 * last month's and this month's.
 */
export function moveSeedTo(state: PlatformState, today: Date): void {
  const by = today.getTime() - SEED_NOW;
  Object.assign(state, shifted(state, by));
  const rows = [...state.quota].sort((a, b) => a.CreatedAt.localeCompare(b.CreatedAt));
  rows.forEach((row, i) => {
    const start = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - (rows.length - 1 - i), 1));
    const key = monthKey(start);
    const stamp =
      i === rows.length - 1 ? today : new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
    row.RowKey = key;
    row.CreatedAt = start.toISOString();
    row.Timestamp = stamp.toISOString();
    row['odata.etag'] = `W/"datetime'${encodeURIComponent(row.Timestamp)}'"`;
  });
  state.quota = rows;
}
