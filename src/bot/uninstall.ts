/**
 * When a workspace removes the app (`app_uninstalled`) or revokes its bot token (`tokens_revoked`), the bot
 * forgets it: first, best effort, the platform's subscriptions that fed its routes (the platform would
 * otherwise keep posting to a hook URL that now answers 404); then everything the store keeps of it
 * (`Store.forgetWorkspace`: conversations, threads, replies, links, claims, timers, queued events, dead
 * letters, settings, API key, hook token, installation — see docs/DATA.md).
 *
 * Work already under way for the workspace when it goes (a post, a queued event read a moment before) may
 * still write a key or two; a `forget-workspace` timer forgets the workspace once more when that work is
 * over (FORGET_AGAIN_MS), on one replica, surviving restarts. Events queued for it after that are dropped by
 * the worker (src/events/worker.ts).
 */
import type { App } from '@slack/bolt';
import { TRIGGER_NAMES } from '../api/index.js';
import { hookUrlFor, unsubscribeUpstream } from '../events/hook-url.js';
import type { Deps } from '../app/deps.js';
import type { Logger } from '../logger.js';
import { workspaceTimerId, type DueTimer } from '../store/index.js';
import { ALERT_TIMER, alertTimerId } from '../events/index.js';

const FORGET_TIMER = 'forget-workspace';
/**
 * Longer than anything started before the uninstall can still run: a queue handler's Slack calls (30 s
 * each), a channel outbox's lease (15 s, renewed while its drain runs), a webhook that resolved its token just before (seconds).
 */
const FORGET_AGAIN_MS = 5 * 60_000;

// Bolt acknowledges an Events API request before its listeners run (App.processEvent: "Events API requests
// are acknowledged right away"), so Slack never waits for the scan below.
export function register(app: App, deps: Deps): void {
  app.event('app_uninstalled', async ({ context }) => {
    await forget(deps, context.teamId, context.enterpriseId, context.isEnterpriseInstall === true);
  });
  app.event('tokens_revoked', async ({ event, context }) => {
    // User tokens alone don't concern us: we only ever hold the bot token.
    if ((event.tokens.bot ?? []).length === 0) return;
    await forget(deps, context.teamId, context.enterpriseId, context.isEnterpriseInstall === true);
  });
  deps.timers.on(FORGET_TIMER, (timer) => forgetAgain(deps, timer));
}

async function forget(
  deps: Deps,
  teamId: string | undefined,
  enterpriseId: string | undefined,
  isEnterpriseInstall: boolean,
): Promise<void> {
  const logger = deps.logger.child({ team: teamId, enterprise: enterpriseId });
  if (teamId) {
    const routes = await deps.store.routes.listForTeam(teamId);
    const alerts = await deps.store.outcomeAlerts.list(teamId);
    await unsubscribeAll(deps, teamId, [...routes, ...(await deps.store.outcomeAlerts.hooks(teamId))], logger).catch(
      (err: unknown) => logger.warn({ err }, 'could not unsubscribe the platform hooks of an uninstalled workspace'),
    );
    // Alert checks are timers named by their alert: cancelled with it (the store's forget finds the rest).
    for (const alert of alerts) await deps.store.timers.cancel(ALERT_TIMER, alertTimerId(teamId, alert));
    // Set first: should this process stop half-way, another replica finishes the job.
    await deps.store.timers.set(FORGET_TIMER, workspaceTimerId(teamId), deps.store.now() + FORGET_AGAIN_MS);
    const forgotten = await deps.store.forgetWorkspace(teamId, { keepTimers: [FORGET_TIMER] });
    deps.slack.forget(teamId);
    logger.info(
      { ...forgotten },
      'workspace uninstalled: everything kept for it is deleted (conversations, settings, queued events, API key, hook token)',
    );
  }
  if (deps.config.slack.mode.kind === 'oauth') {
    // An org-wide install is not one workspace's: its installation goes by the enterprise.
    await deps.store.installations
      .deleteInstallation({ teamId, enterpriseId, isEnterpriseInstall })
      .catch((err: unknown) => logger.warn({ err }, 'could not delete the installation'));
  }
}

/**
 * The `forget-workspace` timer: whatever work under way at the uninstall wrote since goes too — unless the
 * workspace installed the app again meanwhile (what it set up since is its own).
 */
async function forgetAgain(deps: Deps, timer: DueTimer): Promise<undefined> {
  const teamId = teamOfTimer(timer.id);
  if (teamId === undefined) return undefined;
  const { store } = deps;
  const back =
    (await store.workspaces.exists(teamId)) ||
    (deps.config.slack.mode.kind === 'oauth' && (await store.installations.botToken(teamId)) !== null);
  if (back) {
    deps.logger.info({ team: teamId }, 'uninstalled workspace installed the app again: not forgotten once more');
    return undefined;
  }
  const forgotten = await store.forgetWorkspace(teamId);
  deps.logger.info({ team: teamId, ...forgotten }, 'uninstalled workspace forgotten once more, after work under way');
  return undefined;
}

function teamOfTimer(id: string): string | undefined {
  try {
    const parts: unknown = JSON.parse(id);
    return Array.isArray(parts) && parts.length === 1 && typeof parts[0] === 'string' ? parts[0] : undefined;
  } catch {
    return undefined;
  }
}

/** The platform would otherwise keep posting to a hook URL that now answers 404. */
async function unsubscribeAll(
  deps: Deps,
  teamId: string,
  routes: ReadonlyArray<{ campaignId: string; triggerName: string }>,
  logger: Logger,
): Promise<void> {
  const token = await deps.store.workspaces.getHookToken(teamId);
  if (!token || !deps.config.publicUrl || routes.length === 0) return;
  const api = await deps.platform.clientFor(teamId);
  const hookUrl = hookUrlFor(deps.config.publicUrl, token);
  const pairs = new Map(routes.map((r) => [`${r.campaignId}\u0000${r.triggerName}`, r]));
  for (const r of pairs.values()) {
    const triggerName = TRIGGER_NAMES.find((t) => t === r.triggerName);
    if (triggerName) await unsubscribeUpstream(api, hookUrl, { campaignId: r.campaignId, triggerName }, logger);
  }
}
