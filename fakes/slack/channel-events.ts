/**
 * What Slack does when a channel's audience changes: the stand-in's channel changes (conversations.members and
 * conversations.info answer accordingly from then on) and the Events API event is sent, signed, as Slack sends it.
 *
 * - member_joined_channel / member_left_channel: `user`, `channel`, `channel_type` (`C` or `G`), `team`
 *   (https://docs.slack.dev/reference/events/member_joined_channel,
 *   https://docs.slack.dev/reference/events/member_left_channel);
 * - channel_shared: `connected_team_id`, `channel`; channel_unshared: `previously_connected_team_id`,
 *   `channel`, `is_ext_shared` (still shared with someone else) (https://docs.slack.dev/reference/events/channel_shared,
 *   https://docs.slack.dev/reference/events/channel_unshared).
 */
import type { SignedResult, SlackSigner } from './signer.js';
import type { FakeSlack, SlackChannel } from './types.js';

function channelOf(fake: FakeSlack, id: string): SlackChannel {
  return fake.channel(id) ?? { id, is_member: true, is_private: id.startsWith('G') };
}

function channelType(c: SlackChannel): 'C' | 'G' {
  return c.is_private || c.id.startsWith('G') ? 'G' : 'C';
}

/** `user` joins `channelId`: listed by conversations.members, and member_joined_channel sent. */
export function memberJoinedChannel(
  fake: FakeSlack,
  signer: SlackSigner,
  channelId: string,
  user: string,
  opts: { inviter?: string } = {},
): Promise<SignedResult> {
  const c = channelOf(fake, channelId);
  fake.addChannel({ ...c, members: [...new Set([...(c.members ?? []), user])] });
  return signer.event({
    type: 'member_joined_channel',
    user,
    channel: channelId,
    channel_type: channelType(c),
    team: signer.teamId,
    ...(opts.inviter ? { inviter: opts.inviter } : {}),
  });
}

/** `user` leaves `channelId`: member_left_channel sent. */
export function memberLeftChannel(
  fake: FakeSlack,
  signer: SlackSigner,
  channelId: string,
  user: string,
): Promise<SignedResult> {
  const c = channelOf(fake, channelId);
  fake.addChannel({ ...c, members: (c.members ?? []).filter((u) => u !== user) });
  return signer.event({
    type: 'member_left_channel',
    user,
    channel: channelId,
    channel_type: channelType(c),
    team: signer.teamId,
  });
}

/** `channelId` is shared with another organisation's workspace `teamId`, whose `members` join it. */
export function channelShared(
  fake: FakeSlack,
  signer: SlackSigner,
  channelId: string,
  teamId: string,
  members: readonly string[] = [],
): Promise<SignedResult> {
  const c = channelOf(fake, channelId);
  fake.addChannel({ ...c, is_ext_shared: true, members: [...new Set([...(c.members ?? []), ...members])] });
  return signer.event({ type: 'channel_shared', connected_team_id: teamId, channel: channelId });
}

/** `channelId` is no longer shared with `teamId`, whose `members` leave it. */
export function channelUnshared(
  fake: FakeSlack,
  signer: SlackSigner,
  channelId: string,
  teamId: string,
  members: readonly string[] = [],
): Promise<SignedResult> {
  const c = channelOf(fake, channelId);
  fake.addChannel({ ...c, is_ext_shared: false, members: (c.members ?? []).filter((u) => !members.includes(u)) });
  return signer.event({
    type: 'channel_unshared',
    previously_connected_team_id: teamId,
    channel: channelId,
    is_ext_shared: false,
  });
}
