/**
 * Sentences the subcommands that post in their channel share (subscribe, digest, quota-alert, alert).
 */

/** The bot could not post in the channel; `outcome` says what was (not) done. */
export function notInChannel(outcome: string): string {
  return `I can’t post in this channel — I’m not a member of it (or it is archived): run \`/invite @Campaign\` in this channel, then run the command again. ${outcome}`;
}

/** `every 15 minutes` from QUOTA_CHECK_S. */
export function checkInterval(seconds: number): string {
  if (seconds % 3600 === 0) return seconds === 3600 ? 'every hour' : `every ${seconds / 3600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? 'every minute' : `every ${seconds / 60} minutes`;
  return `every ${seconds} seconds`;
}
