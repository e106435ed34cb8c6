/**
 * What a digest reports, read from the platform: dashboard totals per call category (account-wide: the
 * dashboard has no per-campaign or per-period figures, so the period's calls are the change against a
 * snapshot of the totals at the period's start, see period.ts), the period's bookings of the campaign(s),
 * and the quota rows (this month's on the card). Each part is read on its own:
 * one the platform cannot give right now is shown as unavailable, the rest still posts.
 */
import type { Booking, CampaignClient, DashboardStats, QuotaRow } from '../api/index.js';
import type { Deps } from '../app/deps.js';
import { failureOf, failureText, logFailure } from '../app/failure.js';
import type { Logger } from '../logger.js';
import { ALL_CAMPAIGNS, type DigestFigures } from '../store/index.js';

/** Bookings of at most this many campaigns are read for a `*` digest (one platform request each). */
export const MAX_BOOKING_CAMPAIGNS = 10;

type Part<T> = { ok: true; value: T } | { ok: false; problem: string };

export interface BookingTally {
  /** Campaigns whose bookings were read, and those that could not be. */
  campaigns: string[];
  unreadable: string[];
  made: number;
  failed: number;
  pending: number;
  /** Failed bookings of the period, newest first (for their reasons). */
  failures: Array<{ campaignId: string; booking: Booking }>;
}

export interface DigestData {
  campaignId: string;
  /** The period the digest covers (epoch ms). */
  since: number;
  until: number;
  /**
   * The totals at the period's start: the channel's previous digest's, else a snapshot of the workspace's
   * from about one period ago; undefined when there is neither (the card says it has no baseline).
   */
  baseline: Baseline | undefined;
  stats: Part<DashboardStats>;
  bookings: Part<BookingTally>;
  /** Every month's quota row the platform has. */
  quota: Part<QuotaRow[]>;
}

export interface Baseline {
  figures: DigestFigures;
  /** `previous`: this channel's previous digest; `snapshot`: a snapshot of the workspace's totals. */
  kind: 'previous' | 'snapshot';
}

export async function gatherDigest(
  deps: Deps,
  logger: Logger,
  teamId: string,
  input: { campaignId: string; since: number; until: number; baseline: Baseline | undefined },
): Promise<DigestData> {
  let api: CampaignClient;
  try {
    api = await deps.platform.clientFor(teamId);
  } catch (err) {
    // Not connected (any more): every part says so, and the card says it once.
    logFailure(logger, err, {}, 'digest: no platform client');
    const failed = { ok: false as const, problem: failureText(failureOf(err)) };
    return { ...input, stats: failed, quota: failed, bookings: failed };
  }
  const [stats, quota] = await Promise.all([
    part(logger, 'dashboard stats', () => api.dashboard.getStats()),
    part(logger, 'quota', () => api.quota.list()),
  ]);
  const campaigns =
    input.campaignId === ALL_CAMPAIGNS
      ? await campaignsOfWorkspace(deps, teamId, stats.ok ? stats.value : undefined)
      : [input.campaignId];
  const bookings = await part(logger, 'bookings', () =>
    tallyBookings(api, logger, campaigns, input.since, input.until),
  );
  return { ...input, stats, quota, bookings };
}

async function part<T>(logger: Logger, what: string, read: () => Promise<T>): Promise<Part<T>> {
  try {
    return { ok: true, value: await read() };
  } catch (err) {
    logFailure(logger, err, { part: what }, `digest: ${what} could not be read`);
    return { ok: false, problem: failureText(failureOf(err)) };
  }
}

/**
 * For `*`: the bookings endpoint is per campaign and the platform lists no campaigns, so the campaigns this
 * workspace routes to Slack and the dashboard's top campaigns are the ones counted (the card names them).
 */
async function campaignsOfWorkspace(deps: Deps, teamId: string, stats: DashboardStats | undefined): Promise<string[]> {
  const routed = (await deps.store.routes.listForTeam(teamId)).map((r) => r.campaignId);
  const top = (stats?.topCampaigns ?? []).flatMap((t) => (t.campaignId ? [t.campaignId] : []));
  return [...new Set([...routed, ...top])].filter((id) => id !== ALL_CAMPAIGNS).slice(0, MAX_BOOKING_CAMPAIGNS);
}

async function tallyBookings(
  api: CampaignClient,
  logger: Logger,
  campaigns: readonly string[],
  since: number,
  until: number,
): Promise<BookingTally> {
  const tally: BookingTally = { campaigns: [], unreadable: [], made: 0, failed: 0, pending: 0, failures: [] };
  let firstError: Error | undefined;
  const lists = await Promise.all(
    campaigns.map(async (campaignId) => {
      try {
        return { campaignId, list: await api.bookings.list(campaignId) };
      } catch (err) {
        logFailure(logger, err, { campaignId }, 'digest: bookings of a campaign could not be read');
        firstError ??= err instanceof Error ? err : new Error(String(err));
        return { campaignId, list: undefined };
      }
    }),
  );
  for (const { campaignId, list } of lists) {
    if (!list) {
      tally.unreadable.push(campaignId);
      continue;
    }
    tally.campaigns.push(campaignId);
    for (const booking of list) {
      const at = madeAt(booking);
      if (at === undefined || at <= since || at > until) continue;
      if (booking.Status === 'success') tally.made++;
      else if (booking.Status === 'fail') {
        tally.failed++;
        tally.failures.push({ campaignId, booking });
      } else tally.pending++;
    }
  }
  // Nothing readable at all: the card says why, as for any other part.
  if (firstError !== undefined && tally.campaigns.length === 0) throw firstError;
  tally.failures.sort((a, b) => (madeAt(b.booking) ?? 0) - (madeAt(a.booking) ?? 0));
  return tally;
}

/** When a booking was made or last changed: the row's Timestamp (BookingDate is the appointment itself). */
function madeAt(b: Booking): number | undefined {
  const t = Date.parse(b.Timestamp ?? '');
  return Number.isNaN(t) ? undefined : t;
}
