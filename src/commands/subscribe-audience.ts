/**
 * What `subscribe` does about who can read the channel (`app/channel-audience.ts`). Learned from Slack as the
 * route is set up. In a channel with guests or another organisation in it, posts mask customers' numbers and
 * e-mails; customer chats — the customer's own words — are routed there only with `customers:full`, an
 * admin's explicit word that everyone there may read them, which shows customers in full (logged, no customer
 * data). A guest or organisation that joins later masks the channel again until an admin runs `subscribe …
 * customers:full` there once more.
 */
import { audienceWords } from '../app/channel-audience.js';
import { isRestricted, showsCustomerData, type ChannelAudience } from '../store/index.js';
import { escapeMrkdwn } from '../slack/blocks.js';
import type { CommandContext } from './types.js';

/** How long `subscribe` waits for the channel to be judged before answering (Slack's answer within 2 s). */
const JUDGED_WITHIN_MS = 1_500;

export type AudienceCheck =
  | { ok: false; sentence: string }
  | {
      ok: true;
      audience: ChannelAudience;
      /** The admin's `customers:full` is to be recorded once the routes are stored. */
      confirm: boolean;
      /** Who is in the channel and what the bot does about it, for the admin and the channel's notice. */
      line: string;
    };

/** Learns the channel, and refuses customer chats into a restricted channel without `customers:full`. */
export async function checkAudience(
  ctx: CommandContext,
  events: readonly string[],
  full: boolean,
  campaignWord: string,
): Promise<AudienceCheck> {
  const ws = { teamId: ctx.teamId, enterpriseId: ctx.enterpriseId };
  const audience = await ctx.deps.audiences.learnWithin(ctx.client, ws, ctx.channelId, JUDGED_WITHIN_MS);
  // Not known yet — Slack is still being asked, or could not say (the bot may not even be in the channel: the
  // notice will tell): masked meanwhile, and the channel is told once it is known to have guests. An admin's
  // `customers:full` covers whoever is found there.
  if (audience.unknown)
    return {
      ok: true,
      audience,
      confirm: full,
      line: full
        ? ''
        : 'The bot is still learning from Slack who is in this channel: its posts here are masked until it knows.',
    };
  if (!isRestricted(audience)) return { ok: true, audience, confirm: full, line: '' };
  const who = audienceWords(audience);
  const chats = events.some((e) => e.startsWith('message_'));
  if (chats && !full) {
    const calls = events.filter((e) => e.startsWith('call_'));
    const word = escapeMrkdwn(campaignWord.replace(/`/g, ''));
    return {
      ok: false,
      sentence:
        `This channel has ${who} in it, so customer chats (the customer’s own words, number and e-mail) are not routed here unless an admin accepts that everyone here may read them: add \`customers:full\` (\`/campaign subscribe ${word} ${events.join(' ')} customers:full\`), ` +
        `or route chats to a channel of full members only${calls.length > 0 ? ` and subscribe ${calls.map((c) => `\`${c}\``).join(' ')} here, masked` : ''}. Nothing was subscribed.`,
    };
  }
  if (full || showsCustomerData(audience))
    return {
      ok: true,
      audience,
      confirm: true,
      line: `⚠️ This channel has ${who} in it: with \`customers:full\`, the bot’s posts here show customers’ numbers, e-mails and words in full to all of them. Anyone who joins later from outside the workspace masks them again until an admin subscribes with \`customers:full\` here again.`,
    };
  return {
    ok: true,
    audience,
    confirm: false,
    line: `🔒 This channel has ${who} in it, so the bot masks customers’ phone numbers and e-mails in its posts here (+1 ••• ••• 9876).`,
  };
}

/** Records the admin's `customers:full` for the channel as it is now. */
export async function confirmFull(ctx: CommandContext, check: AudienceCheck & { ok: true }): Promise<void> {
  if (!check.confirm) return;
  const ws = { teamId: ctx.teamId, enterpriseId: ctx.enterpriseId };
  await ctx.deps.audiences.confirmFull(ws, ctx.channelId, check.audience, ctx.userId);
}
