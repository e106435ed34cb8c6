/**
 * `/campaign unsubscribe <campaignId|*> [events…]` (admins): removes this channel's routes for those events
 * (default: every event this channel receives for that campaign), whatever their filters. When no channel (nor an
 * outcome alert) needs a (campaign, event) any more, the platform subscription goes too (DELETE /events-gateway/trigger/unsubscribe, with the values
 * subscribe used) — before the route, so a refused unsubscribe leaves the route and the user can retry.
 */
import { escapeMrkdwn } from '../slack/blocks.js';
import { hookUrlFor, TRIGGER_NAMES, unsubscribeUpstream, type TriggerName } from '../events/index.js';
import { eventList } from '../events/subscription-text.js';
import { logFailure } from '../app/failure.js';
import type { CatalogEntry, Route } from '../store/index.js';
import { noPublicUrl } from './subscribe.js';
import { campaignLabel, unknownCampaign } from './campaign-ref.js';
import { setUpBy } from './report-text.js';
import { parseRouteArguments } from './route-arguments.js';
import type { CommandContext, Subcommand } from './types.js';

export const unsubscribe: Subcommand = {
  name: 'unsubscribe',
  usage: 'unsubscribe <campaignId|*> [events…]',
  summary: 'stop posting a campaign’s events in this channel',
  admin: true,
  destructive: true,
  args: { min: 1, max: 1 + TRIGGER_NAMES.length * 2 },
  inChannel: 'Run it in the channel whose posts should stop — a direct message has no subscriptions.',
  async run(ctx) {
    const { deps, teamId, channelId } = ctx;
    const parsed = await parseRouteArguments(deps, teamId, ctx.args, TRIGGER_NAMES);
    if (!parsed.ok) return ctx.tell(parsed.sentence);
    if (parsed.filterWords.length > 0) {
      return ctx.tell(
        `\`/campaign unsubscribe\` takes no filters: it removes this channel’s routes for those events whatever their filters — run it with the campaign and events only (\`/campaign ${escapeMrkdwn(unsubscribe.usage)}\`). To change filters, run \`/campaign subscribe\` again with the new ones.`,
      );
    }
    const { campaign, events } = parsed;
    const campaignId = campaign.id;
    const what = campaignLabel(campaign);

    const routes = await deps.store.routes.listForTeam(teamId);
    const here = routes.filter((r) => r.channelId === channelId && r.campaignId === campaignId);
    const hereEvents = new Set<string>(here.map((r) => r.triggerName));
    const asked: string[] = events.length > 0 ? events : [...hereEvents];
    const toRemove = asked.filter((e) => hereEvents.has(e));
    const notHere = asked.filter((e) => !hereEvents.has(e));
    if (toRemove.length === 0 && campaign.by === 'unseen') {
      // Routes make a campaign known: an unseen one has none anywhere, so it is likelier a typo than "nothing here".
      const near = routedHereNear(campaign.near, routes, channelId);
      return ctx.tell(
        `${unknownCampaign({ ...campaign, near }, 'check its id: `/campaign subscriptions` lists what this channel receives')} Nothing changed.`,
      );
    }
    if (toRemove.length === 0) {
      return ctx.tell(
        events.length > 0
          ? `This channel is not subscribed to ${eventList(notHere)} for ${what} — nothing changed.`
          : `This channel receives no events for ${what} — nothing changed. \`/campaign subscriptions\` lists what it receives.`,
      );
    }

    const token = await deps.store.workspaces.getHookToken(teamId);
    const publicUrl = deps.config.publicUrl;
    const removed: string[] = [];
    let leftUpstream = false;
    const alertHooks = await deps.store.outcomeAlerts.hooks(teamId);
    for (const triggerName of toRemove) {
      // Another channel's route, or an outcome alert (it counts completed calls), still needs the platform's hook.
      const stillNeeded = [...routes.filter((r) => r.channelId !== channelId), ...alertHooks].some(
        (r) => r.campaignId === campaignId && r.triggerName === triggerName,
      );
      try {
        if (!stillNeeded && token) {
          if (publicUrl) {
            const api = await deps.platform.clientFor(teamId);
            const pair = { campaignId, triggerName: triggerName as TriggerName };
            await unsubscribeUpstream(api, hookUrlFor(publicUrl, token), pair, ctx.logger);
          } else leftUpstream = true;
        }
        await deps.store.routes.remove({ teamId, campaignId, triggerName, channelId });
        removed.push(triggerName);
      } catch (err) {
        logFailure(ctx.logger, err, { campaignId, triggerName }, 'unsubscribe failed');
        const rest = toRemove.filter((e) => !removed.includes(e));
        const doneText = removed.length > 0 ? `Unsubscribed this channel from ${eventList(removed)} for ${what}; ` : '';
        await ctx.tellFailure(
          err,
          undefined,
          `${doneText}${eventList(rest)} ${rest.length === 1 ? 'is' : 'are'} still subscribed:`,
        );
        if (removed.length > 0) await notifyChannel(ctx, removed, what);
        return;
      }
    }

    await notifyChannel(ctx, removed, what);
    // The channel's last `customers:full` route gone, so is the admin's word for it: restricted, it masks again.
    const left = await deps.store.routes.listForChannel(teamId, channelId);
    if (!left.some((r) => r.filters?.customers === 'full'))
      await deps.audiences.withdrawFull({ teamId, enterpriseId: ctx.enterpriseId }, channelId);
    const skipped = notHere.length > 0 ? ` (It was not subscribed to ${eventList(notHere)}.)` : '';
    const upstreamNote = leftUpstream
      ? ` The platform may keep sending these events to the bot (they are ignored): ${noPublicUrl('Removing the platform subscription')}`
      : '';
    await ctx.tell(`🔕 This channel no longer receives ${eventList(removed)} for ${what}.${skipped}${upstreamNote}`);
  },
};

/** Subscribing announced itself in the channel; so does the end of it, from the channel's outbox (bulk lane). */
async function notifyChannel(ctx: CommandContext, removed: readonly string[], what: string): Promise<void> {
  const text = `🔕 This channel no longer receives ${eventList(removed)} events for ${what} (changed by ${setUpBy(ctx)}).`;
  const report = { key: `unsubscribe:${ctx.triggerId}`, order: Date.now() };
  await ctx.deps.bulk.notify({ teamId: ctx.teamId, channelId: ctx.channelId }, report, { title: text, text });
}

/** For a campaign this channel has no routes for: the near ones this channel does route (the likely typo). */
function routedHereNear(near: readonly CatalogEntry[], routes: readonly Route[], channelId: string): CatalogEntry[] {
  const here = new Set(routes.filter((r) => r.channelId === channelId).map((r) => r.campaignId));
  return near.filter((e) => here.has(e.id));
}
