/**
 * Number formatting for Slack text. Millisecond quantities from the platform can exceed 2^53, so the
 * duration helpers take `bigint` and never pass through `Number`.
 */

const MS_PER_MINUTE = 60_000n;

/** `123 h 45 min` from milliseconds (rounded down to the minute). */
export function hoursMinutes(ms: bigint): string {
  const negative = ms < 0n;
  const minutes = (negative ? -ms : ms) / MS_PER_MINUTE;
  const h = minutes / 60n;
  const m = minutes % 60n;
  const text = h > 0n ? `${groupDigits(h)} h ${m} min` : `${m} min`;
  return negative ? `−${text}` : text;
}

/** `mm:ss` (or `h:mm:ss`) from a call duration in milliseconds. */
export function clockDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  const total = Math.round(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mmss = `${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
  return h > 0 ? `${h}:${mmss}` : mmss;
}

/** 1234567 → "1,234,567" for bigint and integers alike. */
export function groupDigits(n: bigint | number): string {
  return n.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A rate the platform sends either as 0–1 or 0–100, shown as a percentage. */
export function percent(rate: number | undefined): string {
  if (rate === undefined || !Number.isFinite(rate)) return '—';
  const pct = rate <= 1 ? rate * 100 : rate;
  return `${pct.toFixed(pct < 10 ? 1 : 0)}%`;
}

/** A 20-cell bar for used/total (both bigint), plus the percentage; over 100% shows as full with the real figure. */
export function usageBar(used: bigint, total: bigint, cells = 20): string {
  if (total <= 0n) return '░'.repeat(cells) + ' no allowance';
  const permille = (used * 1000n) / total;
  const filled = Number(permille >= 1000n ? BigInt(cells) : (permille * BigInt(cells)) / 1000n);
  return `${'█'.repeat(filled)}${'░'.repeat(cells - filled)} ${(Number(permille) / 10).toFixed(1)}%`;
}
