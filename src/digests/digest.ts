/**
 * Channel digests: the schedule (kept in the store, one `digest` timer per channel), making and posting the
 * card, and the timer's firing. A firing makes the slot's digest and leaves it in the channel's outbox (bulk
 * lane: after the channel's customers and calls, at Slack's pace), which posts the card, its charts in it. A
 * slot is made at most once: the timer's lease keeps other replicas out while it runs, and a "made" mark per
 * (channel, slot) keeps a retried or late firing from making it again; the card's post carries its slot's
 * idempotency key, so a post whose answer was lost is looked up, not sent twice.
 * A slot missed while the bot was down fires once when it is back; the timer then moves to the next future
 * slot, so a long outage never posts one card per missed day.
 */
import type { WebClient } from '@slack/web-api';
import type { Deps } from '../app/deps.js';
import type { DigestFigures, DueTimer } from '../store/index.js';
import {
  ALL_CAMPAIGNS,
  workspaceTimerId,
  workspaceTimerParts,
  type DigestCadence,
  type DigestSchedule,
} from '../store/index.js';
import type { Logger } from '../logger.js';
import { escapeMrkdwn, slackDate } from '../slack/blocks.js';
import { nextSlot, periodMs } from './clock.js';
import { renderDigest } from './card.js';
import { dailyCalls, type DailyCalls } from './charts.js';
import { gatherDigest, type Baseline, type DigestData } from './figures.js';
import { figuresOf, pickBaseline, snapshotZone } from './period.js';
import { postReport, reportOnce, type PostOutcome } from './post.js';
import { keepSnapshot, startSnapshots, stopSnapshotsIfUnused } from './snapshots.js';

export const DIGEST_TIMER = 'digest';
/** The kind of report a scheduled digest waits in its channel's outbox as. */
const DIGEST_POST = 'digest';
/** Long enough to outlive a weekly slot: marks only need to see the retries of one firing. */
const MARK_TTL_MS = 8 * 86_400_000;

/** Timer ids name the workspace and the channel. */
export function timerId(teamId: string, channelId: string): string {
  return workspaceTimerId(teamId, channelId);
}

export function parseTimerId(id: string): { teamId: string; channelId: string } | undefined {
  const [teamId, channelId] = workspaceTimerParts(id, 2) ?? [];
  return teamId === undefined || channelId === undefined ? undefined : { teamId, channelId };
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

/** A digest made and not yet posted: what its card is made of (JSON: it may wait in the outbox). */
interface MadeDigest {
  data: DigestData;
  cadence: DigestCadence | undefined;
  /** The totals read now: once posted, the baseline of the channel's next digest. */
  figures?: DigestFigures;
  /** The calls per day the card charts. */
  chart?: DailyCalls;
}

/**
 * Makes the card for the period since the channel's previous digest (for its first, since the workspace's
 * snapshot from about one period back, if any) and its calls per day. The totals read become a snapshot of
 * the workspace.
 */
async function makeDigest(
  deps: Deps,
  logger: Logger,
  to: { teamId: string; channelId: string },
  what: { campaignId: string; cadence: DigestCadence | undefined },
  now: number,
): Promise<MadeDigest> {
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
  const zone = figures && snapshotZone((await deps.store.reports.digests(to.teamId)).map((d) => d.schedule));
  const chart = figures && zone && dailyCalls([...snapshots, figures], zone, now);
  return { data, cadence: what.cadence, ...(figures ? { figures } : {}), ...(chart ? { chart } : {}) };
}

/** Posts the made card once (its slot's idempotency key); a posted card's figures become the next one's baseline. */
async function postCard(
  deps: Deps,
  client: WebClient,
  to: { teamId: string; channelId: string },
  made: MadeDigest,
  slot: string,
): Promise<PostOutcome> {
  const view = await deps.audiences.viewFor(client, { teamId: to.teamId }, to.channelId);
  const card = renderDigest(made.data, made.cadence, view, made.chart);
  const outcome = await postReport(client, to.channelId, card, reportOnce(deps, to, `digest:${slot}`));
  if (outcome.posted && made.figures) await deps.store.reports.setLastFigures(to.teamId, to.channelId, made.figures);
  return outcome;
}

/**
 * Makes the digest and leaves it in the channel's outbox (bulk lane): a timer's slot, or a person's `digest now`
 * (`now:<trigger_id>`). `slot` names it, so the same one waits once and posts once; `order` places it in the lane.
 */
export async function leaveDigest(
  deps: Deps,
  logger: Logger,
  to: { teamId: string; channelId: string },
  what: { campaignId: string; cadence: DigestCadence | undefined },
  at: { slot: string; order: number; now: number },
): Promise<void> {
  const made = await makeDigest(deps, logger, to, what, at.now);
  const waiting: WaitingDigest = { made, slot: at.slot };
  await deps.bulk.add(to, DIGEST_POST, { key: `digest:${at.slot}`, order: at.order }, waiting);
}

/** A digest waiting in its channel's outbox (bulk lane): a timer's slot, or `now:<request>`. */
interface WaitingDigest {
  made: MadeDigest;
  slot: string;
}

/** Posts digests when their channel's turn comes (src/delivery/bulk-lane.ts). */
export function registerDigestPosts(deps: Deps): void {
  deps.bulk.on(DIGEST_POST, {
    post: async (to, body, { client }) => {
      const { made, slot } = body as WaitingDigest;
      const logger = deps.logger.child({ team: to.teamId, channel: to.channelId, timer: DIGEST_TIMER });
      const outcome = await postCard(deps, client, to, made, slot);
      if (!outcome.posted) return refused(deps, logger, to, outcome.reason);
      logger.info({ slot, chart: made.chart ? 'in the card' : 'none' }, 'digest posted');
    },
  });
}

/** A digest Slack refused: the channel refuses the app (schedule kept), or the channel is gone (it ends). */
async function refused(
  deps: Deps,
  logger: Logger,
  to: { teamId: string; channelId: string },
  reason: 'refused' | 'channel_gone',
): Promise<void> {
  if (reason === 'channel_gone') {
    logger.warn('the channel is archived or gone: its digest schedule ends');
    await deps.store.timers.cancel(DIGEST_TIMER, timerId(to.teamId, to.channelId));
    await deps.store.reports.removeDigest(to.teamId, to.channelId);
    await stopSnapshotsIfUnused(deps, to.teamId);
    return;
  }
  logger.warn(
    'the channel refuses the app (the bot removed?): digest not posted; the schedule is kept for when it takes posts again',
  );
}

/**
 * The `digest` timer: make this slot's digest once and leave it in the channel's outbox, then move on to the
 * next slot (or end). A firing that fails before the digest waits is tried again after its lease.
 */
export async function fireDigest(deps: Deps, timer: DueTimer, now: number): Promise<number | undefined> {
  const ref = parseTimerId(timer.id);
  if (!ref) return undefined;
  const schedule = await deps.store.reports.digest(ref.teamId, ref.channelId);
  if (!schedule) return undefined;
  const next = nextSlot(now, schedule);
  const logger = deps.logger.child({ team: ref.teamId, channel: ref.channelId, timer: DIGEST_TIMER });
  const slot = String(timer.dueAt);
  if (!(await deps.store.reports.mark(DIGEST_TIMER, ref.teamId, ref.channelId, slot, MARK_TTL_MS))) {
    logger.info({ slot: timer.dueAt }, 'digest of this slot was made already');
    return next;
  }
  try {
    const what = { campaignId: schedule.campaignId, cadence: schedule.cadence };
    await leaveDigest(deps, logger, ref, what, { slot, order: timer.dueAt, now });
  } catch (err) {
    // Not made: the retried firing (after the lease) makes it.
    await deps.store.reports.unmark(DIGEST_TIMER, ref.teamId, ref.channelId, slot);
    throw err;
  }
  logger.info({ slot: timer.dueAt, late: now - timer.dueAt }, 'digest made; it waits for its channel');
  return next;
}
