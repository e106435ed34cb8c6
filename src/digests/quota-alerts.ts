/**
 * Quota alerts: a channel names thresholds (percent of the month's allowance); every QUOTA_CHECK_S (at the
 * workspace's own phase of the period) one replica reads the quota (one `quota-alert` timer per channel) and posts when usage has crossed a threshold
 * not yet posted this month. A "posted" mark per (channel, month, threshold) makes each one post once; a
 * jump over several thresholds at once posts one card, for the highest.
 */
import type { WebClient } from '@slack/web-api';
import type { QuotaRow } from '../api/index.js';
import type { Deps } from '../app/deps.js';
import { logFailure } from '../app/failure.js';
import type { DueTimer, QuotaAlertSetting } from '../store/index.js';
import type { Logger } from '../logger.js';
import { nextInCycle } from '../util/spread.js';
import { latestMonth } from '../views/usage.js';
import { monthId, renderQuotaAlert, usedPercent } from './card.js';
import { parseTimerId, timerId } from './digest.js';
import { postReport, reportOnce, REPORT_POSTS, type PostOutcome } from './post.js';

export const QUOTA_TIMER = 'quota-alert';
/** A month and a bit: a mark must outlive the month it is for. */
const MARK_TTL_MS = 40 * 86_400_000;

export async function setQuotaAlerts(
  deps: Deps,
  teamId: string,
  channelId: string,
  setting: QuotaAlertSetting,
): Promise<void> {
  await deps.store.reports.setQuotaAlert(teamId, channelId, setting);
  await deps.store.timers.set(QUOTA_TIMER, timerId(teamId, channelId), nextCheck(deps, teamId, deps.store.now()));
}

/** Returns whether the channel had alerts. */
export async function stopQuotaAlerts(deps: Deps, teamId: string, channelId: string): Promise<boolean> {
  await deps.store.timers.cancel(QUOTA_TIMER, timerId(teamId, channelId));
  return deps.store.reports.removeQuotaAlert(teamId, channelId);
}

export interface AlertCheck {
  /** Usage now, in percent of the allowance. */
  percent: number;
  /** Thresholds newly crossed and posted by this check. */
  posted: number[];
  /** Set when a post was due and Slack refused it. */
  refused?: Exclude<PostOutcome, { posted: true }>['reason'];
}

/** Compares this month's usage with the thresholds and posts the ones newly crossed. */
export async function checkQuotaAlerts(
  deps: Deps,
  client: WebClient,
  to: { teamId: string; channelId: string },
  thresholds: readonly number[],
  rows: readonly QuotaRow[],
  now: number,
): Promise<AlertCheck> {
  const row = latestMonth(rows);
  if (!row) return { percent: 0, posted: [] };
  const percent = usedPercent(row);
  const month = monthId(row, now);
  const fresh: number[] = [];
  for (const t of thresholds.filter((t) => percent >= t)) {
    if (await deps.store.reports.mark(QUOTA_TIMER, to.teamId, to.channelId, `${month}:${t}`, MARK_TTL_MS))
      fresh.push(t);
  }
  if (fresh.length === 0) return { percent, posted: [] };
  const unmark = () =>
    Promise.all(fresh.map((t) => deps.store.reports.unmark(QUOTA_TIMER, to.teamId, to.channelId, `${month}:${t}`)));
  let outcome: PostOutcome;
  try {
    outcome = await postReport(
      client,
      to.channelId,
      renderQuotaAlert(row, Math.max(...fresh), thresholds, now),
      reportOnce(deps, to, `quota:${month}:${fresh.join(',')}`),
    );
  } catch (err) {
    await unmark();
    throw err;
  }
  if (!outcome.posted) {
    // Not seen by anyone: post it once the bot can.
    await unmark();
    return { percent, posted: [], refused: outcome.reason };
  }
  return { percent, posted: fresh };
}

/** The `quota-alert` timer: check, then again in QUOTA_CHECK_S (or end when the channel is gone). */
export async function fireQuotaAlert(deps: Deps, timer: DueTimer, now: number): Promise<number | undefined> {
  const ref = parseTimerId(timer.id);
  if (!ref) return undefined;
  const setting = await deps.store.reports.quotaAlert(ref.teamId, ref.channelId);
  if (!setting) return undefined;
  const next = nextCheck(deps, ref.teamId, now);
  const logger = deps.logger.child({ team: ref.teamId, channel: ref.channelId, timer: QUOTA_TIMER });
  const client = await deps.slack.forTeam(ref.teamId, REPORT_POSTS);
  if (!client) {
    logger.warn('no Slack bot token for the workspace (uninstalled?): quota check skipped');
    return next;
  }
  const rows = await readQuota(deps, logger, ref.teamId);
  if (!rows) return next;
  const check = await checkQuotaAlerts(deps, client, ref, setting.thresholds, rows, now);
  if (check.posted.length > 0) logger.info({ percent: check.percent, thresholds: check.posted }, 'quota alert posted');
  if (check.refused === 'channel_gone') {
    logger.warn('the channel is archived or gone: its quota alerts end');
    await deps.store.reports.removeQuotaAlert(ref.teamId, ref.channelId);
    return undefined;
  }
  if (check.refused)
    logger.warn('the bot is not in the channel (removed?): quota alert not posted; kept for when it is invited back');
  return next;
}

/**
 * The workspace's next check, within QUOTA_CHECK_S: at its own phase of the period, so the workspaces' checks
 * are spread over it instead of all falling in one tick (as they would after an outage, fired together).
 */
function nextCheck(deps: Deps, teamId: string, after: number): number {
  return nextInCycle(after, deps.config.quotaCheckS * 1000, teamId);
}

/** The quota rows, or undefined when the platform cannot say right now (the next check tries again). */
async function readQuota(deps: Deps, logger: Logger, teamId: string): Promise<QuotaRow[] | undefined> {
  try {
    const api = await deps.platform.clientFor(teamId);
    return await api.quota.list();
  } catch (err) {
    logFailure(logger, err, {}, 'quota check: the quota could not be read; trying again at the next check');
    return undefined;
  }
}
