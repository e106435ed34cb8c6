/** The `<campaignId|*> [events…] [filters…]` arguments of subscribe and unsubscribe, checked before any I/O. */
import { splitFilterWords } from '../events/filters.js';
import { campaignIdProblem, parseEventNames } from '../events/subscription-text.js';

export type RouteArguments<T extends string> =
  { ok: true; campaignId: string; events: T[]; filterWords: string[] } | { ok: false; sentence: string };

/** `events` empty means "the default"; a bad event name or campaign id gets the sentence to tell. */
export function parseRouteArguments<T extends string>(args: readonly string[], valid: readonly T[]): RouteArguments<T> {
  const [campaignId = '', ...words] = args;
  const split = splitFilterWords(words);
  const names = parseEventNames(split.events, valid);
  if (!names.ok) return names;
  const badId = campaignIdProblem(campaignId);
  if (badId) return { ok: false, sentence: badId };
  return { ok: true, campaignId, events: names.events, filterWords: split.filters };
}
