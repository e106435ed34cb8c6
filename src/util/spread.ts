/**
 * Periodic work of many workspaces spread over its period: each workspace gets a stable phase (from a hash of
 * its id), so thousands of workspaces checking every 15 minutes call the platform a few at a time, never all
 * in one tick — and keep their places across restarts, outages and replicas.
 */
import { createHash } from 'node:crypto';

/** `key`'s stable offset in [0, periodMs): the same on every replica and after every restart. */
export function phaseOf(key: string, periodMs: number): number {
  const hash = createHash('sha256').update(key).digest().readUInt32BE(0);
  return Math.floor((hash / 2 ** 32) * periodMs);
}

/** The first time after `after` that is `key`'s phase of a `periodMs` cycle: in (after, after + periodMs]. */
export function nextInCycle(after: number, periodMs: number, key: string): number {
  const phase = phaseOf(key, periodMs);
  return (Math.floor((after - phase) / periodMs) + 1) * periodMs + phase;
}
