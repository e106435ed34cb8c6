/**
 * Arguments and wording shared by `/campaign subscribe`, `unsubscribe`, `subscriptions` and `sample`.
 */
import { escapeMrkdwn, truncate } from '../slack/blocks.js';
import { ALL_CAMPAIGNS, type RouteFilters } from '../store/index.js';
import { describeFilters } from './filters.js';
import { namesOf } from './mentions.js';

/** Campaign ids are path segments upstream; anything longer than this is not one. */
const MAX_CAMPAIGN_ID = 200;

export type EventNames<T extends string> = { ok: true; events: T[] } | { ok: false; sentence: string };

/**
 * Event names from the command words (spaces or commas between them), each once, in the order given.
 * An empty list means "the default". Unknown names get the list of valid ones.
 */
export function parseEventNames<T extends string>(words: readonly string[], valid: readonly T[]): EventNames<T> {
  const names = words
    .flatMap((w) => w.split(','))
    .map((w) => w.trim().toLowerCase())
    .filter(Boolean);
  const unknown = names.filter((n) => !(valid as readonly string[]).includes(n));
  if (unknown.length > 0) {
    const shown = unknown
      .slice(0, 3)
      .map((n) => `\`${escapeMrkdwn(truncate(n.replace(/`/g, ''), 40))}\``)
      .join(', ');
    return {
      ok: false,
      sentence: `Unknown event${unknown.length > 1 ? 's' : ''} ${shown}. Valid events: ${valid.map((v) => `\`${v}\``).join(', ')}.`,
    };
  }
  return { ok: true, events: [...new Set(names)] as T[] };
}

/** Undefined when fine, else the sentence to tell. */
export function campaignIdProblem(campaignId: string): string | undefined {
  if (campaignId.length > MAX_CAMPAIGN_ID)
    return `That campaign id is too long (at most ${MAX_CAMPAIGN_ID} characters).`;
  return undefined;
}

/** `campaign \`camp-1\`` or `every campaign (\`*\`)`. */
export function campaignPhrase(campaignId: string): string {
  return campaignId === ALL_CAMPAIGNS
    ? 'every campaign (`*`)'
    : `campaign \`${escapeMrkdwn(campaignId.replace(/`/g, ''))}\``;
}

/** `\`call_started\`, \`call_completed\`` */
export function eventList(events: readonly string[]): string {
  return events.map((e) => `\`${escapeMrkdwn(e)}\``).join(', ');
}

/**
 * `\`call_completed\`` or `\`call_completed\` (only \`status:failed\`; mentioning \`@sales\`)`: an event of a
 * route, with its filters and who its posts mention — named, never mentioned: a listing pages nobody.
 */
export function routeLabel(triggerName: string, filters: RouteFilters | undefined): string {
  const only = describeFilters(filters);
  const who = namesOf(filters?.notify, filters?.notifyNames);
  const notes = [only ? `only ${only}` : '', who ? `mentioning ${who}` : ''].filter(Boolean).join('; ');
  return `\`${escapeMrkdwn(triggerName)}\`${notes ? ` (${notes})` : ''}`;
}

/** Events with their filters, comma-separated. */
export function routeList(routes: ReadonlyArray<{ triggerName: string; filters?: RouteFilters | undefined }>): string {
  return routes.map((r) => routeLabel(r.triggerName, r.filters)).join(', ');
}
