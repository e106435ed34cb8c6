/**
 * `/campaign quota-alert <percent…|off>` (admins): this channel is told once per month per threshold when
 * the month's usage crosses it (e.g. `80 90 100`). The quota is read at once — a threshold already crossed
 * is posted right away — and then every QUOTA_CHECK_S by the `quota-alert` timer.
 */
import { checkQuotaAlerts, postReport, setQuotaAlerts, stopQuotaAlerts } from '../digests/index.js';
import { escapeMrkdwn, message, section, truncate } from '../slack/blocks.js';
import { checkInterval, notInChannel, setUpBy } from './report-text.js';
import type { Subcommand } from './types.js';

const MAX_THRESHOLDS = 10;
const MAX_PERCENT = 1000;

export const quotaAlert: Subcommand = {
  name: 'quota-alert',
  usage: 'quota-alert <percent…|off>',
  summary: 'tell this channel when the month’s usage crosses these percentages, e.g. `80 90 100` (once each per month)',
  admin: true,
  args: { min: 1, max: MAX_THRESHOLDS },
  inChannel: 'Run it in the channel that should be told — a direct message can’t have quota alerts.',
  async run(ctx) {
    const { deps, teamId, channelId } = ctx;
    if (ctx.args.length === 1 && ctx.args[0]!.toLowerCase() === 'off') {
      const had = await stopQuotaAlerts(deps, teamId, channelId);
      return ctx.tell(
        had ? '✅ Quota alerts are off in this channel.' : 'This channel has no quota alerts — nothing changed.',
      );
    }
    const parsed = parseThresholds(ctx.args);
    if (typeof parsed === 'string') return ctx.tell(parsed);

    // Read first: a workspace that is not connected (or a platform that fails) sets nothing.
    const rows = await (await deps.platform.clientFor(teamId)).quota.list();
    const list = parsed.map((t) => `${t}%`).join(', ');
    const announcement = `📈 This channel now gets a quota alert when the month’s usage crosses ${list} of the allowance (set up by ${setUpBy(ctx)}).`;
    const notice = await postReport(ctx.client, channelId, message(announcement, [section(announcement)]));
    if (!notice.posted) return ctx.tell(notInChannel('No alerts were set.'));

    await setQuotaAlerts(deps, teamId, channelId, { thresholds: parsed, setBy: ctx.userId, setAt: deps.store.now() });
    const check = await checkQuotaAlerts(deps, { teamId, channelId }, parsed, rows, deps.store.now());
    // Rounded down like the usage bar, so both say the same.
    const now = Number.isFinite(check.percent)
      ? `${(Math.floor(check.percent * 10) / 10).toFixed(1)}%`
      : 'over an allowance of zero';
    const posted =
      check.crossed.length > 0
        ? ` It is past ${check.crossed.map((t) => `${t}%`).join(', ')} already: the alert is on its way.`
        : '';
    await ctx.tell(
      `✅ Quota alerts set at ${list}. Usage this month is at ${now}.${posted} I check ${checkInterval(deps.config.quotaCheckS)}.`,
    );
  },
};

/** Ascending, without repeats; a sentence saying what is wrong otherwise. */
function parseThresholds(words: readonly string[]): number[] | string {
  const values = new Set<number>();
  for (const word of words) {
    const m = /^(\d{1,4})%?$/.exec(word);
    const n = m ? Number(m[1]) : NaN;
    if (!(n >= 1 && n <= MAX_PERCENT)) {
      return `\`${escapeMrkdwn(truncate(word, 40))}\` is not a percentage: give whole numbers from 1 to ${MAX_PERCENT}, e.g. \`/campaign quota-alert 80 90 100\` (or \`off\`).`;
    }
    values.add(n);
  }
  return [...values].sort((a, b) => a - b);
}
