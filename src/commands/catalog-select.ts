/**
 * Menus in forms that offer the campaigns and phone numbers the bot has seen, and still take any text: the
 * options answer lists the known ones that fit what was typed, then the typed text itself ("Use “…” as
 * typed"), so an id the bot has not seen yet can still be chosen. Slack's menus accept only options the app
 * served, and the app may serve any option it likes for the typed text (`block_suggestion` carries it as
 * `value`): https://docs.slack.dev/reference/block-kit/block-elements/select-menu-element#external_select.
 *
 * A field is served by its block id, whatever form it is in: use `CAMPAIGN_FIELD` / `NUMBER_FIELD` as block ids.
 */
import type { App } from '@slack/bolt';
import type { PlainTextOption } from '@slack/types';
import type { Deps } from '../app/deps.js';
import { plain } from '../slack/blocks.js';
import type { CatalogEntry } from '../store/index.js';
import { knownCampaigns } from './campaign-ref.js';

/** Block id of a campaign menu. */
export const CAMPAIGN_FIELD = 'catalog_campaign';
/** Block id of a phone number menu. */
export const NUMBER_FIELD = 'catalog_number';

/** Slack shows at most 100 options; one place is kept for the typed text. */
const MAX_OPTIONS = 100;
/** Option values are at most 150 characters (Slack's limit); longer text cannot be offered. */
const MAX_VALUE = 150;
const MAX_TEXT = 75;

/** Registers the options answers of the catalog menus (any form may use them). */
export function registerCatalogMenus(app: App, deps: Deps): void {
  const serve = (blockId: string, load: (teamId: string) => Promise<CatalogEntry[]>, label: Label) => {
    app.options<'block_suggestion'>({ type: 'block_suggestion', block_id: blockId }, async ({ ack, body }) => {
      const teamId = body.team?.id ?? body.user.team_id ?? '';
      let known: CatalogEntry[] = [];
      try {
        known = await load(teamId);
      } catch (err) {
        // The menu still offers what was typed: the form works without the catalog.
        deps.logger.warn({ err, team: teamId, blockId }, 'could not read the catalog for a menu');
      }
      await ack({ options: menuOptions(body.value, known, label) });
    });
  };
  serve(CAMPAIGN_FIELD, (teamId) => knownCampaigns(deps, teamId), campaignLabel);
  serve(NUMBER_FIELD, (teamId) => deps.store.catalog.list(teamId, 'numbers'), numberLabel);
}

type Label = (e: CatalogEntry) => string;

function campaignLabel(e: CatalogEntry): string {
  return e.name !== undefined ? `${e.name} (${e.id})` : e.id;
}

function numberLabel(e: CatalogEntry): string {
  return e.campaignId !== undefined ? `${e.id} → ${e.campaignId}` : e.id;
}

/**
 * The known entries that fit `typed` (all of them when nothing is typed), best first: the id itself, then ids
 * and names that start with it, then those containing it anywhere; most recently seen first within each. Then
 * the typed text as an option of its own, unless a known id is exactly it.
 */
export function menuOptions(typed: string, known: readonly CatalogEntry[], label: Label): PlainTextOption[] {
  const q = typed.replace(/\s+/g, ' ').trim();
  const lower = q.toLowerCase();
  const rank = (e: CatalogEntry): number => {
    if (q === '') return 0;
    const id = e.id.toLowerCase();
    const name = e.name?.toLowerCase() ?? '';
    if (id === lower) return 0;
    if (id.startsWith(lower) || name.startsWith(lower) || name.split(/\s+/).some((w) => w.startsWith(lower))) return 1;
    if (id.includes(lower) || name.includes(lower)) return 2;
    return -1;
  };
  const fitting = known
    .filter((e) => e.id.length <= MAX_VALUE)
    .map((e) => ({ e, rank: rank(e) }))
    .filter(({ rank: r }) => r >= 0)
    .sort((a, b) => a.rank - b.rank || b.e.seenAt - a.e.seenAt);
  const echo = q !== '' && q.length <= MAX_VALUE && !known.some((e) => e.id === q);
  const options = fitting.slice(0, MAX_OPTIONS - (echo ? 1 : 0)).map(({ e }) => option(label(e), e.id));
  if (echo) options.push(option(`Use “${q}” as typed`, q));
  return options;
}

function option(text: string, value: string): PlainTextOption {
  return { text: plain(text, MAX_TEXT), value };
}
