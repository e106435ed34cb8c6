/**
 * Channel digests: the schedule (kept in the store, one `digest` timer per channel), building and posting the
 * card, and the timer's firing. A firing posts at most once per slot: the timer's lease keeps other replicas
 * out while it runs, and a "posted" mark per (channel, slot) keeps a retried or late firing from posting again.
 * A slot missed while the bot was down fires once when it is back; the timer then moves to the next future
 * slot, so a long outage never posts one card per missed day.
 */
import type { WebClient } from '@slack/web-api';
import type { Deps } from '../app/deps.js';
import type { DueTimer } from '../store/index.js';
import { ALL_CAMPAIGNS, workspaceTimerId, type DigestCadence, type DigestSchedule } from '../store/index.js';
import type { Logger } from '../logger.js';
import { escapeMrkdwn, slackDate } from '../slack/blocks.js';
import { nextSlot, periodMs } from './clock.js';
import { digestTitle, renderDigest } from './card.js';
import { prepareChart, shareChart } from './chart-post.js';
import { gatherDigest, type Baseline } from './figures.js';
import { figuresOf, pickBaseline } from './period.js';
import { postReport, reportOnce, REPORT_POSTS, type PostOutcome } from './post.js';
import { keepSnapshot, startSnapshots, stopSnapshotsIfUnused } from './snapshots.js';

/** A posted digest also says what became of its chart: shared, failed (said in its thread), or nothing to chart. */
export type DigestOutcome =
  (PostOutcome & { posted: true } & { chart: 'shared' | 'failed' | 'none' }) | (PostOutcome & { posted: false });

export const DIGEST_TIMER = 'digest';
/** Long enough to outlive a weekly slot: marks only need to see the retries of one firing. */
const MARK_TTL_MS = 8 * 86_400_000;

/** Timer ids name the workspace and the channel. */
export function timerId(teamId: string, channelId: string): string {
  return workspaceTimerId(teamId, channelId);
}

export function parseTimerId(id: string): { teamId: string; channelId: string } | undefined {
  try {
    const value: unknown = JSON.parse(id);
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string') {
      return { teamId: value[0], channelId: value[1] };
    }
  } catch {
    // not one of ours
  }
  return undefined;
}

/** Stores the channel's schedule and sets its timer to the next slot; returns when that is. */
export async function scheduleDigest(
  deps: Deps,
  teamId: string,
  channelId: string,
  schedule: DigestSchedule,
): Promise<number> {
  const next = nextSlot(deps.store.now(), schedule);
  await deps.store.reports.setDigest(teamId, channelId, schedule);
  await deps.store.timers.set(DIGEST_TIMER, timerId(teamId, channelId), next);
  await startSnapshots(deps, deps.logger.child({ team: teamId, channel: channelId }), teamId);
  return next;
}

/** Returns whether the channel had a digest. */
export async function stopDigest(deps: Deps, teamId: string, channelId: string): Promise<boolean> {
  await deps.store.timers.cancel(DIGEST_TIMER, timerId(teamId, channelId));
  const had = await deps.store.reports.removeDigest(teamId, channelId);
  await stopSnapshotsIfUnused(deps, teamId);
  return had;
}

/** `daily at 09:00 (Europe/Berlin) for every campaign`. */
export function describeSchedule(s: DigestSchedule): string {
  const when = s.cadence === 'weekly' ? `weekly on Mondays at ${s.time}` : `daily at ${s.time}`;
  const what =
    s.campaignId === ALL_CAMPAIGNS ? 'every campaign' : `campaign \`${escapeMrkdwn(s.campaignId.replace(/`/g, ''))}\``;
  return `${when} (${escapeMrkdwn(s.timeZone)}) for ${what}`;
}

/** `<!date…>` of an instant, for "next digest" lines. */
export function slackTime(at: number): string {
  return slackDate(new Date(at).toISOString(), '{date_short_pretty} at {time}');
}

/**
 * Builds the card for the period since the channel's previous digest (for its first, since the workspace's
 * snapshot from about one period back, if any), posts it, then shares its chart below it. The totals read
 * become a snapshot of the workspace and, once posted, the baseline of the channel's next digest.
 */
export async function postDigest(
  deps: Deps,
  client: WebClient,
  logger: Logger,
  to: { teamId: string; channelId: string },
  what: { campaignId: string; cadence: DigestCadence | undefined },
  now: number,
  /** A scheduled slot's digest: posted once even when Slack's answer is lost (the retried firing looks first). */
  slot?: string,
): Promise<DigestOutcome> {
  const period = periodMs(what.cadence ?? 'daily');
  const [previous, snapshots] = await Promise.all([
    deps.store.reports.lastFigures(to.teamId, to.channelId),
    deps.store.reports.snapshots(to.teamId),
  ]);
  const fromSnapshot = previous ? undefined : pickBaseline(snapshots, now, period);
  const baseline: Baseline | undefined = previous
    ? { figures: previous, kind: 'previous' }
    : fromSnapshot && { figures: fromSnapshot, kind: 'snapshot' };
  const data = await gatherDigest(deps, logger, to.teamId, {
    campaignId: what.campaignId,
    since: baseline?.figures.at ?? now - period,
    until: now,
    baseline,
  });
  const figures = data.stats.ok ? figuresOf(data.stats.value, now) : undefined;
  if (figures) await keepSnapshot(deps, to.teamId, figures);
  // No chart without today's totals (the platform unreachable, the workspace disconnected): it would be stale.
  const chart =
    figures &&
    (await prepareChart(deps, logger, to.teamId, {
      snapshots: [...snapshots, figures],
      quota: data.quota.ok ? data.quota.value : undefined,
      now,
    }));
  const once = slot === undefined ? undefined : reportOnce(deps, to, `digest:${slot}`);
  const view = await deps.audiences.viewFor(client, { teamId: to.teamId }, to.channelId);
  const outcome = await postReport(client, to.channelId, renderDigest(data, what.cadence, view), once);
  if (!outcome.posted) return outcome;
  if (figures) await deps.store.reports.setLastFigures(to.teamId, to.channelId, figures);
  if (!chart) return { ...outcome, chart: 'none' };
  const shared = await shareChart(
    client,
    logger,
    {
      channelId: to.channelId,
      cardTs: outcome.ts,
      title: digestTitle(what.cadence),
      day: new Date(now).toISOString().slice(0, 10),
    },
    chart,
  );
  return { ...outcome, chart: shared ? 'shared' : 'failed' };
}

/** The `digest` timer: post this slot's digest once, then move on to the next slot (or end). */
export async function fireDigest(deps: Deps, timer: DueTimer, now: number): Promise<number | undefined> {
  const ref = parseTimerId(timer.id);
  if (!ref) return undefined;
  const schedule = await deps.store.reports.digest(ref.teamId, ref.channelId);
  if (!schedule) return undefined;
  const next = nextSlot(now, schedule);
  const logger = deps.logger.child({ team: ref.teamId, channel: ref.channelId, timer: DIGEST_TIMER });
  const slot = String(timer.dueAt);
  if (!(await deps.store.reports.mark(DIGEST_TIMER, ref.teamId, ref.channelId, slot, MARK_TTL_MS))) {
    logger.info({ slot: timer.dueAt }, 'digest of this slot was posted already');
    return next;
  }
  const client = await deps.slack.forTeam(ref.teamId, REPORT_POSTS);
  if (!client) {
    logger.warn('no Slack bot token for the workspace (uninstalled?): digest skipped, schedule kept');
    return next;
  }
  let outcome: DigestOutcome;
  try {
    outcome = await postDigest(
      deps,
      client,
      logger,
      ref,
      { campaignId: schedule.campaignId, cadence: schedule.cadence },
      now,
      slot,
    );
  } catch (err) {
    // Not posted: the retried firing (after the lease) may post it.
    await deps.store.reports.unmark(DIGEST_TIMER, ref.teamId, ref.channelId, slot);
    throw err;
  }
  if (outcome.posted) {
    logger.info({ slot: timer.dueAt, late: now - timer.dueAt, chart: outcome.chart }, 'digest posted');
    return next;
  }
  if (outcome.reason === 'channel_gone') {
    logger.warn('the channel is archived or gone: its digest schedule ends');
    await deps.store.reports.removeDigest(ref.teamId, ref.channelId);
    await stopSnapshotsIfUnused(deps, ref.teamId);
    return undefined;
  }
  logger.warn(
    'the bot is not in the channel (removed?): digest not posted; the schedule is kept for when it is invited back',
  );
  return next;
}
