/**
 * Which Slack bot token acts for a workspace, for calls made outside the WebClient Bolt hands a
 * listener (queue workers posting notifications, timers, downloading `url_private_download`, which needs the
 * token in an Authorization header).
 *
 * One seam on purpose: single-workspace mode has the one token from config; OAuth mode asks Bolt's installer
 * (@slack/oauth's InstallProvider) — the workspace's own installation or its org's (org-wide install) — which
 * refreshes a rotating token before it expires, exactly as it does for Slack's requests (once across replicas:
 * src/store/installations.ts).
 */
import type { AuthorizeResult, InstallationQuery } from '@slack/oauth';
import type { Config } from '../config.js';
import type { Store } from '../store/index.js';

/** What the tokens need of Bolt's installer (`HTTPReceiver.installer`, made once the receiver is). */
export interface TokenInstaller {
  authorize(source: InstallationQuery<boolean>): Promise<AuthorizeResult>;
}

export class SlackTokens {
  private installer: TokenInstaller | undefined;

  constructor(
    private readonly config: Pick<Config, 'slack'>,
    private readonly store: Pick<Store, 'installations'>,
  ) {}

  /** OAuth mode: Bolt's installer, which refreshes rotating tokens. */
  useInstaller(installer: TokenInstaller | undefined): void {
    this.installer = installer;
  }

  /** The workspace's bot token now; undefined while the app is not installed there (or its org). */
  async botToken(teamId: string, enterpriseId?: string): Promise<string | undefined> {
    const mode = this.config.slack.mode;
    if (mode.kind === 'single') return mode.botToken;
    const query = await this.store.installations.queryFor(teamId, enterpriseId);
    if (!query) return undefined;
    if (!this.installer) return (await this.store.installations.botToken(teamId, enterpriseId)) ?? undefined;
    return (await this.installer.authorize(query)).botToken;
  }

  /**
   * Slack refused `expired` as `token_expired`: the token that replaces it (refreshed now if nobody has yet), or
   * undefined when there is none — single-workspace mode, a token that does not rotate, or a call made for no
   * known workspace.
   */
  async renew(teamId: string | undefined, expired: string): Promise<string | undefined> {
    // Only an expiring bot token (`xoxe.`, token rotation) is replaced: a workflow run's token is that run's own.
    if (this.config.slack.mode.kind === 'single' || teamId === undefined || !expired.startsWith('xoxe.'))
      return undefined;
    const query = await this.store.installations.queryFor(teamId);
    if (!query) return undefined;
    await this.store.installations.expired(query, expired);
    return this.botToken(teamId);
  }
}
