/**
 * `/campaign alert <campaignId|*> <filters…> above:<percent> [window:<duration>] [min:<calls>] [notify:@…]`
 * (admins): this channel is told when the share of a campaign's completed calls that match the filters reaches
 * the percentage over the window (one post per incident, updated while it lasts, resolved in its thread — see
 * events/outcome-alerts.ts). `alert` alone lists this channel's alerts (everyone); `alert off [campaignId|*]`
 * removes them (admins). One alert per channel and campaign: setting one again replaces it.
 *
 * An alert counts every completed call of its campaign, whether or not a channel gets their cards, so it makes
 * sure the platform sends `call_completed` for the campaign (the hook `subscribe` would register), and the
 * hook stays while an alert or a route needs it. Order of work, as for subscribe: the notice in the channel
 * first (the membership check), then the alert, then the platform's hook (a call completed the moment the
 * platform has it is counted; a refusal removes the alert again).
 */
import { adminsOnly } from '../app/admin-gate.js';
import {
  ALERT_TIMER,
  alertTimerId,
  ending,
  ensureHookToken,
  hookUrlFor,
  unsubscribeUpstream,
} from '../events/index.js';
import { EVALUATE_EVERY_MS } from '../events/outcome-alerts.js';
import { outcomePhrase, sharePercent, spanText } from '../events/render/outcome-alert.js';
import { campaignPhrase } from '../events/subscription-text.js';
import { namesOf } from '../events/mentions.js';
import { ALL_CAMPAIGNS, type OutcomeAlert } from '../store/index.js';
import { escapeMrkdwn, message, section, slackDate } from '../slack/blocks.js';
import { deleteMessage } from '../slack/post.js';
import { postReport } from '../digests/index.js';
import { ALERT_USAGE, parseAlertTerms, type AlertTerms } from './alert-terms.js';
import { notInChannel, setUpBy } from './report-text.js';
import { chooseCampaign, confirmCampaign } from './campaign-ref.js';
import { noPublicUrl } from './subscribe.js';
import type { CommandContext, Subcommand } from './types.js';

const ADMINS_ONLY = `${adminsOnly('set or remove alerts')} \`/campaign alert\` alone lists this channel’s alerts.`;

export const alert: Subcommand = {
  name: 'alert',
  usage: ALERT_USAGE,
  summary:
    'tell this channel when a share of a campaign’s calls match, e.g. `status:failed above:50` (default `window:15m min:10`); alone: this channel’s alerts; `off [campaignId|*]` removes them',
  args: { min: 0, max: 40 },
  adminWhen: (args) => args.length > 0,
  inChannel: 'Run it in the channel that should get the alert — a direct message can’t have alerts.',
  failures: (ctx) => ({
    notFound: `The platform has no ${campaignPhrase(ctx.args[0] ?? '')} — check the id. No alert was set.`,
  }),
  async run(ctx) {
    const [first] = ctx.args;
    if (first === undefined) return list(ctx);
    const off = first.toLowerCase() === 'off';
    if (!(await ctx.deps.admins.isAdmin(ctx.client, ctx.teamId, ctx.userId, { fresh: off })))
      return ctx.tell(ADMINS_ONLY);
    if (off) {
      if (ctx.args.length > 2) return ctx.tell('Usage: `/campaign alert off [campaignId|*]`');
      return removeAlerts(ctx, ctx.args[1]);
    }
    const parsed = parseAlertTerms(ctx.args);
    if (!parsed.ok) return ctx.tell(parsed.sentence);
    // The campaign as any command takes it (`campaign-ref.ts`): an id in any case, a one-word name, a typo told.
    const choice = await chooseCampaign(ctx.deps, ctx.teamId, parsed.terms.campaignId, { allowAll: true });
    if (!choice.ok) return ctx.tell(choice.sentence);
    if (!(await confirmCampaign(ctx, choice.target))) return;
    return setAlert(ctx, { ...parsed.terms, campaignId: choice.target.id });
  },
};

/**
 * "calls that failed reach 50 % (of at least 10 calls in 15 min) for campaign `camp-1`, mentioning `@sales`": named,
 * never mentioned — only the alert's own post pages them.
 */
function describeAlert(a: OutcomeAlert): string {
  const who = namesOf(a.notify, a.notifyNames);
  return `calls that ${outcomePhrase(a.filters)} reach ${a.abovePercent} % (of at least ${a.minCalls} calls in ${spanText(a.windowMs)}) for ${campaignPhrase(a.campaignId)}${who ? `, mentioning ${who}` : ''}`;
}

async function setAlert(ctx: CommandContext, terms: AlertTerms): Promise<void> {
  const { deps, teamId, channelId } = ctx;
  const publicUrl = deps.config.publicUrl;
  if (!publicUrl)
    return ctx.tell(`${noPublicUrl('An alert counts the calls the platform sends and')} Nothing was changed.`);
  const api = await deps.platform.clientFor(teamId);
  const before = await deps.store.outcomeAlerts.get(teamId, { channelId, campaignId: terms.campaignId });
  const next: OutcomeAlert = {
    campaignId: terms.campaignId,
    channelId,
    filters: terms.filters,
    abovePercent: terms.abovePercent,
    windowMs: terms.windowMs,
    minCalls: terms.minCalls,
    ...(terms.notify.length > 0 ? { notify: terms.notify } : {}),
    ...(Object.keys(terms.notifyNames).length > 0 ? { notifyNames: terms.notifyNames } : {}),
    setBy: ctx.userId,
    setAt: deps.store.now(),
  };
  const text = `🚨 This channel now gets an alert when ${describeAlert(next)} (set up by ${setUpBy(ctx)}).`;
  const notice = await postReport(ctx.client, channelId, message(text, [section(text)]));
  if (!notice.posted) return ctx.tell(notInChannel('No alert was set.'));
  // The bot can post here again, and this admin is the one told if that stops.
  await deps.store.channelPauses.resume(teamId, channelId);
  await deps.store.channelPauses.setSubscriber(teamId, channelId, ctx.userId);

  const needed =
    (await deps.store.routes.isNeeded(teamId, terms.campaignId, 'call_completed')) ||
    (await deps.store.outcomeAlerts.hooks(teamId)).some((h) => h.campaignId === terms.campaignId);
  await deps.store.outcomeAlerts.set(teamId, next);
  if (!needed) {
    const token = await ensureHookToken(deps.store, teamId);
    try {
      await api.webhooks.subscribe({
        hookUrl: hookUrlFor(publicUrl, token),
        campaignId: terms.campaignId,
        triggerName: 'call_completed',
      });
    } catch (err) {
      // Nothing is set after all (no alert was replaced: one would have had the hook): nor may the notice say so.
      await deps.store.outcomeAlerts.remove(teamId, next);
      await deleteMessage(ctx.client, { channel: channelId, ts: notice.ts }).catch((e: unknown) => {
        ctx.logger.warn({ err: e }, 'could not remove the alert notice');
      });
      throw err;
    }
    ctx.logger.info({ campaignId: terms.campaignId }, 'platform webhook subscribed for an outcome alert');
  }
  await deps.store.timers.set(ALERT_TIMER, alertTimerId(teamId, next), deps.store.now() + EVALUATE_EVERY_MS);
  ctx.logger.info(
    { campaignId: terms.campaignId, above: terms.abovePercent, windowMs: terms.windowMs },
    'outcome alert set',
  );
  const replaced = before
    ? ` It replaces this channel’s alert for ${campaignPhrase(before.campaignId)} (${describeAlert(before)}).`
    : '';
  await ctx.tell(
    `✅ Alert set: I’ll post here when ${describeAlert(next)}, and again in its thread once it is back under.${replaced} I check every ${EVALUATE_EVERY_MS / 1000} seconds, counting every completed call of ${campaignPhrase(terms.campaignId)} — whether or not this channel gets their cards.`,
  );
}

async function removeAlerts(ctx: CommandContext, campaignId: string | undefined): Promise<void> {
  const { deps, teamId, channelId } = ctx;
  const here = (await deps.store.outcomeAlerts.list(teamId)).filter(
    (a) => a.channelId === channelId && (campaignId === undefined || a.campaignId === campaignId),
  );
  if (here.length === 0) {
    return ctx.tell(
      campaignId === undefined
        ? 'This channel has no alerts — nothing changed.'
        : `This channel has no alert for ${campaignPhrase(campaignId)} — nothing changed. \`/campaign alert\` lists them.`,
    );
  }
  const now = deps.store.now();
  let incidents = 0;
  for (const a of here) {
    await deps.store.outcomeAlerts.remove(teamId, a);
    const incident = await deps.store.outcomeAlerts.incident(teamId, a);
    if (incident && !incident.ending) {
      // Its post says so in its thread at the timer's next firing, which then ends.
      await deps.store.outcomeAlerts.setIncident(
        teamId,
        a,
        ending(incident, 'removed', incident.shown, now, ctx.userId),
      );
      await deps.store.timers.set(ALERT_TIMER, alertTimerId(teamId, a), now);
      incidents++;
    } else if (!incident) await deps.store.timers.cancel(ALERT_TIMER, alertTimerId(teamId, a));
  }
  const upstreamLeft = await dropUnneededHooks(ctx, here);
  const names = here.map((a) => campaignPhrase(a.campaignId)).join(', ');
  await ctx.tell(
    `🔕 Removed this channel’s alert${here.length === 1 ? '' : 's'} for ${names}.` +
      (incidents > 0 ? ' The open incident’s post says it is no longer followed.' : '') +
      (upstreamLeft
        ? ` The platform may keep sending completed calls to the bot (they are ignored): ${noPublicUrl('Removing the platform subscription')}`
        : ''),
  );
}

/** The platform's `call_completed` hooks no route nor alert needs any more go; true when some could not (no PUBLIC_URL). */
async function dropUnneededHooks(ctx: CommandContext, removed: readonly OutcomeAlert[]): Promise<boolean> {
  const { deps, teamId } = ctx;
  const token = await deps.store.workspaces.getHookToken(teamId);
  if (!token) return false;
  deps.redactor.addSecret(token);
  const stillAlerted = new Set((await deps.store.outcomeAlerts.hooks(teamId)).map((h) => h.campaignId));
  let left = false;
  for (const campaignId of new Set(removed.map((a) => a.campaignId))) {
    if (stillAlerted.has(campaignId) || (await deps.store.routes.isNeeded(teamId, campaignId, 'call_completed')))
      continue;
    if (!deps.config.publicUrl) {
      left = true;
      continue;
    }
    try {
      const hookUrl = hookUrlFor(deps.config.publicUrl, token);
      const pair = { campaignId, triggerName: 'call_completed' } as const;
      await unsubscribeUpstream(await deps.platform.clientFor(teamId), hookUrl, pair, ctx.logger);
    } catch (err) {
      // The alert is gone either way; the platform keeps sending calls nobody needs, which are ignored.
      ctx.logger.warn({ err, campaignId }, 'could not remove a platform hook no alert or route needs any more');
    }
  }
  return left;
}

async function list(ctx: CommandContext): Promise<void> {
  const { deps, teamId, channelId } = ctx;
  const here = (await deps.store.outcomeAlerts.list(teamId)).filter((a) => a.channelId === channelId);
  if (here.length === 0) {
    return ctx.tell(
      `This channel has no outcome alerts. An admin sets one with \`/campaign ${escapeMrkdwn(ALERT_USAGE)}\`, e.g. \`/campaign alert * status:failed above:50\`.`,
    );
  }
  const lines: string[] = [];
  for (const a of here) {
    const incident = await deps.store.outcomeAlerts.incident(teamId, a);
    const state =
      incident && !incident.ending
        ? ` — 🚨 incident open since ${slackDate(new Date(incident.openedAt).toISOString(), '{time}')} (${incident.shown.matched} of ${incident.shown.calls}, ${sharePercent(incident.shown)} %)`
        : ' — no incident';
    lines.push(
      `• ${a.campaignId === ALL_CAMPAIGNS ? 'Every campaign' : `Campaign \`${escapeMrkdwn(a.campaignId)}\``}: when ${describeAlert(a)}${state}`,
    );
  }
  await ctx.tell(
    `Outcome alerts in <#${channelId}> (checked every ${EVALUATE_EVERY_MS / 1000} seconds, counting every completed call of the campaign):\n${lines.join('\n')}`,
  );
}
