/**
 * `/campaign subscribe <campaignId|*> [events…] [filters…]` (admins): routes those events of that campaign to
 * this channel and makes sure the platform sends them (POST /events-gateway/trigger/subscribe, once per event,
 * to this workspace's hook URL). Filters (`events/filters.ts`) stay on our side: the platform sends every
 * event and the router keeps the matching ones; subscribing an event routed here already replaces its filters.
 *
 * Order of work, so that a failure leaves nothing half-made:
 * 1. checks that need no I/O (event names, PUBLIC_URL), then what is already routed here;
 * 2. the confirmation post in the channel — which is also the membership check (one call, and true of
 *    private channels too), the person's direct answer whose `ts` step 3 corrects: a channel refusal
 *    (src/delivery/slack-errors.ts) → ask for `/invite @Campaign`, nothing stored, nothing subscribed;
 * 3. per event: the route, then the platform subscription (skipped when another channel's route or an alert
 *    already has it made). The route comes first so that an event the platform sends the moment it has the
 *    hook finds it; a refusal removes that route again. A failure stops there; the confirmation is corrected
 *    (or removed) to say only what is true.
 */
import type { WebClient } from '@slack/web-api';
import { ensureHookToken, hookUrlFor, SUBSCRIBABLE_TRIGGERS, type SubscribableTrigger } from '../events/index.js';
import { deleteMessage, postMessage, slackErrorCode, updateMessage } from '../slack/post.js';
import { isChannelRefusal } from '../delivery/slack-errors.js';
import { routeList } from '../events/subscription-text.js';
import { filtersForEvent, hasCallOnlyFilters, isFilterWord, parseFilters, sameFilters } from '../events/filters.js';
import { pagedOnArrival, type Route, type RouteFilters } from '../store/index.js';
import { escapeMrkdwn } from '../slack/blocks.js';
import { NotFoundError, type CampaignClient } from '../api/index.js';
import { logFailure, type FailureWording } from '../app/failure.js';
import { campaignLabel, code, unknownCampaign, unseenNote, type CampaignTarget } from './campaign-ref.js';
import { parseRouteArguments } from './route-arguments.js';
import { checkAudience, confirmFull } from './subscribe-audience.js';
import { notInChannel, setUpBy } from './report-text.js';
import type { CommandContext, Subcommand } from './types.js';

export function noPublicUrl(what: string): string {
  return `${what} needs this bot’s public address, and none is configured: ask whoever runs the bot to set \`PUBLIC_URL\` (the https address the platform can reach, e.g. \`https://bot.example.com\`) and restart it.`;
}

/** Filter words a subscribe accepts (beyond the event names): plenty for every field, values comma-separated. */
const MAX_FILTER_WORDS = 24;

const CALL_STARTED_UNFILTERED =
  '`call_started` can’t be filtered by status, ended reason, summary or duration: a call that has just started has none yet. Subscribe `call_completed` with these filters, and `call_started` in its own `/campaign subscribe` without them. Nothing was subscribed.';

export const subscribe: Subcommand = {
  name: 'subscribe',
  usage: 'subscribe <campaignId|*> [events…] [filters…]',
  summary:
    'post a campaign’s call and chat events in this channel (default: all four); filters keep only matching ones: `status:` `reason:` `type:` `agent:` `summary:` `min:90s` `max:5m`; `notify:@group` mentions them; `cards:full` posts the full call card instead of the short one; `customers:full` shows customers in full where guests read along',
  admin: true,
  args: { min: 1, max: 1 + SUBSCRIBABLE_TRIGGERS.length * 2 + MAX_FILTER_WORDS },
  inChannel: 'Run it in the channel that should get the posts — in a direct message there is nothing to subscribe.',
  async run(ctx) {
    const { deps, teamId, channelId } = ctx;
    const [first = ''] = ctx.args;
    if (parseFilters([first]).ok && isFilterWord(first)) {
      return ctx.tell(
        `The campaign id (or \`*\`) comes first, then events, then filters: \`/campaign ${escapeMrkdwn(subscribe.usage)}\`. Nothing was subscribed.`,
      );
    }
    const args = await parseRouteArguments(deps, teamId, ctx.args, SUBSCRIBABLE_TRIGGERS);
    if (!args.ok) return ctx.tell(args.sentence);
    const target = args.campaign;
    const campaignId = target.id;
    const parsed = parseFilters(args.filterWords);
    if (!parsed.ok) return ctx.tell(`${parsed.sentence} Nothing was subscribed.`);
    const publicUrl = deps.config.publicUrl;
    if (!publicUrl) return ctx.tell(`${noPublicUrl('Subscribing to events')} Nothing was subscribed.`);

    const callOnly = hasCallOnlyFilters(parsed.filters);
    if (callOnly && args.events.includes('call_started')) return ctx.tell(CALL_STARTED_UNFILTERED);
    // Status, reason and duration exist only on call_completed: with them, that is the default event.
    const events =
      args.events.length > 0 ? args.events : callOnly ? ['call_completed' as const] : [...SUBSCRIBABLE_TRIGGERS];
    const wanted: Planned[] = events.map((triggerName) => ({
      triggerName,
      filters: filtersForEvent(triggerName, parsed.filters),
    }));
    const check = await checkAudience(ctx, events, parsed.filters?.customers === 'full', campaignId);
    if (!check.ok) return ctx.tell(check.sentence);
    const here = new Map(
      (await deps.store.routes.listForChannel(teamId, channelId))
        .filter((r) => r.campaignId === campaignId)
        .map((r) => [r.triggerName, r]),
    );
    const already = wanted.filter(
      (p) => here.has(p.triggerName) && sameFilters(here.get(p.triggerName)?.filters, p.filters),
    );
    const toAdd = wanted.filter((p) => !already.includes(p));
    const what = campaignLabel(target);
    if (toAdd.length === 0) {
      // Run again in a paused channel (someone fixed it): what waited for it goes out now.
      const resumed = await deps.store.channelPauses.resume(teamId, channelId);
      // Run again with customers:full after someone joined from outside: the admin confirms the channel anew.
      await confirmFull(ctx, check);
      return ctx.tell(
        `This channel is already subscribed to ${routeList(already)} for ${what} — ${check.confirm ? 'no route changed' : 'nothing changed'}.${resumed ? ' Posting here resumes: what waited for this channel goes out now.' : ''}${check.line ? ` ${check.line}` : ''}`,
      );
    }

    const api = await deps.platform.clientFor(teamId);
    const token = await ensureHookToken(deps.store, teamId);
    const hookUrl = hookUrlFor(publicUrl, token);

    const notice = await announce(ctx.client, channelId, confirmation(setUpBy(ctx), toAdd, what, check.line));
    if (notice === 'refused') return ctx.tell(notInChannel('Nothing was subscribed.'));
    // The bot can post here again (the notice went out), and this admin is the one told if that stops.
    await deps.store.channelPauses.resume(teamId, channelId);
    await deps.store.channelPauses.setSubscriber(teamId, channelId, ctx.userId);

    const done: Planned[] = [];
    let failure: Error | undefined;
    for (const { triggerName, filters } of toAdd) {
      const route: Route = { teamId, campaignId, triggerName, channelId, ...(filters ? { filters } : {}) };
      try {
        // One platform subscription per (campaign, event) serves every channel and outcome alert: only the first
        // route (or alert) makes it. Asked before this route is stored, which would count as needing it.
        const alerted = (await deps.store.outcomeAlerts.hooks(teamId)).some(
          (h) => h.campaignId === campaignId && h.triggerName === triggerName,
        );
        const hooked = alerted || (await deps.store.routes.isNeeded(teamId, campaignId, triggerName));
        // Replaces this channel's route of the same event: the latest subscribe sets its filters.
        await deps.store.routes.add(route);
        if (!hooked) await subscribeUpstream(ctx, api, { ...route, triggerName }, hookUrl);
        done.push({ triggerName, filters });
      } catch (err) {
        failure = err instanceof Error ? err : new Error(String(err));
        logFailure(ctx.logger, err, { campaignId, triggerName }, 'subscribe failed');
        break;
      }
    }

    if (failure !== undefined) {
      if (done.length > 0) await confirmFull(ctx, check);
      await correctNotice(
        ctx,
        notice,
        done.length > 0 ? confirmation(setUpBy(ctx), done, what, check.line) : undefined,
      );
      if (done.length === 0) {
        // A campaign the platform does not have: told here, with the known ones a typo away (already logged).
        if (failure instanceof NotFoundError) return ctx.tellFailure(failure, wording(target));
        throw failure;
      }
      const rest = toAdd.filter((p) => !done.some((d) => d.triggerName === p.triggerName));
      return ctx.tellFailure(
        failure,
        wording(target),
        `Subscribed this channel to ${routeList(done)} for ${what}, but not to ${routeList(rest)}:`,
      );
    }
    await confirmFull(ctx, check);
    const notes = [
      check.line,
      ...replacedNote(done.flatMap((d) => here.get(d.triggerName) ?? [])),
      ...filterNotes(parsed.filters, args.events.length === 0, done),
      already.length > 0 ? `(Already subscribed before: ${routeList(already)}.)` : '',
      typoNote(target),
      await pagingHint(ctx, done),
    ].filter(Boolean);
    await ctx.tell(
      `✅ This channel now receives ${routeList(done)} for ${what}.${notes.map((n) => ` ${n}`).join('')} See \`/campaign subscriptions\`.`,
    );
  },
};

/**
 * Asks the platform to send the route's event to the hook; when it refuses (or cannot be reached), the route,
 * stored just before, goes again (no other route of the event existed, else the hook was there) and the
 * failure is thrown for the user's sentence.
 */
async function subscribeUpstream(
  ctx: CommandContext,
  api: CampaignClient,
  route: Route & { triggerName: SubscribableTrigger },
  hookUrl: string,
): Promise<void> {
  const { campaignId, triggerName } = route;
  try {
    await api.webhooks.subscribe({ hookUrl, campaignId, triggerName });
  } catch (err) {
    await ctx.deps.store.routes.remove(route);
    throw err;
  }
  ctx.logger.info({ campaignId, triggerName }, 'platform webhook subscribed');
}

interface Planned {
  triggerName: SubscribableTrigger;
  filters: RouteFilters | undefined;
}

/** What the filters mean for the events subscribed, where a manager could expect otherwise. */
function filterNotes(filters: RouteFilters | undefined, defaultEvents: boolean, done: readonly Planned[]): string[] {
  if (!filters) return [];
  const notes: string[] = [];
  if (hasCallOnlyFilters(filters)) {
    if (defaultEvents)
      notes.push(
        'Only `call_completed` has a status, ended reason and duration (and a summary), so it is the event subscribed.',
      );
    if (done.some((d) => d.triggerName.startsWith('message_')))
      notes.push(
        'Chat messages have no status, ended reason, summary nor duration: those filters apply to calls only.',
      );
  }
  if (filters.notify && done.some((d) => d.triggerName.startsWith('message_')))
    notes.push('`notify:` mentions people in call posts; handoff threads mention whom `/campaign handoff-sla` names.');
  notes.push('An event that does not carry a filtered field is not posted here.');
  return notes;
}

/** Customer chats routed here, and nobody paged as one arrives: how to page the team. */
async function pagingHint(ctx: CommandContext, done: readonly Planned[]): Promise<string> {
  if (!done.some((d) => d.triggerName === 'message_received')) return '';
  if (pagedOnArrival(await ctx.deps.store.handoffSla.get(ctx.teamId, ctx.channelId))) return '';
  return 'Nobody is paged when a customer chat arrives here: run `/campaign handoff-sla 5 @support` to page your team when a chat arrives.';
}

/** Routes of the same events this channel had: the new ones replace them. */
function replacedNote(before: readonly Route[]): string[] {
  if (before.length === 0) return [];
  return [`It replaces what this channel had: ${routeList(before)} (the latest subscribe sets a channel’s filters).`];
}

function wording(target: CampaignTarget): FailureWording {
  return {
    notFound:
      target.by === 'unseen'
        ? unknownCampaign(target)
        : `The platform has no campaign ${code(target.id)} — check the id.`,
  };
}

/** Subscribed to an id the bot never saw, a typo away from one it knows: events may never come. */
function typoNote(target: CampaignTarget): string {
  const note = unseenNote(target).trim();
  return note
    ? `${note} If so, run \`/campaign unsubscribe ${escapeMrkdwn(target.id.replace(/`/g, ''))}\` and subscribe to that one.`
    : '';
}

/** The channel's notice: who is mentioned and who set it up are named, never mentioned (it pages nobody). */
function confirmation(by: string, routes: readonly Planned[], what: string, audienceLine: string): string {
  const line = `📣 This channel now receives ${routeList(routes)} events for ${what} (set up by ${by}).`;
  return audienceLine ? `${line}\n${audienceLine}` : line;
}

/** Posts the confirmation; `refused` when the channel refuses the app. Other Slack errors are thrown. */
async function announce(
  client: WebClient,
  channel: string,
  text: string,
): Promise<{ channel: string; ts: string } | 'refused'> {
  try {
    return { channel, ts: await postMessage(client, { channel }, { text }) };
  } catch (err) {
    if (isChannelRefusal(slackErrorCode(err))) return 'refused';
    throw err;
  }
}

/** After a failure the channel must not claim more than is true: rewrite the notice, or remove it. */
async function correctNotice(
  ctx: CommandContext,
  notice: { channel: string; ts: string },
  text: string | undefined,
): Promise<void> {
  if (!notice.ts) return;
  try {
    if (text) await updateMessage(ctx.client, notice, { text });
    else await deleteMessage(ctx.client, notice);
  } catch (err) {
    ctx.logger.warn({ err }, 'could not correct the subscription notice');
  }
}
