/**
 * `/campaign failed` (admins): the events this workspace received that could not be posted — dead letters,
 * newest first — with the reason in each channel, what to do about it, and a Retry button that posts one again
 * (in the channels that did not get it). Slack being slow or down never puts an event here: only what retrying
 * alone cannot fix (a channel the bot was removed from, a message Slack refused, an event the app cannot read).
 */
import { failureMessage, failureOf, logFailure } from '../app/failure.js';
import type { ChannelCause, DeadLetter } from '../store/index.js';
import { button, context, escapeMrkdwn, header, message, section, type KnownBlock } from '../slack/blocks.js';
import { code } from '../slack/text.js';
import { pauseAdvice } from '../delivery/channel-pause.js';
import { classOfSlackError, isChannelRefusal } from '../delivery/slack-errors.js';
import { adminButton } from './admin-button.js';
import type { Subcommand } from './types.js';

const RETRY_ACTION = 'dead_letter_retry';
const RESUME_ACTION = 'channel_resume';
/** Listed in one answer (a block each, within a message's 50 with the paused channels). */
const MAX_LISTED = 15;
const MAX_PAUSED_LISTED = 10;
const CHANNEL_ID = /^[CGD][A-Z0-9]{2,}$/;

/** What an admin can do about a channel's cause. */
function advice(error: string, channel: string): string {
  if (isChannelRefusal(error) && CHANNEL_ID.test(channel)) return `${pauseAdvice(channel, error)}, then Retry`;
  switch (classOfSlackError(error)) {
    case 'payload':
      return 'Slack refused the message itself — Retry will not help; the event is kept here for reference';
    case 'workspace':
      return 'the app is not installed in this workspace any more — reinstall it, then Retry';
    default:
      return 'Retry once the cause is fixed';
  }
}

function channelRef(channel: string): string {
  return CHANNEL_ID.test(channel) ? `<#${channel}>` : (code(channel) ?? '—');
}

function causeLines(letter: DeadLetter): string[] {
  const causes: ChannelCause[] = letter.causes ?? [];
  if (causes.length === 0) return [`• ${escapeMrkdwn(letter.error.slice(0, 300))}`];
  return causes
    .slice(0, 5)
    .map((c) => `• ${channelRef(c.channel)}: ${code(c.error.slice(0, 100))} — ${advice(c.error, c.channel)}`);
}

function triggerOf(letter: DeadLetter): string {
  const p = letter.payload as { trigger?: unknown; outbox?: { trigger?: unknown } } | null;
  const trigger = p?.trigger ?? p?.outbox?.trigger;
  return typeof trigger === 'string' ? trigger : 'event';
}

function letterBlocks(letter: DeadLetter): KnownBlock[] {
  const at = Math.floor(letter.failedAt / 1000);
  const head = `*${escapeMrkdwn(triggerOf(letter))}* · given up <!date^${at}^{date_short_pretty} at {time}|${new Date(letter.failedAt).toISOString()}> after ${letter.attempts} ${letter.attempts === 1 ? 'try' : 'tries'}`;
  return [
    section(`${head}\n${causeLines(letter).join('\n')}`, {
      accessory: button('Retry', RETRY_ACTION, { value: letter.id }),
    }),
  ];
}

export const failed: Subcommand = {
  name: 'failed',
  usage: 'failed',
  summary: 'events that could not be posted, why, and a Retry button',
  admin: true,
  args: { min: 0, max: 0 },
  async run(ctx) {
    const [{ entries }, paused] = await Promise.all([
      ctx.deps.store.queue.deadLetters(ctx.teamId, MAX_LISTED + 1),
      ctx.deps.store.channelPauses.list(ctx.teamId),
    ]);
    if (entries.length === 0 && paused.length === 0) {
      await ctx.tell('No event is waiting here: everything this workspace received was posted (or is on its way).');
      return;
    }
    const blocks: KnownBlock[] = [
      header('Events that could not be posted'),
      context('Newest first. Slack being slow or down never lands an event here — only what needs someone to act.'),
      ...(await Promise.all(
        paused.slice(0, MAX_PAUSED_LISTED).map(async (p) => {
          const waiting = await ctx.deps.store.outbox.size({ teamId: ctx.teamId, channelId: p.channelId });
          const calls = waiting > 0 ? ` ${waiting} post${waiting === 1 ? ' waits' : 's wait'} for it.` : '';
          return section(
            `⏸️ Posting in <#${p.channelId}> is paused: ${pauseAdvice(p.channelId, p.reason)}, then press *Resume*.${calls}`,
            { accessory: button('Resume', RESUME_ACTION, { value: p.channelId }) },
          );
        }),
      )),
      ...entries.slice(0, MAX_LISTED).flatMap(letterBlocks),
    ];
    if (entries.length > MAX_LISTED) blocks.push(context(`…and more: retry these first to see the rest.`));
    await ctx.reply(message(`${entries.length} event(s) could not be posted`, blocks));
  },
  register(app, deps) {
    adminButton(app, deps, RESUME_ACTION, 'resume posting in a channel', async ({ teamId, userId, value, respond }) => {
      // What waited goes out within seconds; if Slack still refuses, the channel is paused again (and told).
      const resumed = CHANNEL_ID.test(value) && (await deps.store.channelPauses.resume(teamId, value));
      deps.logger.info({ team: teamId, user: userId, channel: value, resumed }, 'channel resumed');
      await respond({
        replace_original: false,
        text: resumed
          ? `▶️ Posting in <#${value}> resumes: what waited for it goes out now. If Slack still refuses it, you will be told again.`
          : 'That channel is not paused any more — run `/campaign failed` to see what is left.',
      });
    });
    adminButton(app, deps, RETRY_ACTION, 'post failed events again', async ({ teamId, userId, value, respond }) => {
      const log = { team: teamId, user: userId, deadLetter: value };
      try {
        const outcome = await deps.surfaces.retryDeadLetter(teamId, value);
        deps.logger.info({ ...log, outcome }, 'dead letter retried');
        await respond({ replace_original: false, text: RETRY_ANSWERS[outcome] });
      } catch (err) {
        logFailure(deps.logger, err, log, 'dead letter retry failed');
        await respond({ replace_original: false, ...failureMessage(failureOf(err)) });
      }
    });
  },
};

const RETRY_ANSWERS = {
  queued: '🔁 Queued again: it will be posted in a moment, in the channels that did not get it.',
  gone: 'That event is not in the list any more — someone retried it already. Run `/campaign failed` to see what is left.',
  full: 'This workspace has too many events waiting to be posted right now — try again in a few minutes.',
  unreadable:
    'This version of the app cannot read that event, so it cannot post it again. It stays in the list for reference.',
} as const;
