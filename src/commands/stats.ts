/**
 * `/campaign stats`: dashboard totals per channel type, top campaigns and account elements. The top campaigns
 * come as ids: the catalog learns them, and names the ones it knows.
 */
import { renderStats } from '../views/usage.js';
import { remember } from './campaign-ref.js';
import type { Subcommand } from './types.js';
export const stats: Subcommand = {
  name: 'stats',
  usage: 'stats',
  summary: 'call totals per channel type, top campaigns and account elements',
  readOnly: true,
  args: { min: 0, max: 0 },
  async run(ctx) {
    const client = await ctx.deps.platform.clientFor(ctx.teamId);
    const figures = await client.dashboard.getStats();
    const top = (figures.topCampaigns ?? []).flatMap((t) => (t.campaignId ? [t.campaignId] : []));
    for (const id of top) await remember(ctx.deps, ctx.logger, ctx.teamId, 'campaigns', { id });
    const known = top.length > 0 ? await ctx.deps.store.catalog.list(ctx.teamId, 'campaigns').catch(() => []) : [];
    const names = new Map(known.flatMap((e) => (e.name !== undefined ? [[e.id, e.name] as const] : [])));
    await ctx.reply(renderStats(figures, names));
  },
};
