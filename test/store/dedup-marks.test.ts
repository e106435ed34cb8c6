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

  it('keeps at most its bound of marks, dropping the oldest first, and lets the expired ones go', () => {
    const marks = new DedupMarks(1_000);
    const t0 = 1_700_000_000_000;
    for (let i = 0; i < 1_500; i++) expect(marks.markOnce('T1', `e-${i}`, t0, t0 + HOUR)).toBe(true);
    expect(marks.size(t0)).toBe(1_000);
    // The 500 oldest were dropped: a copy of one of them is queued again; the newer ones still hold.
    expect(marks.holds('T1', 'e-499', t0)).toBe(false);
    for (let i = 500; i < 1_500; i += 7) expect(marks.holds('T1', `e-${i}`, t0)).toBe(true);
    // An hour on, all have expired and go as new marks come.
    const t1 = t0 + HOUR;
    expect(marks.markOnce('T1', 'e-1499', t1, t1 + HOUR)).toBe(true);
    expect(marks.size(t1)).toBe(1);
  });
});
