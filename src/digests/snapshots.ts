/**
 * Snapshots of a workspace's dashboard totals: one at each digest made, one when a digest is set
 * up (so its first digest has a baseline), and one daily just after local midnight (within SPREAD_MS, at the
 * workspace's own minute) while the workspace has digests —
 * the `digest-snapshot` timer, one per workspace, fired on one replica by the store's timers. Kept for
 * `SNAPSHOT_BOUNDS` (enough for a weekly digest's baseline and the chart's 14 days); uninstalling forgets
 * them with the rest of the workspace (a workspace key kind, a workspace timer).
 */
import type { Deps } from '../app/deps.js';
import { logFailure } from '../app/failure.js';
import type { Logger } from '../logger.js';
import { workspaceTimerId, type DigestFigures, type DueTimer, type SnapshotBounds } from '../store/index.js';
import { phaseOf } from '../util/spread.js';
import { nextSlot } from './clock.js';
import { figuresOf, snapshotZone } from './period.js';

export const SNAPSHOT_TIMER = 'digest-snapshot';
const SNAPSHOT_BOUNDS: SnapshotBounds = { keepMs: 45 * 86_400_000, max: 400 };
/** A daily snapshot the platform could not give is tried again this soon, while it still marks its midnight. */
const RETRY_MS = 15 * 60_000;
const RETRY_WITHIN_MS = 90 * 60_000;
/**
 * A workspace's daily snapshot is taken this long at most after its midnight, at a minute fixed per workspace
 * (its phase): workspaces sharing a time zone do not all call the platform in one tick. Well within the two
 * hours a chart's day looks for its midnight snapshot in.
 */
const SPREAD_MS = 30 * 60_000;

/** Reads the dashboard and keeps its totals; returns them. Throws when the platform cannot give them. */
async function takeSnapshot(deps: Deps, teamId: string, now: number): Promise<DigestFigures> {
  const api = await deps.platform.clientFor(teamId);
  const figures = figuresOf(await api.dashboard.getStats(), now);
  await deps.store.reports.addSnapshot(teamId, figures, SNAPSHOT_BOUNDS);
  return figures;
}

/** Keeps the figures a digest read (its own snapshot). */
export async function keepSnapshot(deps: Deps, teamId: string, figures: DigestFigures): Promise<void> {
  await deps.store.reports.addSnapshot(teamId, figures, SNAPSHOT_BOUNDS);
}

/**
 * The workspace's next daily snapshot: the next local midnight in its snapshot zone (most of its digests'),
 * plus the workspace's phase of SPREAD_MS.
 */
async function nextMidnight(deps: Deps, teamId: string, after: number): Promise<number | undefined> {
  const schedules = (await deps.store.reports.digests(teamId)).map((d) => d.schedule);
  if (schedules.length === 0) return undefined;
  const phase = phaseOf(teamId, SPREAD_MS);
  return nextSlot(after - phase, { cadence: 'daily', time: '00:00', timeZone: snapshotZone(schedules) }) + phase;
}

/**
 * A digest was set up: a snapshot now (best effort: the first digest then has a baseline) and the daily
 * timer set to the next midnight of the workspace's zone (which this schedule may have changed).
 */
export async function startSnapshots(deps: Deps, logger: Logger, teamId: string): Promise<void> {
  const now = deps.store.now();
  try {
    await takeSnapshot(deps, teamId, now);
  } catch (err) {
    logFailure(logger, err, {}, 'digest: no snapshot of the dashboard at set-up; the first digest may lack a baseline');
  }
  const next = await nextMidnight(deps, teamId, now);
  if (next !== undefined) await deps.store.timers.set(SNAPSHOT_TIMER, workspaceTimerId(teamId), next);
}

/** A digest ended: with no digest left in the workspace, no more daily snapshots (the series expires). */
export async function stopSnapshotsIfUnused(deps: Deps, teamId: string): Promise<void> {
  if ((await deps.store.reports.digests(teamId)).length === 0)
    await deps.store.timers.cancel(SNAPSHOT_TIMER, workspaceTimerId(teamId));
}

/** The daily timer: one snapshot, then the next local midnight (or, while the platform fails, a retry). */
export async function fireSnapshot(deps: Deps, timer: DueTimer, now: number): Promise<number | undefined> {
  const teamId = teamOf(timer.id);
  if (teamId === undefined) return undefined;
  const next = await nextMidnight(deps, teamId, now);
  if (next === undefined) return undefined;
  const logger = deps.logger.child({ team: teamId, timer: SNAPSHOT_TIMER });
  try {
    await takeSnapshot(deps, teamId, now);
    return next;
  } catch (err) {
    const retry = now - timer.dueAt + RETRY_MS <= RETRY_WITHIN_MS;
    logFailure(
      logger,
      err,
      {},
      retry
        ? 'digest: daily snapshot failed; trying again shortly'
        : 'digest: daily snapshot failed; that day shows no figures on the chart',
    );
    return retry ? now + RETRY_MS : next;
  }
}

/** The workspace a snapshot timer is for (its id is `workspaceTimerId(teamId)`). */
function teamOf(id: string): string | undefined {
  try {
    const parts: unknown = JSON.parse(id);
    return Array.isArray(parts) && parts.length === 1 && typeof parts[0] === 'string' ? parts[0] : undefined;
  } catch {
    return undefined;
  }
}
