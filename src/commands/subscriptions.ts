/**
 * `/campaign subscriptions [campaignId]`: what this channel receives (its routes and their filters), the delivery health
 * (dead letters, and the events that arrived for no channel in the last 7 days), and — for one campaign — the hooks the platform has registered, side by side with ours.
 *
 * The platform's list body is undocumented: a list of subscriptions (`triggerName`, `campaignId`, `id` /
 * `hookUrl`) is shown as such; anything else is summarised generically. Hook URLs are secrets (the token in
 * them is all that authenticates a delivery), so none is ever printed: ours is named, others cut to their origin.
 */
import { z } from 'zod';
import { describeHookUrl, hookUrlFor, isTriggerName } from '../events/index.js';
import { campaignPhrase, routeList } from '../events/subscription-text.js';
import {
  LIMITS,
  context,
  divider,
  escapeMrkdwn,
  header,
  message,
  section,
  slackDate,
  truncate,
  type KnownBlock,
} from '../slack/blocks.js';
import { ALL_CAMPAIGNS, type Route, type UnroutedSummary } from '../store/index.js';
import { failureOf, failureText, logFailure } from '../app/failure.js';
import { campaignLabel, chooseCampaign, unknownCampaign } from './campaign-ref.js';
import type { CommandContext, Subcommand } from './types.js';

const MAX_HOOK_LINES = 25;

const platformHook = z.looseObject({
  id: z.string().optional(),
  hookUrl: z.string().optional(),
  campaignId: z.string().optional(),
  triggerName: z.string().optional(),
});
const hookList = z.union([
  z.array(platformHook),
  z.looseObject({ value: z.array(platformHook) }).transform((v) => v.value),
]);
type PlatformHook = z.infer<typeof platformHook>;

export const subscriptions: Subcommand = {
  name: 'subscriptions',
  usage: 'subscriptions [campaignId]',
  summary: 'what this channel receives, delivery health, and the platform’s hooks for a campaign',
  readOnly: true,
  args: { min: 0, max: 12 },
  inChannel: 'Run it in the channel you want to look at — a direct message gets no posts.',
  async run(ctx) {
    const { deps, teamId, channelId } = ctx;
    let campaignId: string | undefined;
    let note = '';
    if (ctx.args.length > 0) {
      const choice = await chooseCampaign(deps, teamId, ctx.args.join(' '), { allowAll: true });
      if (!choice.ok) return ctx.tell(choice.sentence);
      campaignId = choice.target.id;
      // An id the bot never saw has no routes here: the page below lists nothing, which a typo should not read as.
      if (choice.target.by === 'unseen' && choice.target.id !== ALL_CAMPAIGNS) note = unknownCampaign(choice.target);
      if (choice.target.name !== undefined) note = `This is ${campaignLabel(choice.target)}.`;
    }
    const [routes, dead, unrouted] = await Promise.all([
      deps.store.routes.listForChannel(teamId, channelId),
      deps.store.queue.deadLetters(teamId, 1),
      deps.store.unroutedEvents.summary(teamId),
    ]);
    const shown =
      campaignId === undefined
        ? routes
        : routes.filter((r) => r.campaignId === campaignId || r.campaignId === ALL_CAMPAIGNS);

    const blocks: KnownBlock[] = [
      header(campaignId === undefined ? 'Event subscriptions' : 'Event subscriptions for one campaign'),
    ];
    if (note) blocks.push(context(note));
    blocks.push(section(routesText(shown, campaignId)));

    if (campaignId !== undefined) {
      blocks.push(divider(), section(await platformHooksText(ctx, campaignId, routes)));
    }

    const latest = dead.entries[0];
    blocks.push(
      context(
        dead.count === 0
          ? 'Delivery: no dead letters — no event failed to be posted where it was routed.'
          : `Delivery: *${dead.count}* dead letter${dead.count === 1 ? '' : 's'} (events kept after their last failed attempt)${
              latest
                ? ` · latest ${slackDate(new Date(latest.failedAt).toISOString())}: ${escapeMrkdwn(truncate(latest.error, 200))}`
                : ''
            }`,
      ),
    );
    if (unrouted.count > 0) blocks.push(section(unroutedText(unrouted)));
    await ctx.reply(
      message(`Event subscriptions: ${shown.length} route${shown.length === 1 ? '' : 's'} in this channel`, blocks),
    );
  },
};

function routesText(routes: readonly Route[], campaignId: string | undefined): string {
  if (routes.length === 0) {
    const scope = campaignId === undefined ? '' : ` for ${campaignPhrase(campaignId)}`;
    return `*This channel*\n_No events are posted here${scope}._ An admin can run \`/campaign subscribe &lt;campaignId|*&gt; [events…] [filters…]\`.`;
  }
  const byCampaign = new Map<string, Route[]>();
  for (const r of routes) byCampaign.set(r.campaignId, [...(byCampaign.get(r.campaignId) ?? []), r]);
  // Asked about one campaign, a `*` route is how this channel gets that campaign's events: say so.
  const through =
    campaignId !== undefined && campaignId !== ALL_CAMPAIGNS ? `, which includes ${campaignPhrase(campaignId)}` : '';
  const lines = [...byCampaign].map(
    ([c, events]) => `• ${campaignPhrase(c)}${c === ALL_CAMPAIGNS ? through : ''}: ${routeList(events)}`,
  );
  return truncate(`*This channel receives*\n${lines.join('\n')}`, LIMITS.sectionText);
}

/** How many distinct kinds of unrouted event are named before "…". */
const UNROUTED_KINDS_SHOWN = 3;

/**
 * "3 events arrived for no channel in the last 7 days (`call_completed` for campaign `spring-promo`…) — …":
 * the workspace's, whichever channel asks, since no channel has them.
 */
function unroutedText({ count, recent }: UnroutedSummary): string {
  const kinds = [
    ...new Set(
      recent.map((e) => `\`${escapeMrkdwn(e.trigger)}\`${e.campaignId ? ` for ${campaignPhrase(e.campaignId)}` : ''}`),
    ),
  ];
  const shown = kinds.slice(0, UNROUTED_KINDS_SHOWN).join(', ') + (kinds.length > UNROUTED_KINDS_SHOWN ? '…' : '');
  const latest = recent[0];
  const campaign = latest?.campaignId ? escapeMrkdwn(latest.campaignId.replace(/`/g, '')) : '&lt;campaign&gt;';
  return truncate(
    `📭 *${count}* event${count === 1 ? '' : 's'} arrived for no channel in the last 7 days${shown ? ` (${shown})` : ''}${
      latest ? `, the latest ${slackDate(new Date(latest.at).toISOString())}` : ''
    } — \`/campaign subscribe ${campaign}\` in a channel to receive them.`,
    LIMITS.sectionText,
  );
}

interface OurHook {
  publicUrl?: string | undefined;
  current?: string | undefined;
}

type HookListing = { ok: true; hooks: PlatformHook[] } | { ok: false; text: string };

/**
 * The platform's hooks for the campaign, beside ours. For one campaign the `*` hooks are read too: they
 * deliver its events as well, so "no hooks" for the campaign alone would be wrong.
 */
async function platformHooksText(
  ctx: CommandContext,
  campaignId: string,
  teamRoutes: readonly Route[],
): Promise<string> {
  const { deps, teamId } = ctx;
  const title = `*On the platform* (${campaignPhrase(campaignId)})`;
  const withStar = campaignId !== ALL_CAMPAIGNS;
  const token = await deps.store.workspaces.getHookToken(teamId);
  const ours: OurHook = {
    publicUrl: deps.config.publicUrl,
    current: token && deps.config.publicUrl ? hookUrlFor(deps.config.publicUrl, token) : undefined,
  };
  const [own, star] = await Promise.all([
    listHooks(ctx, campaignId, ours),
    withStar ? listHooks(ctx, ALL_CAMPAIGNS, ours) : undefined,
  ]);
  if (!own.ok) return truncate(`${title}\n${own.text}`, LIMITS.sectionText);

  const starHooks = star?.ok ? star.hooks : [];
  const lines = hookLines(own.hooks, ours);
  if (own.hooks.length === 0 && starHooks.length === 0) lines.push('_No hooks registered for this campaign._');
  if (starHooks.length > 0) {
    lines.push(
      `${own.hooks.length > 0 ? 'Also through' : 'Through'} ${campaignPhrase(ALL_CAMPAIGNS)}, which delivers this campaign’s events too:`,
    );
    lines.push(...hookLines(starHooks, ours));
  } else if (star && !star.ok) {
    lines.push(`About ${campaignPhrase(ALL_CAMPAIGNS)}: ${star.text}`);
  }

  // Side by side: events some channel routes for this campaign, but the platform does not send to us.
  const registered = new Set(
    [...own.hooks, ...starHooks]
      .filter((h) => ours.current !== undefined && urlOf(h) === ours.current)
      .map((h) => h.triggerName),
  );
  const routed = [...new Set(teamRoutes.filter((r) => r.campaignId === campaignId).map((r) => r.triggerName))];
  const missing = routed.filter((e) => isTriggerName(e) && !registered.has(e));
  if (missing.length > 0 && ours.current !== undefined) {
    lines.push(
      `⚠️ Routed in this workspace but not registered to this workspace’s hook: ${missing.map((e) => `\`${escapeMrkdwn(e)}\``).join(', ')} — an admin can run \`/campaign rotate-hook\` to register every route with the platform again.`,
    );
  }
  return truncate(`${title}\n${lines.join('\n')}`, LIMITS.sectionText);
}

/** One campaign's (or `*`'s) hooks, or the sentence saying why they can't be shown. */
async function listHooks(ctx: CommandContext, campaignId: string, ours: OurHook): Promise<HookListing> {
  let body: unknown;
  try {
    const api = await ctx.deps.platform.clientFor(ctx.teamId);
    body = await api.webhooks.listForCampaign(campaignId);
  } catch (err) {
    logFailure(ctx.logger, err, { campaignId }, 'could not list platform hooks');
    return {
      ok: false,
      text: `Could not read the platform’s hooks: ${failureText(failureOf(err, { notFound: `The platform has no ${campaignPhrase(campaignId)}.` }))}`,
    };
  }
  const parsed = hookList.safeParse(body);
  if (!parsed.success)
    return { ok: false, text: `The platform answered in a form this app does not know: ${summarise(body, ours)}` };
  return { ok: true, hooks: parsed.data };
}

function hookLines(hooks: readonly PlatformHook[], ours: OurHook): string[] {
  const lines = hooks
    .slice(0, MAX_HOOK_LINES)
    .map((h) => `• \`${escapeMrkdwn(h.triggerName ?? '?')}\` → ${escapeMrkdwn(target(h, ours))}`);
  if (hooks.length > MAX_HOOK_LINES) lines.push(`…and ${hooks.length - MAX_HOOK_LINES} more`);
  return lines;
}

function urlOf(h: PlatformHook): string | undefined {
  return h.hookUrl ?? h.id;
}

function target(h: PlatformHook, ours: OurHook): string {
  const url = urlOf(h);
  return url === undefined ? 'a hook without a URL' : describeHookUrl(url, ours);
}

/** A short, safe picture of an unexpected body: its structure with strings masked (any could be a hook URL). */
function summarise(body: unknown, ours: OurHook): string {
  const mask = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string')
      return /^https?:\/\//i.test(v) || v.includes('/hooks/') ? describeHookUrl(v, ours) : truncate(v, 60);
    if (depth > 3 || v === null || typeof v !== 'object') return v;
    if (Array.isArray(v)) return v.slice(0, 10).map((x) => mask(x, depth + 1));
    return Object.fromEntries(
      Object.entries(v)
        .slice(0, 15)
        .map(([k, x]) => [truncate(k, 40), mask(x, depth + 1)]),
    );
  };
  return `\`${escapeMrkdwn(truncate(JSON.stringify(mask(body, 0)) ?? 'nothing', 1500).replace(/`/g, "'"))}\``;
}
