/**
 * `/campaign quota`: this month's usage in hours/minutes with a usage bar.
 */
import { renderQuota } from '../views/usage.js';
import type { Subcommand } from './types.js';
export const quota: Subcommand = {
  name: 'quota',
  usage: 'quota',
  summary: 'minutes used this month against the plan',
  readOnly: true,
  args: { min: 0, max: 0 },
  async run(ctx) {
    const client = await ctx.deps.platform.clientFor(ctx.teamId);
    await ctx.reply(renderQuota(await client.quota.list()));
  },
};
