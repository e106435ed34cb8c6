/**
 * The next digest slot in an IANA time zone: local wall-clock time kept across daylight-saving changes,
 * weekly on Mondays, and the skipped and doubled hours of a change night.
 */
import { describe, expect, it } from 'vitest';
import { isTimeZone, nextSlot, parseTimeOfDay } from '../../src/digests/index.js';

const at = (iso: string) => Date.parse(iso);
const daily = (time: string, timeZone: string) => ({ cadence: 'daily' as const, time, timeZone });

describe('nextSlot', () => {
  it('keeps 09:00 local in Berlin across the spring and autumn changes', () => {
    // CET (+1) until 31 March 2024 02:00, CEST (+2) until 27 October 03:00.
    expect(nextSlot(at('2024-03-30T09:00:00Z'), daily('09:00', 'Europe/Berlin'))).toBe(at('2024-03-31T07:00:00Z'));
    expect(nextSlot(at('2024-03-30T07:00:00Z'), daily('09:00', 'Europe/Berlin'))).toBe(at('2024-03-30T08:00:00Z'));
    expect(nextSlot(at('2024-10-26T08:00:00Z'), daily('09:00', 'Europe/Berlin'))).toBe(at('2024-10-27T08:00:00Z'));
  });

  it('moves a time skipped by the spring change past the gap, and takes the first of a doubled one', () => {
    // 02:30 does not exist in Berlin on 31 March 2024: 03:30 CEST instead.
    expect(nextSlot(at('2024-03-30T12:00:00Z'), daily('02:30', 'Europe/Berlin'))).toBe(at('2024-03-31T01:30:00Z'));
    // 02:30 happens twice on 27 October 2024: the first (CEST) one, and the day after at CET.
    const first = nextSlot(at('2024-10-26T12:00:00Z'), daily('02:30', 'Europe/Berlin'));
    expect(first).toBe(at('2024-10-27T00:30:00Z'));
    expect(nextSlot(first, daily('02:30', 'Europe/Berlin'))).toBe(at('2024-10-28T01:30:00Z'));
  });

  it('goes out weekly on Mondays, a slot exactly now being the next week’s', () => {
    const weekly = { cadence: 'weekly' as const, time: '08:00', timeZone: 'America/New_York' };
    // Wednesday 6 March 2024 → Monday 11 March, 08:00 EDT (DST began on the 10th).
    expect(nextSlot(at('2024-03-06T12:00:00Z'), weekly)).toBe(at('2024-03-11T12:00:00Z'));
    expect(nextSlot(at('2024-03-11T12:00:00Z'), weekly)).toBe(at('2024-03-18T12:00:00Z'));
  });

  it('handles zones east of UTC where the local date is already tomorrow', () => {
    // 2024-03-08T20:00Z is already Saturday 09:00 in Auckland (+13).
    expect(nextSlot(at('2024-03-08T19:59:00Z'), daily('09:00', 'Pacific/Auckland'))).toBe(at('2024-03-08T20:00:00Z'));
    expect(nextSlot(at('2024-03-08T20:00:00Z'), daily('09:00', 'Pacific/Auckland'))).toBe(at('2024-03-09T20:00:00Z'));
  });
});

describe('digest options', () => {
  it('knows IANA zones and 24-hour times only', () => {
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('America/Argentina/Buenos_Aires')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('../etc')).toBe(false);
    expect(parseTimeOfDay('9:05')?.text).toBe('09:05');
    expect(parseTimeOfDay('24:00')).toBeUndefined();
    expect(parseTimeOfDay('9am')).toBeUndefined();
  });
});
