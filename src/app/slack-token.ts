/**
 * Which Slack bot token acts for a workspace, for calls made outside the WebClient Bolt hands a
 * listener (queue workers posting notifications, downloading `url_private_download`, which needs the
 * token in an Authorization header).
 *
 * One seam on purpose: single-workspace mode has the one token from config; OAuth mode reads the
 * workspace's installation (org-wide installs included).
 */
import type { Deps } from './deps.js';

export async function botTokenFor(
  deps: Pick<Deps, 'config' | 'store'>,
  teamId: string,
  enterpriseId?: string,
): Promise<string | undefined> {
  const mode = deps.config.slack.mode;
  if (mode.kind === 'single') return mode.botToken;
  return (await deps.store.installations.botToken(teamId, enterpriseId)) ?? undefined;
}
