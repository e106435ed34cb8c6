/**
 * The rules that turn typed words into a known campaign or agent (src/commands/catalog-match.ts), one by one,
 * and the options a catalog menu answers (src/commands/catalog-select.ts).
 */
import { describe, expect, it } from 'vitest';
import { matchEntry, nearest } from '../../src/commands/catalog-match.js';
import { menuOptions } from '../../src/commands/catalog-select.js';
import type { CatalogEntry } from '../../src/store/index.js';

const spring: CatalogEntry = { id: 'camp-1', name: 'Spring Recall Reminders', seenAt: 3 };
const promo: CatalogEntry = { id: 'camp-7', name: 'Spring Promo', seenAt: 5 };
const desk: CatalogEntry = { id: 'camp-2', name: 'Front Desk Line', seenAt: 4 };
const bare: CatalogEntry = { id: 'camp-3', seenAt: 1 };
const known = [spring, promo, desk, bare];

const id = (m: ReturnType<typeof matchEntry>) => (m.kind === 'known' ? m.entry.id : m.kind);

describe('matchEntry', () => {
  it('takes a known id as typed, then in another letter case', () => {
    expect(matchEntry('camp-3', known)).toEqual({ kind: 'known', entry: bare, by: 'id' });
    expect(matchEntry('CAMP-2', known)).toEqual({ kind: 'known', entry: desk, by: 'id' });
  });

  it('takes a whole name in any case and spacing, before words of names', () => {
    expect(matchEntry('spring   PROMO', known)).toEqual({ kind: 'known', entry: promo, by: 'name' });
    expect(id(matchEntry('front desk line', known))).toBe('camp-2');
  });

  it('takes whole words of one name, in any order, then the starts of words', () => {
    expect(id(matchEntry('recall spring', known))).toBe('camp-1');
    expect(id(matchEntry('desk', known))).toBe('camp-2');
    expect(id(matchEntry('fr de', known))).toBe('camp-2');
    expect(id(matchEntry('pro', known))).toBe('camp-7');
  });

  it('lists every fitting campaign, most recently seen first, when several fit', () => {
    expect(matchEntry('spring', known)).toEqual({ kind: 'ambiguous', matches: [promo, spring] });
    expect(matchEntry('spr', known)).toEqual({ kind: 'ambiguous', matches: [promo, spring] });
  });

  it('needs two typed characters before matching the starts of words', () => {
    expect(id(matchEntry('f', known))).toBe('unknown');
  });

  it('takes anything else as an unseen id, with the known ids or names a few typos away', () => {
    // All four are one edit away: the three most recently seen.
    expect(matchEntry('camp-l', known)).toEqual({ kind: 'unknown', near: [promo, desk, spring] });
    expect(matchEntry('zzz-unknown', known)).toEqual({ kind: 'unknown', near: [] });
    expect(nearest('sprng promo', known)).toEqual([promo]);
  });
});

describe('menuOptions', () => {
  const label = (e: CatalogEntry) => (e.name ? `${e.name} (${e.id})` : e.id);
  const values = (typed: string) => menuOptions(typed, known, label).map((o) => o.value);

  it('lists every known one, most recently seen first, before anything is typed', () => {
    expect(values('')).toEqual(['camp-7', 'camp-2', 'camp-1', 'camp-3']);
  });

  it('puts the id itself first, then starts of ids and names, then the rest that contains it, then the typed text', () => {
    expect(values('camp-3')).toEqual(['camp-3']);
    expect(values('camp')).toEqual(['camp-7', 'camp-2', 'camp-1', 'camp-3', 'camp']);
    expect(values('rem')).toEqual(['camp-1', 'rem']);
    expect(values('promo')).toEqual(['camp-7', 'promo']);
    expect(values('ring')).toEqual(['camp-7', 'camp-1', 'ring']);
  });

  it('offers no typed text Slack could not take back (values are at most 150 characters)', () => {
    expect(values('x'.repeat(151))).toEqual([]);
  });
});
