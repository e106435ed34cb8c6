/**
 * Publishing the App Home tab for one user: what we know of the workspace, rendered by `renderHome`.
 * Apart from the listeners so a flow that changes the workspace (connect) can republish it too.
 */
import type { WebClient } from '@slack/web-api';
import { maskKey } from '../api/index.js';
import type { Deps } from '../app/deps.js';
import type { Workspace } from '../app/membership.js';
import { failureOf, failureText, logFailure } from '../app/failure.js';
import { latestMonth } from '../views/usage.js';
import { DeadlineError, withDeadline } from '../util/deadline.js';
import { byLongestWait, withPermalinks, type OpenConversation } from '../handoff/open-list.js';
import { renderHome, type HomeState } from './render.js';

/** Home must render even when the platform is slow: usage is left out after this long. */
const QUOTA_BUDGET_MS = 2_500;
/** Dead letters the Home tab counts at most (it says "100+" past that). */
const DEAD_LETTERS_COUNTED = 100;
/** "My open conversations" lists this many, longest wait first. */
const MY_CONVERSATIONS_SHOWN = 10;

/** `enterpriseId`: the workspace's Enterprise Grid org, when Slack named one (its members count as ours). */
export async function publishHome(
  deps: Deps,
  client: WebClient,
  teamId: string,
  userId: string,
  enterpriseId?: string,
): Promise<void> {
  const state = await loadHomeState(deps, client, { teamId, enterpriseId }, userId);
  await client.views.publish({ user_id: userId, view: renderHome(state) });
}

async function loadHomeState(deps: Deps, client: WebClient, ws: Workspace, userId: string): Promise<HomeState> {
  const { teamId } = ws;
  // Conversations show customers: a guest, someone of another organisation or a deactivated user gets the
  // rest of the tab without them (one users.info, cached, serves this and the admin check).
  const refusal = await deps.members.refusal(client, ws, userId);
  const [connection, routes, digests, quotaAlerts, dead, isAdmin, mine, paused, roster] = await Promise.all([
    deps.store.workspaces.getConnection(teamId),
    deps.store.routes.listForTeam(teamId),
    deps.store.reports.digests(teamId),
    deps.store.reports.quotaAlerts(teamId),
    // The ones kept (not yet retried), not every one ever.
    deps.store.queue.deadLetters(teamId, DEAD_LETTERS_COUNTED).then((d) => d.entries.length),
    refusal ? false : deps.admins.isAdmin(client, teamId, userId, { enterpriseId: ws.enterpriseId }),
    refusal ? { hidden: refusal } : loadMyConversations(deps, client, teamId, userId),
    deps.store.channelPauses.list(teamId),
    deps.store.shifts.onShift(teamId),
  ]);
  const defaultKey = deps.platform.defaultKeyFor(teamId);
  return {
    connection,
    ...(defaultKey && !connection ? { defaultKeyLast4: maskKey(defaultKey).replace(/^•+/, '') } : {}),
    routes,
    digests,
    quotaAlerts,
    deadLetters: dead,
    pausedChannels: paused,
    quota: await loadQuota(deps, teamId, Boolean(connection ?? defaultKey)),
    isAdmin,
    myConversations: mine,
    now: deps.store.now(),
    onShift: { roster, viewer: userId },
  };
}

/** The open handoff conversations this user claimed, longest wait first (the first few, with the total). */
async function loadMyConversations(
  deps: Deps,
  client: WebClient,
  teamId: string,
  userId: string,
): Promise<{ shown: OpenConversation[]; total: number }> {
  const mine = (await deps.store.conversations.openThreads(teamId))
    .filter((t) => t.owner === userId)
    .sort(byLongestWait);
  return { shown: await withPermalinks(client, mine.slice(0, MY_CONVERSATIONS_SHOWN)), total: mine.length };
}

async function loadQuota(deps: Deps, teamId: string, connected: boolean): Promise<HomeState['quota']> {
  if (!connected) return undefined;
  try {
    const api = await deps.platform.clientFor(teamId);
    const latest = latestMonth(await withDeadline(api.quota.list(), QUOTA_BUDGET_MS, 'quota for the home tab'));
    return latest ? { row: latest } : { problem: 'the platform has no quota on record yet.' };
  } catch (err) {
    logFailure(deps.logger, err, { team: teamId }, 'quota for the home tab failed');
    return {
      problem:
        err instanceof DeadlineError
          ? 'the platform is slow to answer; refresh in a moment.'
          : failureText(failureOf(err)),
    };
  }
}
