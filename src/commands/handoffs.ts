/**
 * `/campaign handoffs`: this workspace's open handoff conversations in channels the user is in, the
 * longest-waiting customer first — customer, campaign, owner, waiting time and a link to the thread.
 *
 * Always private: the list depends on who asks (private channels included), so it never goes to a channel.
 * Which channels: Slack's `users.conversations` for the user (public and private; through the bot's token
 * private ones are those the bot shares with the user, which every handoff channel is).
 */
import type { WebClient } from '@slack/web-api';
import { slackErrorCode } from '../slack/post.js';
import { context, header, message, section, type KnownBlock } from '../slack/blocks.js';
import { byLongestWait, onShiftLine, renderConversationLine, withPermalinks } from '../handoff/open-list.js';
import type { Subcommand } from './types.js';

/** One answer message: the longest waits, then a count of the rest. */
const MAX_LISTED = 25;
/** users.conversations pages (of 1,000) read at most: more channels than anyone is in. */
const MAX_PAGES = 10;

export const handoffs: Subcommand = {
  name: 'handoffs',
  usage: 'handoffs',
  summary: 'open handoff conversations in your channels, longest-waiting first',
  args: { min: 0, max: 0 },
  audience: 'members',
  async run(ctx) {
    const open = await ctx.deps.store.conversations.openThreads(ctx.teamId);
    const onShift = onShiftLine(await ctx.deps.store.shifts.onShift(ctx.teamId), ctx.userId);
    if (open.length === 0) {
      await ctx.tell(`No handoff conversation is open in this workspace right now. ${onShift}`);
      return;
    }
    let channels: Set<string>;
    try {
      channels = await channelsOf(ctx.client, ctx.userId);
    } catch (err) {
      ctx.logger.warn(
        { err, slackError: slackErrorCode(err) },
        'users.conversations failed while listing handoff conversations',
      );
      await ctx.tell(
        'Slack could not tell which channels you are in just now, so no conversations are listed — try again in a minute.',
      );
      return;
    }
    const visible = open.filter((t) => channels.has(t.channelId)).sort(byLongestWait);
    if (visible.length === 0) {
      await ctx.tell(
        `No handoff conversation is open in the channels you are in (${open.length} open elsewhere in this workspace). ${onShift}`,
      );
      return;
    }
    const now = ctx.deps.store.now();
    const listed = await withPermalinks(ctx.client, visible.slice(0, MAX_LISTED));
    const waiting = visible.filter((t) => t.waitingSince !== undefined).length;
    const blocks: KnownBlock[] = [
      header('Open handoff conversations'),
      context(`${visible.length} open in channels you are in · ${waiting} waiting for an answer · longest wait first`),
      context(onShift),
      ...listed.map((c) => section(renderConversationLine(c, now))),
    ];
    if (visible.length > MAX_LISTED) blocks.push(context(`…and ${visible.length - MAX_LISTED} more.`));
    await ctx.reply(message(`${visible.length} open handoff conversations, ${waiting} waiting for an answer`, blocks));
  },
};

async function channelsOf(client: WebClient, userId: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const res = await client.users.conversations({
      user: userId,
      types: 'public_channel,private_channel',
      exclude_archived: true,
      limit: 1000,
      ...(cursor ? { cursor } : {}),
    });
    for (const c of res.channels ?? []) if (c.id) ids.add(c.id);
    cursor = res.response_metadata?.next_cursor || undefined;
    if (!cursor) break;
  }
  return ids;
}
