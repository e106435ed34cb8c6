/**
 * Slack's word that a channel's audience changed — someone joined or left, it was shared with another
 * organisation or unshared — or that a person's standing did (team_join, user_change, user_guest_status_changed:
 * a member made a guest, a guest made a member), kept in the store (`ChannelAudiences`), so the next post is
 * masked or not without asking Slack. A channel that showed customers in full and masks them from now on is told
 * so, once, in a post that says how an admin shows them in full again (`app/audience-notice.ts`).
 */
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Deps } from '../app/deps.js';
import type { SlackUserFacts, Workspace } from '../app/membership.js';

export function register(app: App, deps: Deps): void {
  const ws = (teamId: string | undefined, enterpriseId: string | undefined): Workspace | undefined =>
    teamId ? { teamId, enterpriseId } : undefined;

  app.event('member_joined_channel', async ({ event, client, context: ctx }) => {
    const at = ws(ctx.teamId, ctx.enterpriseId);
    if (at && event.user !== ctx.botUserId)
      await deps.audiences.memberJoined(client, at, event.channel, event.user, event.event_ts);
  });
  app.event('member_left_channel', async ({ event, context: ctx }) => {
    const at = ws(ctx.teamId, ctx.enterpriseId);
    if (at) await deps.audiences.memberLeft(at, event.channel, event.user);
  });
  app.event('channel_shared', async ({ event, client, context: ctx }) => {
    const at = ws(ctx.teamId, ctx.enterpriseId);
    if (at) await deps.audiences.sharingChanged(client, at, event.channel);
  });
  app.event('channel_unshared', async ({ event, client, context: ctx }) => {
    const at = ws(ctx.teamId, ctx.enterpriseId);
    if (at) await deps.audiences.sharingChanged(client, at, event.channel);
  });
  // Each carries the person's user object as it is now (https://docs.slack.dev/reference/events/team_join,
  // …/user_change, …/user_guest_status_changed); Slack sends user_change for any profile edit, and the roster
  // acts only when their standing changed.
  const personChanged = async ({ event, client, context: ctx }: PersonEventArgs) => {
    const at = ws(ctx.teamId, ctx.enterpriseId);
    const user = (event as { user?: SlackUserFacts & { id?: unknown } }).user;
    if (at && typeof user?.id === 'string') await deps.audiences.personChanged(client, at, { ...user, id: user.id });
  };
  app.event('team_join', personChanged);
  app.event('user_change', personChanged);
  app.event('user_guest_status_changed', personChanged);
}

/** What the three events share (Bolt's types do not know user_guest_status_changed yet). */
interface PersonEventArgs {
  event: object;
  client: WebClient;
  context: { teamId?: string | undefined; enterpriseId?: string | undefined };
}
