/**
 * Slack's word that a channel's audience changed — someone joined or left, it was shared with another
 * organisation or unshared — kept in the store (`ChannelAudiences`), so the next post is masked or not without
 * asking Slack. A channel that showed customers in full and masks them from now on is told so, once, in a post
 * that says how an admin shows them in full again.
 */
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { createHash } from 'node:crypto';
import type { Deps } from '../app/deps.js';
import type { Workspace } from '../app/membership.js';
import { audienceWords } from '../app/channel-audience.js';
import { context, message, section } from '../slack/blocks.js';

/** The "now masked" notice's mark outlives any retry of the event that caused it. */
const NOTICE_MARK_TTL_MS = 24 * 3600_000;

export function register(app: App, deps: Deps): void {
  const ws = (teamId: string | undefined, enterpriseId: string | undefined): Workspace | undefined =>
    teamId ? { teamId, enterpriseId } : undefined;

  app.event('member_joined_channel', async ({ event, client, context: ctx }) => {
    const at = ws(ctx.teamId, ctx.enterpriseId);
    if (!at || event.user === ctx.botUserId) return;
    if (await deps.audiences.memberJoined(client, at, event.channel, event.user))
      await tellMasked(deps, client, at, event.channel, event.event_ts);
  });
  app.event('member_left_channel', async ({ event, context: ctx }) => {
    const at = ws(ctx.teamId, ctx.enterpriseId);
    if (at) await deps.audiences.memberLeft(at, event.channel, event.user);
  });
  app.event('channel_shared', async ({ event, client, context: ctx }) => {
    const at = ws(ctx.teamId, ctx.enterpriseId);
    if (at && (await deps.audiences.sharingChanged(client, at, event.channel)))
      await tellMasked(deps, client, at, event.channel, event.event_ts);
  });
  app.event('channel_unshared', async ({ event, client, context: ctx }) => {
    const at = ws(ctx.teamId, ctx.enterpriseId);
    if (at) await deps.audiences.sharingChanged(client, at, event.channel);
  });
}

async function tellMasked(
  deps: Deps,
  client: WebClient,
  ws: Workspace,
  channelId: string,
  eventTs: string,
): Promise<void> {
  const audience = await deps.store.channelAudiences.get(ws.teamId, channelId);
  if (!audience) return;
  const id = `${channelId}:${eventTs}`;
  const text = `🔒 ${audienceWords(audience)} can now read this channel, so from now on the bot masks customers’ phone numbers and e-mails in its posts here (+1 ••• ••• 9876).`;
  try {
    await deps.posts.post(
      client,
      { channel: channelId },
      message(text, [
        section(text),
        context(
          'If everyone here may see customer details, an admin can run `/campaign subscribe &lt;campaign&gt; customers:full` here to show them in full again.',
        ),
      ]),
      {
        teamId: ws.teamId,
        mark: deps.store.keys.dedup(ws.teamId, 'audience-notice', id),
        key: createHash('sha256').update(`audience:${id}`).digest('base64url').slice(0, 22),
        ttlMs: NOTICE_MARK_TTL_MS,
      },
    );
  } catch (err) {
    // The masking holds whether or not the notice went out.
    deps.logger.warn({ err, team: ws.teamId, channel: channelId }, 'could not tell a channel its posts are masked now');
  }
}
