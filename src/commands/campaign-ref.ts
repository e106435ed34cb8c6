/**
 * A campaign as a person names it — its id, or its name as the bot has seen it (see `catalog-match.ts` for the
 * rules) — turned into the id the platform wants, and the sentences around it: the pick list when a name fits
 * several campaigns, "I don't know a campaign …" when an id is unknown to both the platform and the bot.
 *
 * The platform is the source of truth: an id the bot has not seen is still sent as typed. When the platform then
 * shows nothing of it (a 404, or an empty list from a read that answers one for any id), the answer never reads
 * as "nothing here" — which looks right and is wrong for a typo — but says the campaign is unknown, with the
 * known ones a few typos away, or how to find the id. One that the platform does show joins the catalog.
 */
import { NotFoundError } from '../api/index.js';
import type { Deps } from '../app/deps.js';
import { logFailure } from '../app/failure.js';
import type { Logger } from '../logger.js';
import type { CommandContext } from './types.js';
import { escapeMrkdwn, literal, truncate } from '../slack/blocks.js';
import { ALL_CAMPAIGNS, type CatalogEntry, type CatalogKind } from '../store/index.js';
import { campaignIdProblem } from '../events/subscription-text.js';
import { matchEntry } from './catalog-match.js';

export interface CampaignTarget {
  /** The id to send to the platform. */
  id: string;
  /** Its name, when the bot knows it. */
  name?: string;
  /** `id`/`name`: a campaign the bot knows, named so; `unseen`: an id the bot has not seen (yet). */
  by: 'id' | 'name' | 'unseen';
  /** For an unseen id: known campaigns a few typos away (closest first). */
  near: CatalogEntry[];
}

export type CampaignChoice =
  | { ok: true; target: CampaignTarget }
  /** `ambiguous`: a name several campaigns fit; `unknown-name`: words that are no known name; `invalid`: no id. */
  | { ok: false; reason: 'ambiguous' | 'unknown-name' | 'invalid'; sentence: string };

/** How many campaigns a pick list names before "and N more". */
const PICK_LIST_MAX = 5;

/** Every campaign the bot knows for the workspace: the catalog, and the campaigns its routes name. */
export async function knownCampaigns(deps: Pick<Deps, 'store'>, teamId: string): Promise<CatalogEntry[]> {
  const [catalog, routes] = await Promise.all([
    deps.store.catalog.list(teamId, 'campaigns'),
    deps.store.routes.listForTeam(teamId),
  ]);
  const ids = new Set(catalog.map((e) => e.id));
  const routed = [...new Set(routes.map((r) => r.campaignId))].filter((id) => id !== ALL_CAMPAIGNS && !ids.has(id));
  return [...catalog, ...routed.map((id) => ({ id, seenAt: 0 }))];
}

/**
 * The campaign `text` names. `allowAll`: `*` (every campaign) is accepted as itself; `known`: the campaigns to
 * look in, when the caller read them already. A name that fits several campaigns, or words that are no known
 * name, come back as the sentence to tell.
 */
export async function chooseCampaign(
  deps: Pick<Deps, 'store'>,
  teamId: string,
  text: string,
  opts: { allowAll?: boolean; known?: readonly CatalogEntry[] } = {},
): Promise<CampaignChoice> {
  const typed = text.replace(/\s+/g, ' ').trim();
  if (opts.allowAll && typed === ALL_CAMPAIGNS) return { ok: true, target: { id: ALL_CAMPAIGNS, by: 'id', near: [] } };
  if (typed === '') return { ok: false, reason: 'invalid', sentence: 'Name the campaign: its id, or its name.' };
  const tooLong = campaignIdProblem(typed);
  if (tooLong) return { ok: false, reason: 'invalid', sentence: tooLong };
  const match = matchEntry(typed, opts.known ?? (await knownCampaigns(deps, teamId)));
  switch (match.kind) {
    case 'known': {
      const { id, name } = match.entry;
      return { ok: true, target: { id, ...(name !== undefined ? { name } : {}), by: match.by, near: [] } };
    }
    case 'ambiguous':
      return { ok: false, reason: 'ambiguous', sentence: pickList(typed, match.matches, 'campaigns') };
    case 'unknown':
      // Ids are single words (platform path segments): several words were meant as a name.
      if (/\s/.test(typed)) {
        return {
          ok: false,
          reason: 'unknown-name',
          sentence: unknownCampaign(
            { id: typed, near: match.near },
            'use the campaign’s id, or its name as the platform’s events show it',
          ),
        };
      }
      return { ok: true, target: { id: typed, by: 'unseen', near: match.near } };
  }
}

export interface AgentTarget {
  id: string;
  name?: string;
  by: 'id' | 'name' | 'unseen';
  near: CatalogEntry[];
}

/**
 * The agent `text` names within `campaign` (its id, or its name among the agents the bot has seen in that
 * campaign's events). Like campaigns: several fitting names are a pick list, an unseen id goes to the platform.
 */
export async function chooseAgent(
  deps: Pick<Deps, 'store'>,
  teamId: string,
  campaignId: string,
  text: string,
): Promise<{ ok: true; target: AgentTarget } | { ok: false; sentence: string }> {
  const typed = text.replace(/\s+/g, ' ').trim();
  if (typed === '') return { ok: false, sentence: 'Name the agent: its id, or its name.' };
  if (typed.length > 200) return { ok: false, sentence: 'That agent id is too long (at most 200 characters).' };
  const all = await deps.store.catalog.list(teamId, 'agents');
  const mine = all.filter((a) => a.campaignId === campaignId);
  const match = matchEntry(typed, mine.length > 0 ? mine : all);
  switch (match.kind) {
    case 'known': {
      const { id, name } = match.entry;
      return { ok: true, target: { id, ...(name !== undefined ? { name } : {}), by: match.by, near: [] } };
    }
    case 'ambiguous':
      return { ok: false, sentence: pickList(typed, match.matches, 'agents') };
    case 'unknown':
      if (/\s/.test(typed)) {
        return {
          ok: false,
          sentence: `No agent called “${literal(truncate(typed, 80))}” is known in ${campaignLabel({ id: campaignId })}.${didYouMean(match.near)} Use the agent’s id.`,
        };
      }
      return { ok: true, target: { id: typed, by: 'unseen', near: match.near } };
  }
}

/** "Several campaigns match “spring”: `camp-1` (Spring promo), … — use the id of the one you mean." */
export function pickList(typed: string, matches: readonly CatalogEntry[], noun: 'campaigns' | 'agents'): string {
  const shown = matches.slice(0, PICK_LIST_MAX).map(entryLabel);
  const more = matches.length > PICK_LIST_MAX ? ` and ${matches.length - PICK_LIST_MAX} more` : '';
  return `Several ${noun} match “${literal(truncate(typed, 80))}”: ${shown.join(', ')}${more} — use the id of the one you mean.`;
}

/** ` Did you mean `camp-1` (Spring promo)?`, or nothing when nothing is near. */
export function didYouMean(near: readonly CatalogEntry[]): string {
  return near.length === 0 ? '' : ` Did you mean ${eitherOf(near)}?`;
}

/** `` `camp-1` (Spring promo), `camp-2` or `camp-3` `` */
function eitherOf(entries: readonly CatalogEntry[]): string {
  const labels = entries.map(entryLabel);
  const last = labels.pop();
  return labels.length > 0 ? `${labels.join(', ')} or ${last}` : (last ?? '');
}

/** How to find a campaign's id, told when no known campaign is near what was typed. */
const FIND_THE_ID = 'check its id: `/campaign stats` lists the top campaigns with their ids';

/**
 * A campaign neither the bot has seen nor the platform showed: "I don’t know a campaign “camp-l” — did you mean
 * `camp-1` (Spring promo)?", or, with nothing near, what to do instead (`findIt`: the caller's own way).
 */
export function unknownCampaign(target: Pick<CampaignTarget, 'id' | 'near'>, findIt = FIND_THE_ID): string {
  const said = `I don’t know a campaign “${literal(truncate(target.id, 80))}”`;
  return target.near.length > 0 ? `${said} — did you mean ${eitherOf(target.near)}?` : `${said} — ${findIt}.`;
}

/** For a campaign the bot has not seen, that are others a few typos away: the note saying so (else ''). */
export function unseenNote(target: CampaignTarget, noun = 'campaign'): string {
  if (target.by !== 'unseen' || target.near.length === 0) return '';
  return ` The bot has not seen ${noun} ${code(target.id)} in the platform’s events or lists.${didYouMean(target.near)}`;
}

/** `campaign `camp-1` (Spring promo)`, mrkdwn. */
export function campaignLabel(target: Pick<CampaignTarget, 'id' | 'name'>): string {
  if (target.id === ALL_CAMPAIGNS) return 'every campaign (`*`)';
  return `campaign ${code(target.id)}${target.name !== undefined ? ` (${literal(truncate(target.name, 80))})` : ''}`;
}

/** `Spring promo (camp-1)`, plain text (headers). */
export function campaignTitle(target: Pick<CampaignTarget, 'id' | 'name'>): string {
  return target.name !== undefined ? `${target.name} (${target.id})` : target.id;
}

/** `` `camp-1` (Spring promo) `` */
export function entryLabel(e: Pick<CatalogEntry, 'id' | 'name'>): string {
  return `${code(e.id)}${e.name !== undefined ? ` (${literal(truncate(e.name, 80))})` : ''}`;
}

/** An id in a code span: escaped, without backticks (which would end the span). */
export function code(id: string): string {
  return `\`${escapeMrkdwn(truncate(id.replace(/`/g, ''), 120))}\``;
}

/**
 * Runs the platform call for `target` and decides whether its answer shows the campaign. A 404 is told and logged
 * (for a campaign the bot has not seen: "I don’t know a campaign …", else `notFound`), and so is an answer
 * `showsNothing` for an unseen one; then undefined is returned. Other failures are thrown for the dispatcher to
 * tell. `showsNothing`: for reads that answer for any id (bookings: an empty list), what says nothing is there.
 */
export async function askAbout<T>(
  ctx: Pick<CommandContext, 'tell' | 'tellFailure' | 'logger'>,
  target: CampaignTarget,
  notFound: string,
  call: () => Promise<T>,
  showsNothing: (answer: T) => boolean = () => false,
): Promise<T | undefined> {
  const unseen = target.by === 'unseen' && target.id !== ALL_CAMPAIGNS;
  let answer: T;
  try {
    answer = await call();
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    logFailure(ctx.logger, err, { campaignId: target.id }, 'campaign not found');
    await ctx.tellFailure(err, { notFound: unseen ? unknownCampaign(target) : notFound });
    return undefined;
  }
  if (unseen && showsNothing(answer)) {
    ctx.logger.info({ campaignId: target.id }, 'campaign unknown to the bot, and the platform showed nothing of it');
    await ctx.tell(unknownCampaign(target));
    return undefined;
  }
  return answer;
}

/**
 * Before acting on a campaign without asking the platform about it first (a digest, an alert, a delete's
 * confirmation): an id the bot has not seen is looked up — scheduled calls, the read that answers 404 for an
 * unknown campaign (docs/PLATFORM-API.md › Errors) — so a typo is told now, not by an empty digest at 09:00.
 * True when the campaign is known or the platform showed it (the catalog learns it); false once told otherwise.
 */
export async function confirmCampaign(
  ctx: Pick<CommandContext, 'deps' | 'teamId' | 'tell' | 'tellFailure' | 'logger'>,
  target: CampaignTarget,
): Promise<boolean> {
  if (target.by !== 'unseen' || target.id === ALL_CAMPAIGNS) return true;
  const client = await ctx.deps.platform.clientFor(ctx.teamId);
  const found = await askAbout(ctx, target, '', () => client.calls.listScheduled(target.id));
  if (found === undefined) return false;
  await remember(ctx.deps, ctx.logger, ctx.teamId, 'campaigns', { id: target.id });
  return true;
}

/** The platform just showed this thing exists: the catalog learns it (a failure only costs a suggestion). */
export async function remember(
  deps: Pick<Deps, 'store'>,
  logger: Logger,
  teamId: string,
  kind: CatalogKind,
  facts: { id: string; name?: string | undefined; campaignId?: string | undefined },
): Promise<void> {
  try {
    await deps.store.catalog.note(teamId, kind, facts);
  } catch (err) {
    logger.warn({ err, kind }, 'could not record what the platform showed in the catalog');
  }
}
