/**
 * Periodic work spread over its period: 10,000 workspaces checking every 15 minutes get due times across the
 * whole period (each its own, the same every time it is computed), and each then fires once per period.
 */
import { describe, expect, it } from 'vitest';
import { nextInCycle, phaseOf } from '../../src/util/spread.js';

const PERIOD_MS = 15 * 60_000;
const NOW = Date.parse('2024-03-08T12:00:00Z');
const teams = Array.from({ length: 10_000 }, (_, i) => `T${String(i).padStart(8, '0')}`);

describe('spreading a period over workspaces', () => {
  it('gives 10,000 workspaces due times across the whole period, the same every time', () => {
    const due = teams.map((team) => nextInCycle(NOW, PERIOD_MS, team));
    for (const at of due) {
      expect(at).toBeGreaterThan(NOW);
      expect(at).toBeLessThanOrEqual(NOW + PERIOD_MS);
    }
    expect(teams.map((team) => nextInCycle(NOW, PERIOD_MS, team))).toEqual(due);
    // Per minute of the period: about 667 each (10,000 / 15), never a crowd, never an empty minute.
    const perMinute = new Array<number>(15).fill(0);
    for (const at of due) perMinute[Math.floor((at - NOW - 1) / 60_000)]! += 1;
    for (const count of perMinute) {
      expect(count).toBeGreaterThan(560);
      expect(count).toBeLessThan(780);
    }
    // Where all fired together (an outage's end): most distinct instants, not one.
    expect(new Set(due).size).toBeGreaterThan(9_000);
  });

  it('fires each workspace once per period at its own phase, whenever its timer last fired', () => {
    for (const team of teams.slice(0, 100)) {
      const phase = phaseOf(team, PERIOD_MS);
      expect(phase).toBeGreaterThanOrEqual(0);
      expect(phase).toBeLessThan(PERIOD_MS);
      const first = nextInCycle(NOW, PERIOD_MS, team);
      expect((first - phase) % PERIOD_MS).toBe(0);
      // Fired on time, or late (a tick later, after an outage): the next is one period on, at the same phase.
      expect(nextInCycle(first, PERIOD_MS, team)).toBe(first + PERIOD_MS);
      expect(nextInCycle(first + 15_000, PERIOD_MS, team)).toBe(first + PERIOD_MS);
      expect(nextInCycle(first + 3 * PERIOD_MS + 1, PERIOD_MS, team)).toBe(first + 4 * PERIOD_MS);
    }
  });
});
