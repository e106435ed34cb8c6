/**
 * `/campaign digest <daily|weekly|off> [campaignId|*] [at HH:MM] [tz Area/City]`, `digest now`, `digest`:
 * a summary card in this channel on a schedule (admins), or at once; alone, this channel's schedule (all).
 *
 * Setting a schedule posts a notice in the channel first — the membership check (one call, and true of
 * private channels too): when the bot is not in the channel, nothing is scheduled.
 */
import { adminsOnly } from '../app/admin-gate.js';
import { ALL_CAMPAIGNS, DIGEST_CADENCES, type DigestCadence, type DigestSchedule } from '../store/index.js';
import { escapeMrkdwn, message, section, truncate } from '../slack/blocks.js';
import {
  DIGEST_TIMER,
  describeSchedule,
  isTimeZone,
  nextSlot,
  parseTimeOfDay,
  leaveDigest,
  postReport,
  scheduleDigest,
  slackTime,
  stopDigest,
  timerId,
} from '../digests/index.js';
import { pauseAdvice } from '../delivery/channel-pause.js';
import { checkInterval, notInChannel, setUpBy } from './report-text.js';
import { chooseCampaign, confirmCampaign } from './campaign-ref.js';
import type { CommandContext, Subcommand } from './types.js';

const USAGE = 'digest <daily|weekly|off|now> [campaignId|*] [at HH:MM] [tz Area/City]';
const DEFAULT_DIGEST_TIME = '09:00';

export const digest: Subcommand = {
  name: 'digest',
  usage: USAGE,
  summary:
    'a summary card in this channel — calls, bookings, quota — daily or weekly (Mondays), or `now`; alone: this channel’s schedule (admins set it)',
  args: { min: 0, max: 16 },
  adminWhen: (args) => args.length > 0,
  inChannel: 'Run it in the channel that gets (or should get) the digest — a direct message can’t have one.',
  async run(ctx) {
    const [mode = '', ...rest] = ctx.args;
    if (mode === '') return showSchedule(ctx);
    if (!(await ctx.deps.admins.isAdmin(ctx.client, ctx.teamId, ctx.userId))) {
      return ctx.tell(
        `${adminsOnly('set, stop or post digests')} \`/campaign digest\` alone shows this channel’s schedule.`,
      );
    }
    const word = mode.toLowerCase();
    if (word === 'off') return rest.length > 0 ? ctx.tell(`Usage: \`/campaign ${USAGE}\``) : turnOff(ctx);
    if (word === 'now') return postNow(ctx, rest);
    if ((DIGEST_CADENCES as readonly string[]).includes(word)) return setSchedule(ctx, word as DigestCadence, rest);
    return ctx.tell(
      `\`${escapeMrkdwn(truncate(mode, 40))}\` is not a digest schedule: use \`daily\`, \`weekly\` (Mondays), \`off\` or \`now\`, e.g. \`/campaign digest daily * at 09:00 tz Europe/Berlin\`.`,
    );
  },
};

async function showSchedule(ctx: CommandContext): Promise<void> {
  const { deps, teamId, channelId } = ctx;
  const [schedule, alerts, due] = await Promise.all([
    deps.store.reports.digest(teamId, channelId),
    deps.store.reports.quotaAlert(teamId, channelId),
    deps.store.timers.dueAt(DIGEST_TIMER, timerId(teamId, channelId)),
  ]);
  const lines = [
    schedule
      ? `🗞️ This channel gets a digest ${describeSchedule(schedule)}${due !== undefined ? `; the next one ${slackTime(due)}` : ''}.`
      : 'This channel gets no digest. An admin sets one with `/campaign digest daily` (or `weekly`, Mondays), e.g. `/campaign digest daily * at 09:00 tz Europe/Berlin`.',
    alerts
      ? `📈 Quota alerts at ${alerts.thresholds.map((t) => `${t}%`).join(', ')} of the month’s allowance, checked ${checkInterval(deps.config.quotaCheckS)}.`
      : 'No quota alerts here (admins: `/campaign quota-alert 80 90 100`).',
  ];
  await ctx.tell(lines.join('\n'));
}

async function turnOff(ctx: CommandContext): Promise<void> {
  const had = await stopDigest(ctx.deps, ctx.teamId, ctx.channelId);
  await ctx.tell(had ? '✅ This channel’s digest is stopped.' : 'This channel has no digest — nothing changed.');
}

async function postNow(ctx: CommandContext, rest: string[]): Promise<void> {
  const { deps, teamId, channelId } = ctx;
  const schedule = await deps.store.reports.digest(teamId, channelId);
  const choice = await chooseCampaign(deps, teamId, rest.join(' ') || (schedule?.campaignId ?? ALL_CAMPAIGNS), {
    allowAll: true,
  });
  if (!choice.ok) return ctx.tell(choice.sentence);
  if (!(await confirmCampaign(ctx, choice.target))) return;
  const campaignId = choice.target.id;
  await deps.platform.clientFor(teamId); // not connected: said once, privately, instead of a card saying it
  const what = { campaignId, cadence: schedule?.cadence };
  const now = deps.store.now();
  await leaveDigest(deps, ctx.logger, { teamId, channelId }, what, { slot: `now:${ctx.triggerId}`, order: now, now });
  ctx.logger.info({ campaignId }, 'digest made on demand; it waits for its channel');
  const pause = await deps.store.channelPauses.get(teamId, channelId);
  const when = pause
    ? `⏸️ The digest waits: posting here is paused — ${pauseAdvice(channelId, pause.reason)}. It goes out once this channel takes posts again.`
    : '🗞️ The digest is on its way to this channel.';
  await ctx.tell(
    schedule ? `${when} The scheduled digests go on; the next one shows the changes since this one.` : when,
  );
}

type Parsed = { ok: true; campaign: string; time?: string; timeZone?: string } | { ok: false; sentence: string };

/** `[campaignId|*] [at HH:MM] [tz Area/City]`, the options in any order after the campaign. */
function parseDigestOptions(words: readonly string[]): Parsed {
  const campaign: string[] = [];
  let time: string | undefined;
  let timeZone: string | undefined;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const key = word.toLowerCase();
    if (key === 'at') {
      const parsed = parseTimeOfDay(words[i + 1] ?? '');
      if (!parsed)
        return {
          ok: false,
          sentence: `${shown(words[i + 1])}is not a time of day: write \`at HH:MM\` in 24-hour form, e.g. \`at 09:00\` or \`at 17:30\`.`,
        };
      time = parsed.text;
      i++;
    } else if (key === 'tz') {
      const zone = words[i + 1] ?? '';
      if (!isTimeZone(zone)) {
        return {
          ok: false,
          sentence: `${shown(words[i + 1])}is not a time zone I know: write \`tz Area/City\` with an IANA name, e.g. \`tz Europe/Berlin\`, \`tz America/New_York\` or \`tz UTC\`.`,
        };
      }
      timeZone = zone;
      i++;
    } else if (time === undefined && timeZone === undefined) {
      campaign.push(word);
    } else {
      return {
        ok: false,
        sentence: `I didn’t understand \`${escapeMrkdwn(truncate(word, 40))}\`. Usage: \`/campaign ${USAGE}\``,
      };
    }
  }
  return {
    ok: true,
    campaign: campaign.length > 0 ? campaign.join(' ') : ALL_CAMPAIGNS,
    ...(time ? { time } : {}),
    ...(timeZone ? { timeZone } : {}),
  };
}

function shown(word: string | undefined): string {
  return word ? `\`${escapeMrkdwn(truncate(word, 40))}\` ` : 'That ';
}

async function setSchedule(ctx: CommandContext, cadence: DigestCadence, words: string[]): Promise<void> {
  const { deps, teamId, channelId } = ctx;
  const options = parseDigestOptions(words);
  if (!options.ok) return ctx.tell(options.sentence);
  const choice = await chooseCampaign(deps, teamId, options.campaign, { allowAll: true });
  if (!choice.ok) return ctx.tell(choice.sentence);
  if (!(await confirmCampaign(ctx, choice.target))) return;
  await deps.platform.clientFor(teamId); // a workspace that is not connected gets told now, not at 09:00
  const zone = options.timeZone ? { timeZone: options.timeZone, fallback: false } : await adminTimeZone(ctx);
  const schedule: DigestSchedule = {
    cadence,
    campaignId: choice.target.id,
    time: options.time ?? DEFAULT_DIGEST_TIME,
    timeZone: zone.timeZone,
    setBy: ctx.userId,
    setAt: deps.store.now(),
  };
  const next = nextSlot(deps.store.now(), schedule);
  const announcement = `🗞️ This channel now gets a digest ${describeSchedule(schedule)} (set up by ${setUpBy(ctx)}). The first one comes ${slackTime(next)}.`;
  const notice = await postReport(ctx.client, channelId, message(announcement, [section(announcement)]));
  if (!notice.posted) return ctx.tell(notInChannel('Nothing was scheduled.'));
  await scheduleDigest(deps, teamId, channelId, schedule);
  const zoneNote = zone.fallback
    ? ' I couldn’t read your Slack time zone, so it is UTC: add `tz Area/City` to change it.'
    : '';
  await ctx.tell(
    `✅ Digest set: ${describeSchedule(schedule)}, next ${slackTime(next)}.${zoneNote} \`/campaign digest now\` posts one at once.`,
  );
}

/** The admin's own Slack time zone (`users.info`), else UTC. */
async function adminTimeZone(ctx: CommandContext): Promise<{ timeZone: string; fallback: boolean }> {
  try {
    const res = await ctx.client.users.info({ user: ctx.userId });
    const tz = res.user?.tz;
    if (tz && isTimeZone(tz)) return { timeZone: tz, fallback: false };
  } catch (err) {
    ctx.logger.warn({ err }, 'users.info failed while reading the admin’s time zone');
  }
  return { timeZone: 'UTC', fallback: true };
}
