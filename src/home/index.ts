/**
 * App Home: the workspace's connection, usage, event routes and delivery health, refreshed each time
 * the tab is opened, with quick buttons (stats for everyone, connect for admins).
 */
import type { App } from '@slack/bolt';
import type { Deps } from '../app/deps.js';
import { failureBlocks, failureOf, logFailure } from '../app/failure.js';
import { renderStatsModal } from '../views/usage.js';
import { modal } from '../slack/modals.js';
import { noticeView } from '../slack/submission.js';
import { publishHome } from './publish.js';
import { HOME_ACTIONS } from './render.js';

export function register(app: App, deps: Deps): void {
  app.event('app_home_opened', async ({ event, client, context }) => {
    if (event.tab !== 'home') return;
    await publishHome(deps, client, context.teamId ?? '', event.user, context.enterpriseId);
  });

  app.action(HOME_ACTIONS.refresh, async ({ ack, body, client, context }) => {
    await ack();
    await publishHome(deps, client, context.teamId ?? body.team?.id ?? '', body.user.id, context.enterpriseId);
  });

  app.action(HOME_ACTIONS.connect, async ({ ack, body, client, context }) => {
    await ack();
    const teamId = body.team?.id ?? '';
    const check = { enterpriseId: context.enterpriseId };
    if (!('trigger_id' in body) || !(await deps.admins.isAdmin(client, teamId, body.user.id, check))) return;
    await deps.surfaces.openConnectForm(client, body.trigger_id, teamId);
  });

  app.action(HOME_ACTIONS.stats, async ({ ack, body, client }) => {
    await ack();
    if (!('trigger_id' in body)) return;
    const teamId = body.team?.id ?? '';
    // Open at once (trigger ids expire in 3 s), then fill in when the platform answers.
    const opened = await client.views.open({
      trigger_id: body.trigger_id,
      view: noticeView('Campaign stats', '⏳ Loading…'),
    });
    const viewId = opened.view?.id;
    if (!viewId) return;
    let view;
    try {
      const api = await deps.platform.clientFor(teamId);
      view = modal({
        callbackId: 'home_stats_view',
        title: 'Campaign stats',
        blocks: renderStatsModal(await api.dashboard.getStats()),
      });
    } catch (err) {
      logFailure(deps.logger, err, { team: teamId }, 'stats for the home tab failed');
      view = modal({ callbackId: 'notice', title: 'Campaign stats', blocks: failureBlocks(failureOf(err)) });
    }
    await client.views.update({ view_id: viewId, view });
  });
}
