/**
 * App Home: the workspace's connection, usage, event routes and delivery health, refreshed each time
 * the tab is opened, with quick buttons (stats for everyone, connect for admins).
 */
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { maskKey } from '../api/index.js';
import type { Deps } from '../bot/deps.js';
import { openConnectForm } from '../commands/connect.js';
import { describeFailure } from '../commands/failure.js';
import { latestMonth } from '../commands/quota.js';
import { renderStats } from '../commands/stats.js';
import { modal } from '../slack/modals.js';
import { noticeView } from '../slack/submission.js';
import { DeadlineError, withDeadline } from '../util/deadline.js';
import { HOME_ACTIONS, renderHome, type HomeState } from './render.js';

/** Home must render even when the platform is slow: usage is left out after this long. */
const QUOTA_BUDGET_MS = 2_500;

export function register(app: App, deps: Deps): void {
  app.event('app_home_opened', async ({ event, client, context }) => {
    if (event.tab !== 'home') return;
    await publishHome(deps, client, context.teamId ?? '', event.user);
  });

  app.action(HOME_ACTIONS.refresh, async ({ ack, body, client }) => {
    await ack();
    await publishHome(deps, client, body.team?.id ?? '', body.user.id);
  });

  app.action(HOME_ACTIONS.connect, async ({ ack, body, client }) => {
    await ack();
    const teamId = body.team?.id ?? '';
    if (!('trigger_id' in body) || !(await deps.admins.isAdmin(client, teamId, body.user.id))) return;
    await openConnectForm(deps, { client, triggerId: body.trigger_id, teamId });
  });

  app.action(HOME_ACTIONS.stats, async ({ ack, body, client }) => {
    await ack();
    if (!('trigger_id' in body)) return;
    const teamId = body.team?.id ?? '';
    // Open at once (trigger ids expire in 3 s), then fill in when the platform answers.
    const opened = await client.views.open({ trigger_id: body.trigger_id, view: noticeView('Campaign stats', '⏳ Loading…') });
    const viewId = opened.view?.id;
    if (!viewId) return;
    let view;
    try {
      const api = await deps.platform.clientFor(teamId);
      view = modal({ callbackId: 'home_stats_view', title: 'Campaign stats', blocks: renderStats(await api.dashboard.getStats()).blocks });
    } catch (err) {
      deps.logger.warn({ err, team: teamId }, 'stats for the home tab failed');
      view = noticeView('Campaign stats', describeFailure(err));
    }
    await client.views.update({ view_id: viewId, view });
  });
}

export async function publishHome(deps: Deps, client: WebClient, teamId: string, userId: string): Promise<void> {
  const state = await loadHomeState(deps, client, teamId, userId);
  await client.views.publish({ user_id: userId, view: renderHome(state) });
}

async function loadHomeState(deps: Deps, client: WebClient, teamId: string, userId: string): Promise<HomeState> {
  const [connection, routes, dead, isAdmin] = await Promise.all([
    deps.store.workspaces.getConnection(teamId),
    deps.store.routes.listForTeam(teamId),
    deps.store.queue.deadLetters(teamId, 0).then((d) => d.count),
    deps.admins.isAdmin(client, teamId, userId),
  ]);
  const defaultKey = deps.config.campaign.apiKey;
  return {
    connection,
    ...(defaultKey && !connection ? { defaultKeyLast4: maskKey(defaultKey).replace(/^•+/, '') } : {}),
    routes,
    deadLetters: dead,
    quota: await loadQuota(deps, teamId, Boolean(connection ?? defaultKey)),
    isAdmin,
  };
}

async function loadQuota(deps: Deps, teamId: string, connected: boolean): Promise<HomeState['quota']> {
  if (!connected) return undefined;
  try {
    const api = await deps.platform.clientFor(teamId);
    const latest = latestMonth(await withDeadline(api.quota.list(), QUOTA_BUDGET_MS, 'quota for the home tab'));
    return latest ? { row: latest } : { problem: 'the platform has no quota on record yet.' };
  } catch (err) {
    deps.logger.warn({ err, team: teamId }, 'quota for the home tab failed');
    return { problem: err instanceof DeadlineError ? 'the platform is slow to answer; refresh in a moment.' : describeFailure(err) };
  }
}
