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
import { postReport, reportOnce, type PostOutcome } from './post.js';

export const QUOTA_TIMER = 'quota-alert';
/** The kind of report a check's alert waits in its channel's outbox as. */
const QUOTA_POST = 'quota-alert';
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
  /** Thresholds newly crossed, whose alert this check left in the channel's outbox. */
  crossed: number[];
}

/** A quota alert made by a check: the month's row and the thresholds newly crossed (JSON: it may wait). */
interface QuotaAlertPost {
  row: QuotaRow;
  month: string;
  fresh: number[];
  thresholds: number[];
  now: number;
}

/** Marks the thresholds crossed and not yet posted this month; undefined when there is none. */
async function newlyCrossed(
  deps: Deps,
  to: { teamId: string; channelId: string },
  thresholds: readonly number[],
  rows: readonly QuotaRow[],
  now: number,
): Promise<{ percent: number; alert?: QuotaAlertPost }> {
  const row = latestMonth(rows);
  if (!row) return { percent: 0 };
  const percent = usedPercent(row);
  const month = monthId(row, now);
  const fresh: number[] = [];
  for (const t of thresholds.filter((t) => percent >= t)) {
    if (await deps.store.reports.mark(QUOTA_TIMER, to.teamId, to.channelId, `${month}:${t}`, MARK_TTL_MS))
      fresh.push(t);
  }
  if (fresh.length === 0) return { percent };
  return { percent, alert: { row, month, fresh, thresholds: [...thresholds], now } };
}

/** Lets the alert's thresholds post again (it was not posted: nobody saw it). */
async function unmark(deps: Deps, to: { teamId: string; channelId: string }, alert: QuotaAlertPost): Promise<void> {
  await Promise.all(
    alert.fresh.map((t) => deps.store.reports.unmark(QUOTA_TIMER, to.teamId, to.channelId, `${alert.month}:${t}`)),
  );
}

/** Posts the alert once; a refusal unmarks it, so it posts once the bot can. */
async function postAlert(
  deps: Deps,
  client: WebClient,
  to: { teamId: string; channelId: string },
  alert: QuotaAlertPost,
): Promise<PostOutcome> {
  let outcome: PostOutcome;
  try {
    outcome = await postReport(
      client,
      to.channelId,
      renderQuotaAlert(alert.row, Math.max(...alert.fresh), alert.thresholds, alert.now),
      reportOnce(deps, to, `quota:${alert.month}:${alert.fresh.join(',')}`),
    );
  } catch (err) {
    await unmark(deps, to, alert);
    throw err;
  }
  if (!outcome.posted) await unmark(deps, to, alert);
  return outcome;
}

/**
 * Compares this month's usage with the thresholds (a person asked): an alert for the ones newly crossed goes out
 * in its channel's turn, as the timer's do.
 */
export async function checkQuotaAlerts(
  deps: Deps,
  to: { teamId: string; channelId: string },
  thresholds: readonly number[],
  rows: readonly QuotaRow[],
  now: number,
): Promise<AlertCheck> {
  const { percent, alert } = await newlyCrossed(deps, to, thresholds, rows, now);
  if (!alert) return { percent, crossed: [] };
  await leaveAlert(deps, to, alert, now);
  return { percent, crossed: alert.fresh };
}

/** Leaves the alert in the channel's outbox (bulk lane): the same month's thresholds once, whoever checked. */
async function leaveAlert(
  deps: Deps,
  to: { teamId: string; channelId: string },
  alert: QuotaAlertPost,
  order: number,
): Promise<void> {
  try {
    await deps.bulk.add(to, QUOTA_POST, { key: `quota:${alert.month}:${alert.fresh.join(',')}`, order }, alert);
  } catch (err) {
    await unmark(deps, to, alert);
    throw err;
  }
}

/** Posts the checks' alerts when their channel's turn comes (src/delivery/bulk-lane.ts). */
export function registerQuotaAlertPosts(deps: Deps): void {
  deps.bulk.on(QUOTA_POST, {
    post: async (to, body, { client }) => {
      const alert = body as QuotaAlertPost;
      const logger = deps.logger.child({ team: to.teamId, channel: to.channelId, timer: QUOTA_TIMER });
      const outcome = await postAlert(deps, client, to, alert);
      if (outcome.posted) logger.info({ thresholds: alert.fresh }, 'quota alert posted');
      else if (outcome.reason === 'channel_gone') {
        logger.warn('the channel is archived or gone: its quota alerts end');
        await stopQuotaAlerts(deps, to.teamId, to.channelId);
      } else
        logger.warn(
          'the channel refuses the app (the bot removed?): quota alert not posted; kept for when it takes posts',
        );
    },
  });
}

/**
 * The `quota-alert` timer: check, leave an alert for a newly crossed threshold in the channel's outbox, then
 * check again in QUOTA_CHECK_S (or end when the alerts are gone).
 */
export async function fireQuotaAlert(deps: Deps, timer: DueTimer, now: number): Promise<number | undefined> {
  const ref = parseTimerId(timer.id);
  if (!ref) return undefined;
  const setting = await deps.store.reports.quotaAlert(ref.teamId, ref.channelId);
  if (!setting) return undefined;
  const next = nextCheck(deps, ref.teamId, now);
  const logger = deps.logger.child({ team: ref.teamId, channel: ref.channelId, timer: QUOTA_TIMER });
  const rows = await readQuota(deps, logger, ref.teamId);
  if (!rows) return next;
  const { percent, alert } = await newlyCrossed(deps, ref, setting.thresholds, rows, now);
  if (!alert) return next;
  await leaveAlert(deps, ref, alert, timer.dueAt);
  logger.info({ percent, thresholds: alert.fresh }, 'quota alert made; it waits for its channel');
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
