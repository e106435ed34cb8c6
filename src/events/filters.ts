/**
 * Route filters (docs/PRODUCT.md › Route filters): `status:a,b`, `reason:…`, `type:…`, `agent:…`, `summary:…`,
 * `min:90s`, `max:5m` after the events of `/campaign subscribe` (and of `/campaign alert`), and the route options
 * `compact:off`, `cards:full`, `notify:@…` and `customers:full`. Parsed here for the commands, matched here for the router.
 *
 * Which events they judge (docs/PLATFORM-API.md › Payload fields):
 * - `type` (campaignType) and `agent` (agentId) are on every event; an event without the field does not match.
 * - `status`, `reason` (endedReason), `summary` (callSummary), `min`, `max` (the call's duration) exist only once a call has ended, on
 *   call_completed; a call_completed without the field does not match. call_started never matches them (its
 *   outcome is not known yet), and chat messages ignore them: a chat has no status, summary nor duration.
 */
import { canonicalFilters, type RouteFilters } from '../store/index.js';
import { escapeMrkdwn, truncate } from '../slack/blocks.js';
import type { KnownEvent } from './events.js';
import { callDurationMs } from './render/call-completed.js';
import { parseMentions } from './mentions.js';

type WordField = 'status' | 'reason' | 'type' | 'agent' | 'summary';
type Field = WordField | 'min' | 'max';

const FIELDS: readonly Field[] = ['status', 'reason', 'type', 'agent', 'summary', 'min', 'max'];
/**
 * The filter a typed name means (the spec's own field names are accepted too). A Map, not an object: a name
 * typed by a user must never find an inherited property (`constructor:x` would find `Object`).
 */
const FIELD_NAMES: ReadonlyMap<string, Field> = new Map<string, Field>([
  ...FIELDS.map((f): [string, Field] => [f, f]),
  ['endedreason', 'reason'],
  ['campaigntype', 'type'],
  ['agentid', 'agent'],
  ['callsummary', 'summary'],
]);
const CALL_ONLY_WORDS: readonly WordField[] = ['status', 'reason', 'summary'];

const VALUE = /^[\p{L}\p{N}._+@#/-]{1,100}$/u;
const MAX_VALUES = 20;
const MAX_DURATION_MS = 24 * 3_600_000;

/** The grammar, as told after a mistake (and in help). */
const FILTER_GRAMMAR =
  'Filters: `status:&lt;a,b&gt;`, `reason:&lt;endedReason,…&gt;`, `type:&lt;campaignType,…&gt;`, `agent:&lt;agentId,…&gt;`, `summary:&lt;word,words-of-a-phrase,…&gt;`, `min:&lt;duration&gt;`, `max:&lt;duration&gt;` (durations like `90s`, `5m`, `1m30s`, `1h`), e.g. `status:failed,busy min:90s`; options `compact:off` (never roll calls up), `cards:full` (each call as the full card rather than one short section), `notify:@person,@group` (mention them in the posts) and `customers:full` (customer details in full where guests or other organisations read along).';

export type ParsedFilters = { ok: true; filters: RouteFilters | undefined } | { ok: false; sentence: string };

/** A word of the command that is a filter (`field:value`), not an event name. */
export function isFilterWord(word: string): boolean {
  return word.includes(':');
}

/**
 * Splits command words into event words and filter words. `status:a, b` (a space after a comma or colon)
 * is read as `status:a,b`.
 */
export function splitFilterWords(words: readonly string[]): { events: string[]; filters: string[] } {
  const events: string[] = [];
  const filters: string[] = [];
  for (const word of words) {
    const last = filters.at(-1);
    // A mention whose name holds a space (`<@U1|Ada Lee>`) was split by the command's spaces: joined again.
    if (last !== undefined && last.lastIndexOf('<') > last.lastIndexOf('>'))
      filters[filters.length - 1] = `${last} ${word}`;
    else if (last !== undefined && /[:,]$/.test(last) && !isFilterWord(word))
      filters[filters.length - 1] = `${last}${word}`;
    else if (isFilterWord(word)) filters.push(word);
    else events.push(word);
  }
  return { events, filters };
}

/** Filter words → filters (undefined: none given), or the sentence saying what is wrong and what is valid. */
export function parseFilters(words: readonly string[]): ParsedFilters {
  const filters: RouteFilters = {};
  for (const word of words) {
    const colon = word.indexOf(':');
    const name = word.slice(0, colon).toLowerCase();
    if (name === 'compact') {
      // A route option, not a filter: whether the channel's calls may be rolled up when it falls behind.
      const value = word.slice(colon + 1).toLowerCase();
      if (value !== 'off' && value !== 'on') {
        return {
          ok: false,
          sentence: `\`compact:\` takes \`off\` (never roll calls up) or \`on\` (the default), not ${shown(value)}.`,
        };
      }
      if (value === 'off') filters.compact = false;
      else delete filters.compact;
      continue;
    }
    if (name === 'cards') {
      // A route option: a call as one short section with its details a click away (the default), or the full card.
      const value = word.slice(colon + 1).toLowerCase();
      if (value !== 'short' && value !== 'full') {
        return {
          ok: false,
          sentence: `\`cards:\` takes \`short\` (a call as one section, its details a click away — the default) or \`full\` (every field on the card), not ${shown(value)}.`,
        };
      }
      if (value === 'full') filters.cards = 'full';
      else delete filters.cards;
      continue;
    }
    if (name === 'customers') {
      // A route option: customers shown in full in a channel with guests or another organisation in it.
      const value = word.slice(colon + 1).toLowerCase();
      if (value !== 'full' && value !== 'masked') {
        return {
          ok: false,
          sentence: `\`customers:\` takes \`full\` (customer details in full for everyone in the channel) or \`masked\` (the default where guests or other organisations read along), not ${shown(value)}.`,
        };
      }
      if (value === 'full') filters.customers = 'full';
      else delete filters.customers;
      continue;
    }
    if (name === 'notify') {
      // A route option too: who the posts of the route mention.
      const mentioned = parseMentions(word.slice(colon + 1), filters.notify ?? []);
      if (!mentioned.ok) return mentioned;
      filters.notify = mentioned.ids;
      filters.notifyNames = { ...filters.notifyNames, ...mentioned.names };
      continue;
    }
    const field = FIELD_NAMES.get(name);
    const raw = word.slice(colon + 1);
    if (field === undefined) return { ok: false, sentence: `Unknown filter ${shown(name || word)}. ${FILTER_GRAMMAR}` };
    if (field === 'min' || field === 'max') {
      const ms = parseDuration(raw);
      if (ms === undefined) {
        return {
          ok: false,
          sentence: `\`${field}:\` takes a duration like \`90s\`, \`5m\`, \`1m30s\` or \`1h\` (at most 24h), not ${shown(raw)}.`,
        };
      }
      const key = field === 'min' ? 'minMs' : 'maxMs';
      if (filters[key] !== undefined) return { ok: false, sentence: `\`${field}:\` is given twice — keep one.` };
      filters[key] = ms;
      continue;
    }
    const values = raw
      .split(',')
      .map((v) => v.trim().toLowerCase())
      .filter(Boolean);
    const bad = values.find((v) => !VALUE.test(v));
    if (values.length === 0 || bad !== undefined || values.length > MAX_VALUES) {
      const what =
        values.length > MAX_VALUES
          ? `at most ${MAX_VALUES} of them`
          : bad !== undefined
            ? `${shown(bad)} is not one`
            : 'none was given';
      return {
        ok: false,
        sentence: `\`${field}:\` takes one or more ${valueName(field)} separated by commas (letters, digits and \`. _ - + @ # /\`), e.g. \`${field}:${example(field)}\`; ${what}. ${FILTER_GRAMMAR}`,
      };
    }
    filters[field] = [...(filters[field] ?? []), ...values];
  }
  if (filters.minMs !== undefined && filters.maxMs !== undefined && filters.minMs > filters.maxMs) {
    return {
      ok: false,
      sentence: `\`min:${formatDuration(filters.minMs)}\` is longer than \`max:${formatDuration(filters.maxMs)}\`: no call would match.`,
    };
  }
  return { ok: true, filters: canonicalFilters(filters) };
}

/** Whether the filters judge what only an ended call has (status, ended reason, summary, duration). */
export function hasCallOnlyFilters(filters: RouteFilters | undefined): boolean {
  if (!filters) return false;
  return (
    CALL_ONLY_WORDS.some((f) => filters[f] !== undefined) || filters.minMs !== undefined || filters.maxMs !== undefined
  );
}

/** The filters a route of this event keeps: chat events drop the call-only ones (they ignore them). */
export function filtersForEvent(triggerName: string, filters: RouteFilters | undefined): RouteFilters | undefined {
  if (!filters || !triggerName.startsWith('message_')) return filters;
  return canonicalFilters({
    ...(filters.type ? { type: filters.type } : {}),
    ...(filters.agent ? { agent: filters.agent } : {}),
    ...(filters.customers ? { customers: filters.customers } : {}),
  });
}

export function sameFilters(a: RouteFilters | undefined, b: RouteFilters | undefined): boolean {
  return JSON.stringify(canonicalFilters(a) ?? null) === JSON.stringify(canonicalFilters(b) ?? null);
}

/** Whether an event passes a route's filters (none: every event does). Words compare case-insensitively. */
export function matchesFilters(filters: RouteFilters | undefined, event: KnownEvent): boolean {
  if (!filters) return true;
  // Its payload is undocumented: a field it does not carry cannot rule it out.
  const missing = event.trigger === 'message_session_completed';
  const word = (allowed: readonly string[] | undefined, value: string | undefined) =>
    allowed === undefined ||
    (value === undefined || value.trim() === '' ? missing : allowed.some((a) => sameWord(a, value)));
  if (!word(filters.type, event.data.campaignType) || !word(filters.agent, event.data.agentId)) return false;
  if (!hasCallOnlyFilters(filters)) return true;
  if (event.trigger !== 'call_completed') return event.trigger !== 'call_started';
  const data = event.data;
  if (!word(filters.status, data.status) || !word(filters.reason, data.endedReason)) return false;
  if (filters.summary && summaryMatches(filters.summary, data.callSummary).length === 0) return false;
  if (filters.minMs === undefined && filters.maxMs === undefined) return true;
  const ms = callDurationMs(data);
  if (ms === undefined) return false;
  return (filters.minMs === undefined || ms >= filters.minMs) && (filters.maxMs === undefined || ms <= filters.maxMs);
}

/**
 * Case-insensitive, and `-`, `_` and spaces count as one separator: the platform's values are undocumented
 * (docs/PLATFORM-API.md › Payload fields), so `no_answer` finds `no-answer` and `No answer`.
 */
function sameWord(a: string, b: string): boolean {
  const norm = (v: string) =>
    v
      .trim()
      .toLowerCase()
      .replace(/[\s_-]+/g, '-');
  return norm(a) === norm(b);
}

/**
 * The `summary:` values found in a call's summary: whole words, case-insensitive; a value's words (joined by
 * `-` or `_`) must stand in that order next to each other, whatever punctuation or spaces separate them — so
 * `booked-a-demo` finds "Booked a demo!", and `interested` finds "very interested" but not "uninterested".
 */
export function summaryMatches(wanted: readonly string[], summary: string | undefined): string[] {
  if (!summary?.trim()) return [];
  const text = ` ${wordsOf(summary).join(' ')} `;
  return wanted.filter((w) => {
    const phrase = wordsOf(w).join(' ');
    return phrase !== '' && text.includes(` ${phrase} `);
  });
}

function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** The filters as the user would type them, each a code span: `` `status:busy,failed` `min:1m30s` ``. */
export function describeFilters(filters: RouteFilters | undefined): string {
  const f = canonicalFilters(filters);
  if (!f) return '';
  const parts: string[] = [];
  for (const field of ['status', 'reason', 'type', 'agent', 'summary'] as const) {
    const values = f[field];
    if (values) parts.push(`${field}:${values.join(',')}`);
  }
  if (f.minMs !== undefined) parts.push(`min:${formatDuration(f.minMs)}`);
  if (f.maxMs !== undefined) parts.push(`max:${formatDuration(f.maxMs)}`);
  if (f.compact === false) parts.push('compact:off');
  if (f.cards === 'full') parts.push('cards:full');
  if (f.customers === 'full') parts.push('customers:full');
  return parts.map((p) => `\`${escapeMrkdwn(p.replace(/`/g, ''))}\``).join(' ');
}

/** `90s`, `5m`, `1m30s`, `1h`, `2.5m` → ms; undefined when it is not a duration. */
export function parseDuration(text: string): number | undefined {
  const m = /^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s)?$/i.exec(text.trim());
  if (!m || (m[1] === undefined && m[2] === undefined && m[3] === undefined)) return undefined;
  const ms = Math.round(Number(m[1] ?? 0) * 3_600_000 + Number(m[2] ?? 0) * 60_000 + Number(m[3] ?? 0) * 1000);
  return ms <= MAX_DURATION_MS ? ms : undefined;
}

/** ms → `1h`, `5m`, `1m30s`, `2.5s`: the shortest form `parseDuration` reads back. */
export function formatDuration(ms: number): string {
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  const text = `${h > 0 ? `${h}h` : ''}${m > 0 ? `${m}m` : ''}${s > 0 ? `${Number(s.toFixed(3))}s` : ''}`;
  return text || '0s';
}

function valueName(field: WordField): string {
  return {
    status: 'call statuses',
    reason: 'ended reasons',
    type: 'campaign types',
    agent: 'agent ids',
    summary: 'words or phrases (a phrase’s words joined by `-`)',
  }[field];
}

function example(field: WordField): string {
  return {
    status: 'failed,busy',
    reason: 'customer-ended-call',
    type: 'outbound,inbound',
    agent: 'agent-7',
    summary: 'interested,booked-a-demo',
  }[field];
}

function shown(text: string): string {
  return `\`${escapeMrkdwn(truncate(text.replace(/`/g, ''), 40))}\``;
}
