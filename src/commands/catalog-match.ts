/**
 * What a typed word means among the campaigns (or agents) the bot knows: an id, a name, several names, or
 * nothing known. The rules, in order — the first that finds something decides:
 *
 * 1. a known id, exactly as typed; then a known id in other letter case (`CAMP-1` is `camp-1`);
 * 2. a known name, whole, ignoring letter case and repeated spaces (`spring recall reminders`);
 * 3. every typed word is a whole word of the name (`spring`, `recall spring` for "Spring Recall Reminders");
 * 4. every typed word starts a word of the name (`spr rem`) — at least 2 characters typed.
 *
 * Several matches at one step are a pick list, most recently seen first. Nothing known: the text is taken as
 * an id the bot has not seen yet (the platform decides), with the known ids or names within a few typos of it.
 */
import type { CatalogEntry } from '../store/index.js';

export type Match =
  | { kind: 'known'; entry: CatalogEntry; by: 'id' | 'name' }
  | { kind: 'ambiguous'; matches: CatalogEntry[] }
  | { kind: 'unknown'; near: CatalogEntry[] };

/** How many near ones a "did you mean" names. */
const MAX_NEAR = 3;

export function matchEntry(query: string, entries: readonly CatalogEntry[]): Match {
  const q = query.trim();
  const exact = entries.find((e) => e.id === q);
  if (exact) return { kind: 'known', entry: exact, by: 'id' };
  const lower = q.toLowerCase();
  const byId = decide(
    entries.filter((e) => e.id.toLowerCase() === lower),
    'id',
  );
  if (byId) return byId;
  const text = normal(q);
  const byName = decide(
    entries.filter((e) => e.name !== undefined && normal(e.name) === text),
    'name',
  );
  if (byName) return byName;
  const typed = words(q);
  if (typed.length > 0) {
    const named = entries.filter((e) => e.name !== undefined).map((e) => ({ e, words: words(e.name ?? '') }));
    const whole = decide(
      named.filter(({ words: w }) => typed.every((t) => w.includes(t))).map(({ e }) => e),
      'name',
    );
    if (whole) return whole;
    if (typed.join('').length >= 2) {
      const prefixed = decide(
        named.filter(({ words: w }) => typed.every((t) => w.some((x) => x.startsWith(t)))).map(({ e }) => e),
        'name',
      );
      if (prefixed) return prefixed;
    }
  }
  return { kind: 'unknown', near: nearest(q, entries) };
}

/** The known entries whose id or name is within a few typos of `query` (closest first). */
export function nearest(query: string, entries: readonly CatalogEntry[]): CatalogEntry[] {
  const q = normal(query);
  if (q === '') return [];
  const scored = entries.flatMap((e) => {
    const candidates = [e.id.toLowerCase(), ...(e.name !== undefined ? [normal(e.name)] : [])];
    const best = Math.min(...candidates.map((c) => (typos(q, c) <= typoBudget(c) ? typos(q, c) : Infinity)));
    return best === Infinity ? [] : [{ e, best }];
  });
  return scored
    .sort((a, b) => a.best - b.best || b.e.seenAt - a.e.seenAt)
    .slice(0, MAX_NEAR)
    .map(({ e }) => e);
}

/** Edits a typo of `target` may differ by: 1 for short words, up to 3 for long ones. */
export function typoBudget(target: string): number {
  return Math.max(1, Math.min(3, Math.floor(target.length / 3)));
}

/**
 * How many typos apart two words are: letters added, dropped, changed, or two neighbours swapped (`stast` is one
 * from `stats`) — the optimal-string-alignment Damerau–Levenshtein distance.
 */
export function typos(a: string, b: string): number {
  // d[i][j]: typos between a's first i letters and b's first j.
  const d = [...Array<number>(a.length + 1)].map((_, i) => [...Array<number>(b.length + 1)].map((_, j) => i || j));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const swapped = i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1];
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (swapped) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  return d[a.length]![b.length]!;
}

function decide(matches: CatalogEntry[], by: 'id' | 'name'): Match | undefined {
  if (matches.length === 0) return undefined;
  if (matches.length === 1) return { kind: 'known', entry: matches[0]!, by };
  return { kind: 'ambiguous', matches: [...matches].sort((a, b) => b.seenAt - a.seenAt) };
}

function normal(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

function words(text: string): string[] {
  return normal(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}
