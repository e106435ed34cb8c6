/**
 * Percentiles and formatting for the figures the benchmarks and fault tests print.
 */

/** Nearest-rank percentile (p in 0..100) of `values`; NaN for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

export function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}

/** One line a test or the bench prints so its figure ends up in the CI log: `[figure] name: value`. */
export function figure(name: string, value: string): void {
  console.log(`[figure] ${name}: ${value}`);
}
