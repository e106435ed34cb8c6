/**
 * Handoff: a support agent answers a customer's chat from the conversation's thread.
 *
 * - worker side (`deliveries.ts`, `threads.ts`, `card.ts`): a card per conversation and routed channel, its
 *   messages in the card's thread, the platform's echo of a Slack reply dropped, closing on session end;
 * - `message` events (channels the bot is in: message.channels / message.groups): human replies in a
 *   conversation thread go to the customer through send-human-response (`relay.ts`);
 * - the Retry / Send again button under a "not sent" notice sends the same reply again, once;
 * - the Link session button and modal store the chat session for a thread (`link-session.ts`);
 * - Claim / Unclaim / Take over on the card (`claim.ts`); Resolve / Reopen (`resolve.ts`); Quick reply, a
 *   saved reply sent like a thread reply (`quick-reply.ts`); the customer's wait and the SLA nudge, a
 *   store-kept `handoff-sla` timer per thread (`waiting.ts`);
 * - files in a reply go to the customer as expiring links (`attachments.ts`), served by `GET /attachments/<token>`
 *   (`attachment-route.ts`, registered by the composition root beside the other routes).
 */
import type { App } from '@slack/bolt';
import { z } from 'zod';
import type { Deps } from '../app/deps.js';
import { ourFault } from '../app/failure.js';
import type { Events } from '../events/index.js';
import { postToResponseUrl } from '../slack/response-url.js';
import { registerChatHandlers } from './deliveries.js';
import { registerLinkSession } from './link-session.js';
import { RETRY_ACTION } from './notices.js';
import { ReplyRelay } from './relay.js';
import { registerClaim } from './claim.js';
import { registerQuickReply } from './quick-reply.js';
import { registerResolve } from './resolve.js';
import { SLA_TIMER, Waiting } from './waiting.js';
import { ThreadPosts } from './thread-posts.js';

export { attachmentRoute } from './attachment-route.js';
export { LINK_SESSION_CALLBACK } from './link-session.js';
export { QUICK_REPLY_CALLBACK, QUICK_REPLY_PICK_ACTION } from './quick-reply.js';
export { RETRY_ACTION } from './notices.js';

const retryValueSchema = z.object({ c: z.string().min(1), t: z.string().min(1), r: z.string().min(1) });

const retryBodySchema = z.looseObject({
  user: z.looseObject({ id: z.string(), team_id: z.string().nullish() }),
  team: z.looseObject({ id: z.string(), enterprise_id: z.string().nullish() }).nullish(),
  enterprise: z.looseObject({ id: z.string() }).nullish(),
  channel: z.looseObject({ id: z.string() }).nullish(),
  container: z
    .looseObject({
      message_ts: z.string().nullish(),
      channel_id: z.string().nullish(),
      thread_ts: z.string().nullish(),
    })
    .nullish(),
  message: z.looseObject({ thread_ts: z.string().nullish() }).nullish(),
  actions: z.array(z.looseObject({ action_id: z.string(), value: z.string().nullish() })),
  response_url: z.string().nullish(),
});

export function register(app: App, deps: Deps, events: Pick<Events, 'on' | 'bulk'>): void {
  const log = deps.logger.child({ component: 'handoff' });
  const waiting = new Waiting(deps.store, deps.config.handoff.slaS, deps.posts, events.bulk, log);
  registerChatHandlers(events, waiting, deps.audiences);
  const posts = new ThreadPosts(deps.store, deps.posts, events.bulk, log);
  const relay = new ReplyRelay(deps, waiting, posts);
  deps.timers.on(SLA_TIMER, (timer, now) => waiting.fire(timer.id, now));

  app.event('message', async ({ event, body, context, client }) => {
    const teamId = context.teamId ?? body.team_id;
    try {
      await relay.onMessageEvent(event, {
        teamId,
        enterpriseId: context.enterpriseId,
        eventId: body.event_id,
        retryNum: context.retryNum,
        botUserId: context.botUserId,
        client,
      });
    } catch (err) {
      // Bolt has acked already; nothing to tell Slack. The reply keeps its claim: it is never sent twice.
      log.error({ err, team: teamId, eventId: body.event_id }, 'handling a message event for handoff threads failed');
    }
  });

  app.action(RETRY_ACTION, async ({ ack, body, client }) => {
    await ack();
    const parsed = retryBodySchema.safeParse(body);
    if (!parsed.success) return;
    const b = parsed.data;
    const action = b.actions.find((a) => a.action_id === RETRY_ACTION);
    let value: z.output<typeof retryValueSchema> | undefined;
    try {
      value = retryValueSchema.safeParse(JSON.parse(action?.value ?? '')).data;
    } catch {
      value = undefined;
    }
    if (!value) return;
    const teamId = b.team?.id ?? '';
    // An ephemeral notice can't be updated with chat.update; its response_url replaces it.
    const privateNotice = b.container?.is_ephemeral ? (b.response_url ?? undefined) : undefined;
    let sentence: string | undefined;
    if (!clickedIn(b, value)) {
      // The value comes back through the user's client: it may only name the thread its notice sits in.
      log.warn(
        { team: teamId, user: b.user.id, channel: b.channel?.id ?? b.container?.channel_id, named: value.c },
        'a Send again button named another thread than its own: refused',
      );
      sentence =
        'That button does not belong to this conversation, so nothing was sent — use the *Send again* button under the reply’s own notice.';
    } else {
      try {
        sentence = await relay.retry(
          { channel: value.c, threadTs: value.t, replyTs: value.r },
          {
            teamId,
            enterpriseId: b.enterprise?.id ?? b.team?.enterprise_id ?? undefined,
            userId: b.user.id,
            userTeam: b.user.team_id ?? undefined,
          },
          client,
          privateNotice
            ? {
                replacePrivate: (notice) =>
                  postToResponseUrl(
                    privateNotice,
                    { replace_original: true, text: notice.text, blocks: notice.blocks },
                    log,
                    deps.config.slack,
                  ),
              }
            : { ts: b.container?.message_ts ?? undefined },
        );
      } catch (err) {
        log.error({ err, team: teamId, channel: value.c, reply: value.r }, 'retrying a handoff reply failed');
        sentence = ourFault('sending that reply');
      }
    }
    if (sentence && b.response_url) {
      await postToResponseUrl(
        b.response_url,
        { response_type: 'ephemeral', replace_original: false, text: sentence },
        log,
        deps.config.slack,
      );
    }
  });

  registerLinkSession(app, deps);
  registerClaim(app, deps, posts);
  registerResolve(app, deps);
  registerQuickReply(app, deps, relay);
}

/** Whether a Retry value names the channel and thread of the message its button was clicked on. */
function clickedIn(b: z.output<typeof retryBodySchema>, value: z.output<typeof retryValueSchema>): boolean {
  const channel = b.channel?.id ?? b.container?.channel_id;
  const threadTs = b.message?.thread_ts ?? b.container?.thread_ts;
  return channel === value.c && threadTs === value.t;
}
