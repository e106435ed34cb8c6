/**
 * The terms of `/campaign alert <campaignId|*> <filters…> above:<percent> [window:<duration>] [min:<calls>]
 * [notify:@…]`: the route filters say which calls count as matching (events/filters.ts); `above:`, `window:` and
 * `min:` a whole number of calls are the alert's own. `min:` with a unit (`min:90s`) stays the filter on a call's
 * duration.
 */
import { isFilterWord, parseDuration, parseFilters, splitFilterWords } from '../events/filters.js';
import { campaignIdProblem } from '../events/subscription-text.js';
import { escapeMrkdwn, truncate } from '../slack/blocks.js';
import type { RouteFilters } from '../store/index.js';

export const ALERT_USAGE =
  'alert <campaignId|*> <filters…> above:<percent> [window:<duration>] [min:<calls>] [notify:@person|@group]';
const DEFAULT_WINDOW_MS = 15 * 60_000;
const DEFAULT_MIN_CALLS = 10;
const MIN_WINDOW_MS = 60_000;
const MAX_WINDOW_MS = 24 * 3_600_000;
const MAX_MIN_CALLS = 100_000;

export interface AlertTerms {
  campaignId: string;
  filters: RouteFilters;
  abovePercent: number;
  windowMs: number;
  minCalls: number;
  notify: string[];
  /** The name Slack gave each of `notify`'s ids (how the confirmation names them without a mention). */
  notifyNames: Record<string, string>;
}

export type ParsedTerms = { ok: true; terms: AlertTerms } | { ok: false; sentence: string };

const EXAMPLE = '`/campaign alert camp-1 status:failed above:50 window:15m min:10 notify:@sales`';

export function parseAlertTerms(args: readonly string[]): ParsedTerms {
  const [campaignId = '', ...rest] = args;
  if (isFilterWord(campaignId))
    return fail(`The campaign id (or \`*\`) comes first, then the filters and the threshold, e.g. ${EXAMPLE}.`);
  const badId = campaignIdProblem(campaignId);
  if (badId) return fail(badId);
  const split = splitFilterWords(rest);
  const stray = split.events.filter((w) => w.toLowerCase() !== 'call_completed');
  if (stray.length > 0)
    return fail(
      `I didn’t understand ${shown(stray[0]!)}: an alert takes filters (\`status:\`, \`reason:\`, \`summary:\`…) and \`above:&lt;percent&gt;\`, e.g. ${EXAMPLE}.`,
    );

  let abovePercent: number | undefined;
  let windowMs = DEFAULT_WINDOW_MS;
  let minCalls = DEFAULT_MIN_CALLS;
  const filterWords: string[] = [];
  for (const word of split.filters) {
    const colon = word.indexOf(':');
    const name = word.slice(0, colon).toLowerCase();
    const value = word.slice(colon + 1).trim();
    if (name === 'above') {
      const m = /^(\d{1,3}(?:\.\d{1,2})?)\s*%?$/.exec(value);
      const n = m ? Number(m[1]) : NaN;
      if (!(n > 0 && n <= 100))
        return fail(`\`above:\` takes a percentage from 1 to 100, e.g. \`above:50\`, not ${shown(value)}.`);
      abovePercent = n;
    } else if (name === 'window') {
      const ms = parseDuration(value);
      if (ms === undefined || ms < MIN_WINDOW_MS || ms > MAX_WINDOW_MS)
        return fail(
          `\`window:\` takes a duration from \`1m\` to \`24h\`, e.g. \`window:15m\` or \`window:1h\`, not ${shown(value)}.`,
        );
      windowMs = ms;
    } else if (name === 'min' && /^\d+$/.test(value)) {
      const n = Number(value);
      if (n < 1 || n > MAX_MIN_CALLS)
        return fail(`\`min:\` (calls in the window) takes a whole number from 1 to ${MAX_MIN_CALLS}, e.g. \`min:10\`.`);
      minCalls = n;
    } else if (name === 'compact' || name === 'cards') {
      return fail(
        `\`${name}:\` is an option of \`/campaign subscribe\` (how cards are posted); an alert has no cards.`,
      );
    } else if (name === 'customers') {
      return fail('`customers:` is an option of `/campaign subscribe`; an alert counts calls and names no customer.');
    } else filterWords.push(word);
  }
  if (abovePercent === undefined)
    return fail(`Say from which share of calls the alert opens with \`above:&lt;percent&gt;\`, e.g. ${EXAMPLE}.`);
  const parsed = parseFilters(filterWords);
  if (!parsed.ok) {
    const aboutMin = parsed.sentence.startsWith('`min:`');
    return fail(
      `${parsed.sentence}${aboutMin ? ' (For the least calls in the window, give a whole number: `min:10`.)' : ''}`,
    );
  }
  const { notify = [], notifyNames = {}, ...filters } = parsed.filters ?? {};
  if (Object.keys(filters).length === 0)
    return fail(
      `Say which calls the alert counts as matching with a filter, e.g. \`status:failed\` or \`reason:no-answer\`: ${EXAMPLE}.`,
    );
  return { ok: true, terms: { campaignId, filters, abovePercent, windowMs, minCalls, notify, notifyNames } };
}

function fail(sentence: string): ParsedTerms {
  return { ok: false, sentence: `${sentence} Nothing was changed.` };
}

function shown(text: string): string {
  return `\`${escapeMrkdwn(truncate(text.replace(/`/g, ''), 40))}\``;
}
