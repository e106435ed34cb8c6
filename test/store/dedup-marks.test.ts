import { describe, expect, it } from 'vitest';
import { DedupMarks } from '../../src/store/dedup-marks.js';

const HOUR = 3_600_000;

describe('DedupMarks (the in-process queue’s dedup marks)', () => {
  it('marks a key once per team until it expires, then marks it again', () => {
    const marks = new DedupMarks();
    const t0 = 1_700_000_000_000;
    expect(marks.markOnce('T1', 'call_completed:c-1', t0, t0 + HOUR)).toBe(true);
    expect(marks.markOnce('T1', 'call_completed:c-1', t0 + 1, t0 + HOUR)).toBe(false);
    expect(marks.holds('T1', 'call_completed:c-1', t0 + HOUR - 1)).toBe(true);
    // Another team's copy of the key is its own.
    expect(marks.markOnce('T2', 'call_completed:c-1', t0 + 1, t0 + HOUR)).toBe(true);
    expect(marks.holds('T1', 'call_completed:c-2', t0)).toBe(false);
    // Expired: a new copy is not a duplicate, and is marked anew.
    expect(marks.holds('T1', 'call_completed:c-1', t0 + HOUR)).toBe(false);
    expect(marks.markOnce('T1', 'call_completed:c-1', t0 + HOUR, t0 + 3 * HOUR)).toBe(true);
    expect(marks.markOnce('T1', 'call_completed:c-1', t0 + 2 * HOUR, t0 + 4 * HOUR)).toBe(false);
  });

  it('keeps every live mark through the table’s growth, and lets the expired ones go', () => {
    const marks = new DedupMarks();
    const t0 = 1_700_000_000_000;
    // 50k marks that expire early, then 50k that last: the table grows several times on the way.
    for (let i = 0; i < 50_000; i++) expect(marks.markOnce('T1', `early-${i}`, t0, t0 + HOUR)).toBe(true);
    for (let i = 0; i < 50_000; i++) expect(marks.markOnce('T1', `late-${i}`, t0, t0 + 48 * HOUR)).toBe(true);
    expect(marks.size(t0)).toBe(100_000);
    for (let i = 0; i < 50_000; i += 7) expect(marks.holds('T1', `early-${i}`, t0)).toBe(true);

    // An hour on, the early marks are gone; new ones take their slots and the late ones all still hold.
    const t1 = t0 + HOUR;
    expect(marks.size(t1)).toBe(50_000);
    for (let i = 0; i < 60_000; i++) expect(marks.markOnce('T1', `next-${i}`, t1, t1 + HOUR)).toBe(true);
    for (let i = 0; i < 50_000; i++) expect(marks.markOnce('T1', `late-${i}`, t1, t1 + HOUR)).toBe(false);
    for (let i = 0; i < 50_000; i += 7) expect(marks.markOnce('T1', `early-${i}`, t1, t1 + HOUR)).toBe(true);
    expect(marks.size(t1)).toBe(50_000 + 60_000 + Math.ceil(50_000 / 7));
  });
});
