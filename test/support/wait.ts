/**
 * How tests wait: on a condition, polled, or on event-loop turns — never for a fixed time, which passes on a
 * fast machine and fails on a slow one (eslint.config.js holds that for test/, the fault suite aside).
 */

import { until } from '../../bench/lib/net.js';

/** How often a condition is looked at: short, since what is waited for is the condition, not the time. */
const POLL_MS = 10;
/**
 * How long a condition may take before the test fails: a bound on a hang, not a wait (a pass returns as soon as it
 * holds). Generous, since the whole suite on a busy 2-core machine makes a second's work take several.
 */
export const WAIT_TIMEOUT_MS = 15_000;

type Falsy = undefined | null | false;

/** Polls `condition` until it holds; throws naming `what` after `timeoutMs`. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string | (() => string),
  timeoutMs = WAIT_TIMEOUT_MS,
): Promise<void> {
  await waitForValue(async () => (await condition()) || undefined, what, timeoutMs);
}

/** Polls `pick` until it returns something truthy, and returns that; throws naming `what` after `timeoutMs`. */
export function waitForValue<T>(
  pick: () => T | Falsy | Promise<T | Falsy>,
  what: string | (() => string),
  timeoutMs = WAIT_TIMEOUT_MS,
): Promise<T> {
  return until(pick, what, timeoutMs, POLL_MS);
}

/**
 * Lets the event loop turn `n` times (I/O and timers due run in between): a handler that takes a little while
 * without taking any particular time.
 */
export async function eventLoopTurns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}
