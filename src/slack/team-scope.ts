/**
 * Which workspace a Web API call acts for, when the client making it cannot say: Bolt hands each listener a
 * client made from the request's token, and one token can act for many workspaces (an Enterprise Grid org-wide
 * install) — so Slack's per-workspace limits are budgeted by the workspace of the request being handled, set
 * here for the whole of its handling (src/bot/workspace-scope.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const scope = new AsyncLocalStorage<string>();

/** Runs `work` as acting for `teamId` (every Web API call it makes, awaited or not). */
export function actingForTeam<T>(teamId: string | undefined, work: () => Promise<T>): Promise<T> {
  return teamId ? scope.run(teamId, work) : work();
}

/** The workspace the current work acts for, when it was set. */
export function currentTeam(): string | undefined {
  return scope.getStore();
}
