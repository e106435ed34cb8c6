/**
 * Sentences the subcommands that post in their channel share (subscribe, digest, quota-alert, alert).
 */
import { escapeMrkdwn } from '../slack/blocks.js';
import type { CommandContext } from './types.js';

/**
 * Who set something up, for the channel's confirmation: their name as plain text, never `<@U…>` — a setup
 * notice pages nobody, its author included.
 */
export function setUpBy(ctx: Pick<CommandContext, 'userName'>): string {
  const name = ctx.userName.replace(/[`<>*_~]/g, '').trim();
  return name ? escapeMrkdwn(name) : 'an admin';
}

/** The channel refused the bot's post (src/delivery/slack-errors.ts); `outcome` says what was (not) done. */
export function notInChannel(outcome: string): string {
  return `I can’t post in this channel — I’m not a member of it (or it is archived, or closed to apps): run \`/invite @Campaign\` in this channel (or let apps post in it), then run the command again. ${outcome}`;
}

/** `every 15 minutes` from QUOTA_CHECK_S. */
export function checkInterval(seconds: number): string {
  if (seconds % 3600 === 0) return seconds === 3600 ? 'every hour' : `every ${seconds / 3600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? 'every minute' : `every ${seconds / 60} minutes`;
  return `every ${seconds} seconds`;
}
