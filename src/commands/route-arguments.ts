/**
 * The `<campaign|*> [events…] [filters…]` arguments of subscribe and unsubscribe. The campaign is its id, `*`,
 * or its name — several words when they make a known name (`subscribe spring promo call_completed`); otherwise
 * the first word is the campaign and the rest are events and filters, as always.
 */
import { isFilterWord, splitFilterWords } from '../events/filters.js';
import { parseEventNames } from '../events/subscription-text.js';
import type { Deps } from '../app/deps.js';
import { chooseCampaign, knownCampaigns, type CampaignTarget } from './campaign-ref.js';

export type RouteArguments<T extends string> =
  { ok: true; campaign: CampaignTarget; events: T[]; filterWords: string[] } | { ok: false; sentence: string };

/** `events` empty means "the default"; a bad event name, or a campaign name that fits several, gets the sentence. */
export async function parseRouteArguments<T extends string>(
  deps: Pick<Deps, 'store'>,
  teamId: string,
  args: readonly string[],
  valid: readonly T[],
): Promise<RouteArguments<T>> {
  const isEventWord = (w: string) => isFilterWord(w) || parseEventNames([w], valid).ok;
  const leading = args.findIndex((w, i) => i > 0 && isEventWord(w));
  const nameWords = leading < 0 ? [...args] : args.slice(0, leading);
  let campaignText = args[0] ?? '';
  let rest = args.slice(1);
  const known = await knownCampaigns(deps, teamId);
  if (nameWords.length > 1) {
    const asName = await chooseCampaign(deps, teamId, nameWords.join(' '), { known });
    // Several words count as one name only when they are a known one (or fit several: the pick list says so).
    if (asName.ok ? asName.target.by === 'name' : asName.reason === 'ambiguous') {
      if (!asName.ok) return asName;
      campaignText = nameWords.join(' ');
      rest = args.slice(nameWords.length);
    }
  }
  const split = splitFilterWords(rest);
  const names = parseEventNames(split.events, valid);
  if (!names.ok) return names;
  const choice = await chooseCampaign(deps, teamId, campaignText, { allowAll: true, known });
  if (!choice.ok) return choice;
  return { ok: true, campaign: choice.target, events: names.events, filterWords: split.filters };
}
