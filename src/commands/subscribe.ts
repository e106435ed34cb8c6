/**
 * `/campaign subscribe <campaignId|*> [events…]` (admins): routes those events of that campaign to this
 * channel and makes sure the platform sends them (POST /events-gateway/trigger/subscribe, once per event,
 * to this workspace's hook URL).
 *
 * Order of work, so that a failure leaves nothing half-made:
 * 1. checks that need no I/O (event names, PUBLIC_URL), then what is already routed here;
 * 2. the confirmation post in the channel — which is also the membership check (the manifest has no
 *    channels:read): `not_in_channel` → ask for `/invite @Campaign`, nothing stored, nothing subscribed;
 * 3. per event: the platform subscription (skipped when another channel's route already needs it), then
 *    the route. A failure stops there; the confirmation is corrected (or removed) to say only what is true.
 */
import type { WebClient } from '@slack/web-api';
import { ensureHookToken, hookUrlFor, SUBSCRIBABLE_TRIGGERS, type SubscribableTrigger } from '../events/index.js';
import { slackErrorCode } from '../slack/post.js';
import { campaignPhrase, eventList } from '../events/subscription-text.js';
import { escapeMrkdwn } from '../slack/blocks.js';
import { describeFailure, logFailure, type FailureWording } from '../app/failure.js';
import { parseRouteArguments } from './route-arguments.js';
import type { CommandContext, Subcommand } from './types.js';

export const NOT_IN_CHANNEL =
  'I’m not a member of this channel yet, so I couldn’t post here — run `/invite @Campaign` in this channel, then run the command again. Nothing was subscribed.';

export function noPublicUrl(what: string): string {
  return `${what} needs this bot’s public address, and none is configured: ask whoever runs the bot to set \`PUBLIC_URL\` (the https address the platform can reach, e.g. \`https://bot.example.com\`) and restart it.`;
}

export const subscribe: Subcommand = {
  name: 'subscribe',
  usage: 'subscribe <campaignId|*> [events…]',
  summary: 'post a campaign’s call and chat events in this channel (default: all four)',
  admin: true,
  args: { min: 1, max: 1 + SUBSCRIBABLE_TRIGGERS.length * 2 },
  failures: wording,
  async run(ctx) {
    const { deps, teamId, channelId } = ctx;
    const parsed = parseRouteArguments(ctx.args, SUBSCRIBABLE_TRIGGERS);
    if (!parsed.ok) return ctx.tell(parsed.sentence);
    const { campaignId, events } = parsed;
    const publicUrl = deps.config.publicUrl;
    if (!publicUrl) return ctx.tell(`${noPublicUrl('Subscribing to events')} Nothing was subscribed.`);

    const wanted = events.length > 0 ? events : [...SUBSCRIBABLE_TRIGGERS];
    const here = new Set(
      (await deps.store.routes.listForChannel(teamId, channelId)).filter((r) => r.campaignId === campaignId).map((r) => r.triggerName),
    );
    const already = wanted.filter((e) => here.has(e));
    const toAdd = wanted.filter((e) => !here.has(e));
    const what = campaignPhrase(campaignId);
    if (toAdd.length === 0) {
      return ctx.tell(`This channel is already subscribed to ${eventList(already)} for ${what} — nothing changed.`);
    }

    const api = await deps.platform.clientFor(teamId);
    const token = await ensureHookToken(deps.store, teamId, deps.redactor);
    const hookUrl = hookUrlFor(publicUrl, token);

    const notice = await announce(ctx.client, channelId, confirmation(ctx.userId, toAdd, what));
    if (notice === 'not_in_channel') return ctx.tell(NOT_IN_CHANNEL);

    const done: SubscribableTrigger[] = [];
    let failure: Error | undefined;
    for (const triggerName of toAdd) {
      try {
        // One platform subscription per (campaign, event) serves every channel: only the first route makes it.
        if (!(await deps.store.routes.isNeeded(teamId, campaignId, triggerName))) {
          await api.webhooks.subscribe({ hookUrl, campaignId, triggerName });
          ctx.logger.info({ campaignId, triggerName }, 'platform webhook subscribed');
        }
        await deps.store.routes.add({ teamId, campaignId, triggerName, channelId });
        done.push(triggerName);
      } catch (err) {
        failure = err instanceof Error ? err : new Error(String(err));
        logFailure(ctx.logger, err, { campaignId, triggerName }, 'subscribe failed');
        break;
      }
    }

    if (failure !== undefined) {
      await correctNotice(ctx, notice, done.length > 0 ? confirmation(ctx.userId, done, what) : undefined);
      if (done.length === 0) throw failure;
      const rest = toAdd.filter((e) => !done.includes(e));
      return ctx.tell(
        `Subscribed this channel to ${eventList(done)} for ${what}, but not to ${eventList(rest)}: ${describeFailure(failure, wording(ctx))}`,
      );
    }
    const also = already.length > 0 ? ` (Already subscribed before: ${eventList(already)}.)` : '';
    await ctx.tell(`✅ This channel now receives ${eventList(done)} for ${what}.${also} See \`/campaign subscriptions\`.`);
  },
};

function wording(ctx: CommandContext): FailureWording {
  const campaignId = ctx.args[0] ?? '';
  return { notFound: `The platform has no ${campaignPhrase(campaignId)} — check the id.` };
}

function confirmation(userId: string, events: readonly string[], what: string): string {
  return `📣 This channel now receives ${eventList(events)} events for ${what} (set up by <@${escapeMrkdwn(userId)}>).`;
}

/** Posts the confirmation; `not_in_channel` when the bot cannot post here. Other Slack errors are thrown. */
async function announce(client: WebClient, channel: string, text: string): Promise<{ channel: string; ts: string } | 'not_in_channel'> {
  try {
    const res = await client.chat.postMessage({ channel, text, unfurl_links: false });
    return { channel: res.channel ?? channel, ts: res.ts ?? '' };
  } catch (err) {
    const code = slackErrorCode(err);
    if (code === 'not_in_channel' || code === 'channel_not_found') return 'not_in_channel';
    throw err;
  }
}

/** After a failure the channel must not claim more than is true: rewrite the notice, or remove it. */
async function correctNotice(ctx: CommandContext, notice: { channel: string; ts: string }, text: string | undefined): Promise<void> {
  if (!notice.ts) return;
  try {
    if (text) await ctx.client.chat.update({ channel: notice.channel, ts: notice.ts, text });
    else await ctx.client.chat.delete({ channel: notice.channel, ts: notice.ts });
  } catch (err) {
    ctx.logger.warn({ err }, 'could not correct the subscription notice');
  }
}
