/**
 * Slack's `app_rate_limited` notice: a workspace sent this app more than 30,000 events in an hour, and Slack is
 * holding some back (https://docs.slack.dev/reference/events/app_rate_limited). It comes to `/slack/events`
 * like an event and must be answered 200 at once — Slack turns event delivery off for an app that fails 5% of
 * its deliveries in an hour — so the receiver answers it before any listener, then this counts it, logs it and
 * tells an admin of that workspace, once an hour while it lasts (a mark in the store, so once for all replicas),
 * in a direct message that waits its turn in the outbox like every post the app makes on its own.
 * Events held back may have said someone joined a channel or was made a guest: the workspace's roster is listed
 * again and its channels judged again before their next post (`ChannelAudiences.eventsMissed`).
 */
import { z } from 'zod';
import type { Deps } from '../app/deps.js';
import type { BulkPosts } from '../delivery/bulk-posts.js';

export interface AppRateLimitedNotice {
  teamId: string | undefined;
  minuteRateLimited: number | undefined;
}

const noticeSchema = z.object({
  type: z.literal('app_rate_limited'),
  team_id: z
    .string()
    .regex(/^[TE][A-Z0-9]{1,20}$/)
    .optional(),
  minute_rate_limited: z.number().optional(),
});

/** How often an admin is told while the notices keep coming. */
const TELL_ADMIN_EVERY_MS = 60 * 60_000;

const APP_RATE_LIMITED_TEXT =
  '⚠️ Slack is limiting the events it sends Campaign from this workspace (over 30,000 in an hour), so some ' +
  'replies, reactions and App Home visits may reach Campaign late or not at all — remove Campaign from busy ' +
  'channels it does not need to be in (`/remove @Campaign` there) to bring the number down.';

/** The notice in a parsed `/slack/events` body, or undefined when the body is something else. */
export function appRateLimitedNotice(body: Record<string, unknown>): AppRateLimitedNotice | undefined {
  if (body.type !== 'app_rate_limited') return undefined;
  const parsed = noticeSchema.safeParse(body);
  return {
    teamId: parsed.success ? parsed.data.team_id : undefined,
    minuteRateLimited: parsed.success ? parsed.data.minute_rate_limited : undefined,
  };
}

type NoticeDeps = Pick<Deps, 'config' | 'store' | 'metrics' | 'logger' | 'audiences'>;

/** What the receiver calls once it has answered the notice: never throws. */
export function onAppRateLimited(deps: NoticeDeps, bulk: BulkPosts): (notice: AppRateLimitedNotice) => void {
  return (notice) => {
    deps.metrics.slackAppRateLimited.inc({ workspace: deps.metrics.workspaceLabel(notice.teamId ?? '-') });
    deps.logger.warn(
      { team: notice.teamId, minuteRateLimited: notice.minuteRateLimited },
      'Slack is limiting the events it sends for this workspace (app_rate_limited): some may come late or not at all',
    );
    if (!notice.teamId) return;
    void tellAdmin(deps, bulk, notice.teamId);
    // Someone may have joined a channel, or been made a guest, unheard: every channel is judged again first.
    void deps.audiences.eventsMissed(notice.teamId).catch((err: unknown) => {
      deps.logger.warn({ err, team: notice.teamId }, 'could not mark the workspace’s channels to be judged again');
    });
  };
}

async function tellAdmin(deps: NoticeDeps, bulk: BulkPosts, teamId: string): Promise<void> {
  try {
    if (!(await deps.store.dedup.markOnce(teamId, 'app-rate-limited', 'admin-told', TELL_ADMIN_EVERY_MS))) {
      deps.logger.debug({ team: teamId }, 'an admin was told within the hour that Slack is limiting events');
      return;
    }
    const user = await adminToTell(deps, teamId);
    if (!user) {
      deps.logger.info({ team: teamId }, 'no admin known to tell that Slack is limiting events');
      return;
    }
    const now = Date.now();
    await bulk.notify(
      { teamId, channelId: user },
      { key: `app-rate-limited:${now}`, order: now },
      {
        title: 'Slack is limiting the events it sends Campaign',
        text: APP_RATE_LIMITED_TEXT,
      },
    );
  } catch (err) {
    deps.logger.warn({ err, team: teamId }, 'could not tell an admin that Slack is limiting events');
  }
}

/** Who installed the app in the workspace (OAuth mode), else the first of ADMIN_USER_IDS for it. */
async function adminToTell(deps: NoticeDeps, teamId: string): Promise<string | undefined> {
  if (deps.config.slack.mode.kind === 'oauth') {
    try {
      const installation = await deps.store.installations.find(teamId);
      if (installation?.user.id) return installation.user.id;
    } catch {
      // The store did not answer: the listed admins are all there is.
    }
  }
  return deps.config.adminUsers.find((a) => a.teamId === undefined || a.teamId === teamId)?.userId;
}
