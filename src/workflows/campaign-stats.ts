/**
 * `get_campaign_stats`: what `/campaign stats` shows, as outputs a later step can post — the account's totals,
 * or one campaign's figures. The dashboard gives figures per campaign for its top campaigns only
 * (docs/PLATFORM-API.md: dashboard-stats), so a campaign outside them is told, not shown as zero calls.
 */
import { z } from 'zod';
import type { CategoryStats, DashboardStats } from '../api/index.js';
import { chooseCampaign, campaignTitle, code } from '../commands/campaign-ref.js';
import { groupDigits } from '../format/numbers.js';
import { CAMPAIGN_MAX, optionalText } from './inputs.js';
import { defineStep, type Outputs } from './step.js';

export const GET_CAMPAIGN_STATS = 'get_campaign_stats';

const CATEGORIES = ['Outbound', 'Inbound', 'Web'] as const;

export const getCampaignStats = defineStep({
  callbackId: GET_CAMPAIGN_STATS,
  schema: z.object({ campaign: optionalText(CAMPAIGN_MAX) }),
  titles: { campaign: 'Campaign' },
  async run(ctx, inputs) {
    const figures = await ctx.platform.dashboard.getStats();
    if (inputs.campaign === undefined) return { kind: 'done', outputs: accountOutputs(figures) };
    const choice = await chooseCampaign(ctx.deps, ctx.ws.teamId, inputs.campaign);
    if (!choice.ok) return { kind: 'refused', sentence: choice.sentence };
    const target = choice.target;
    const top = (figures.topCampaigns ?? []).find((t) => t.campaignId === target.id);
    if (!top) {
      return {
        kind: 'refused',
        sentence: `Campaign ${code(target.id)} is not among the dashboard’s top campaigns, the only ones the platform gives figures for — leave the step’s “Campaign” empty for the account’s totals.`,
      };
    }
    const calls = top.calls ?? 0;
    const rate = asPercent(top.connectionRate);
    const summary = `${campaignTitle(target)}: ${groupDigits(calls)} calls${rate === undefined ? '' : `, ${rate}% connected`}.`;
    return { kind: 'done', outputs: { summary, calls, ...(rate === undefined ? {} : { connection_rate: rate }) } };
  },
});

function accountOutputs(figures: DashboardStats): Outputs {
  const rows = CATEGORIES.flatMap((name) => {
    const c: CategoryStats | undefined = figures.totals?.[name];
    return c ? [{ name, c }] : [];
  });
  const calls = rows.reduce((n, { c }) => n + (c.calls ?? 0), 0);
  const bookings = rows.reduce((n, { c }) => n + (c.bookingsMade ?? 0), 0);
  // The account's rate: each channel type's rate weighted by its calls (the dashboard gives no overall one).
  const rated = rows.flatMap(({ c }) => {
    const pct = asPercent(c.connectionRate);
    return pct !== undefined && (c.calls ?? 0) > 0 ? [{ pct, calls: c.calls ?? 0 }] : [];
  });
  const ratedCalls = rated.reduce((n, r) => n + r.calls, 0);
  const rate =
    ratedCalls > 0 ? Math.round((rated.reduce((n, r) => n + r.pct * r.calls, 0) / ratedCalls) * 10) / 10 : undefined;
  const parts = rows.map(({ name, c }) => `${name} ${groupDigits(c.calls ?? 0)}`);
  const summary =
    `Campaign dashboard: ${groupDigits(calls)} calls${parts.length > 0 ? ` (${parts.join(' · ')})` : ''}` +
    `${rate === undefined ? '' : `, ${rate}% connected`}, ${groupDigits(bookings)} bookings made.`;
  return { summary, calls, bookings_made: bookings, ...(rate === undefined ? {} : { connection_rate: rate }) };
}

/** A rate the platform sends as 0–1 or 0–100, in percent with one decimal. */
function asPercent(rate: number | undefined): number | undefined {
  if (rate === undefined || !Number.isFinite(rate)) return undefined;
  return Math.round((rate <= 1 ? rate * 100 : rate) * 10) / 10;
}
