/**
 * Which Slack bot token acts for a workspace, for the few calls made outside the WebClient Bolt hands a
 * listener (e.g. downloading `url_private_download`, which needs the token in an Authorization header).
 *
 * One seam on purpose: single-workspace mode has the one token from config; OAuth mode will read the
 * workspace's installation here once installations are stored. Until then OAuth mode has no token to give,
 * and callers tell the user so instead of failing later.
 */
import type { Deps } from './deps.js';

export function botTokenFor(deps: Pick<Deps, 'config'>, _teamId: string): Promise<string | undefined> {
  const mode = deps.config.slack.mode;
  return Promise.resolve(mode.kind === 'single' ? mode.botToken : undefined);
}
