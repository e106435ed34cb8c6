/**
 * When a workspace removes the app (`app_uninstalled`) or revokes its bot token (`tokens_revoked`),
 * everything we keep for it goes: installation, routes (and, best effort, the platform's
 * subscriptions that fed them), digests and quota alerts, the campaigns and agents it had seen, the encrypted
 * API key and the hook token.
 */
import type { App } from '@slack/bolt';
import { TRIGGER_NAMES } from '../api/index.js';
import { hookUrlFor } from '../events/hook-url.js';
import type { Deps } from '../app/deps.js';
import { stopDigest, stopQuotaAlerts } from '../digests/index.js';

export function register(app: App, deps: Deps): void {
  app.event('app_uninstalled', async ({ context }) => {
    await forgetWorkspace(deps, context.teamId, context.enterpriseId, context.isEnterpriseInstall === true);
  });
  app.event('tokens_revoked', async ({ event, context }) => {
    // User tokens alone don't concern us: we only ever hold the bot token.
    if ((event.tokens.bot ?? []).length === 0) return;
    await forgetWorkspace(deps, context.teamId, context.enterpriseId, context.isEnterpriseInstall === true);
  });
}

async function forgetWorkspace(
  deps: Deps,
  teamId: string | undefined,
  enterpriseId: string | undefined,
  isEnterpriseInstall: boolean,
): Promise<void> {
  const logger = deps.logger.child({ team: teamId, enterprise: enterpriseId });
  if (teamId) {
    const routes = await deps.store.routes.listForTeam(teamId);
    await unsubscribeUpstream(deps, teamId, routes).catch((err: unknown) =>
      logger.warn({ err }, 'could not unsubscribe the platform hooks of an uninstalled workspace'),
    );
    for (const route of routes) await deps.store.routes.remove(route);
    for (const { channelId } of await deps.store.reports.digests(teamId)) await stopDigest(deps, teamId, channelId);
    for (const { channelId } of await deps.store.reports.quotaAlerts(teamId))
      await stopQuotaAlerts(deps, teamId, channelId);
    await deps.store.catalog.clear(teamId);
    await deps.store.workspaces.clear(teamId);
  }
  if (deps.config.slack.mode.kind === 'oauth') {
    await deps.store.installations
      .deleteInstallation({ teamId, enterpriseId, isEnterpriseInstall })
      .catch((err: unknown) => logger.warn({ err }, 'could not delete the installation'));
  }
  logger.info(
    'workspace uninstalled: installation, routes, digests, quota alerts, catalog, API key and hook token removed',
  );
}

/** The platform would otherwise keep posting to a hook URL that now answers 404. */
async function unsubscribeUpstream(
  deps: Deps,
  teamId: string,
  routes: Awaited<ReturnType<Deps['store']['routes']['listForTeam']>>,
): Promise<void> {
  const token = await deps.store.workspaces.getHookToken(teamId);
  if (!token || !deps.config.publicUrl || routes.length === 0) return;
  const api = await deps.platform.clientFor(teamId);
  const hookUrl = hookUrlFor(deps.config.publicUrl, token);
  const pairs = new Map(routes.map((r) => [`${r.campaignId}\u0000${r.triggerName}`, r]));
  for (const r of pairs.values()) {
    const triggerName = TRIGGER_NAMES.find((t) => t === r.triggerName);
    if (triggerName) await api.webhooks.unsubscribe({ hookUrl, campaignId: r.campaignId, triggerName });
  }
}
