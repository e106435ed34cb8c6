/**
 * `/campaign stats`: dashboard totals per channel type, top campaigns and account elements.
 */
import { renderStats } from '../views/usage.js';
import type { Subcommand } from './types.js';
export const stats: Subcommand = {
  name: 'stats',
  usage: 'stats',
  summary: 'call totals per channel type, top campaigns and account elements',
  readOnly: true,
  args: { min: 0, max: 0 },
  async run(ctx) {
    const client = await ctx.deps.platform.clientFor(ctx.teamId);
    await ctx.reply(renderStats(await client.dashboard.getStats()));
  },
};
