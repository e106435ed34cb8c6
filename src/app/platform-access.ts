/**
 * Which platform API key a workspace uses, and a client bound to it.
 *
 * A workspace's own key (stored encrypted by `/campaign connect`) wins; `CAMPAIGN_API_KEY` is the default
 * of one workspace only: the installed one in single-workspace mode, `CAMPAIGN_API_KEY_TEAM` in OAuth mode
 * (any other workspace that installs the app must not run on the operator's platform account).
 * All clients share one transport (keep-alive pools to the platform), in which each takes its workspace's turns.
 */
import { CampaignClient, type PlatformTransport } from '../api/index.js';
import type { Redactor } from '../logger.js';
import type { Store } from '../store/index.js';

/** The workspace has no key: a user-facing condition, not a bug. */
export class NotConnectedError extends Error {
  override readonly name = 'NotConnectedError';
  constructor(readonly teamId: string) {
    super(`workspace ${teamId} has no platform API key`);
  }
}

export class PlatformAccess {
  constructor(
    private readonly transport: PlatformTransport,
    private readonly store: Store,
    private readonly redactor: Redactor,
    private readonly defaultApiKey: string | undefined,
    /** The only workspace `defaultApiKey` serves; every workspace when absent (single-workspace mode). */
    private readonly defaultApiKeyTeam?: string,
  ) {
    redactor.addSecret(defaultApiKey);
  }

  /** `CAMPAIGN_API_KEY` when it serves this workspace. */
  defaultKeyFor(teamId: string): string | undefined {
    return this.defaultApiKeyTeam === undefined || this.defaultApiKeyTeam === teamId ? this.defaultApiKey : undefined;
  }

  async apiKeyFor(teamId: string): Promise<string | undefined> {
    const stored = await this.store.workspaces.getApiKey(teamId);
    const key = stored ?? this.defaultKeyFor(teamId);
    this.redactor.addSecret(key);
    return key;
  }

  /** A client for this workspace; throws `NotConnectedError` when it has no key. */
  async clientFor(teamId: string): Promise<CampaignClient> {
    const key = await this.apiKeyFor(teamId);
    if (!key) throw new NotConnectedError(teamId);
    return new CampaignClient(this.transport, key, teamId);
  }

  /** A client for a key that is not stored yet (used to verify it before saving), in `teamId`'s turns. */
  clientForKey(apiKey: string, teamId: string): CampaignClient {
    this.redactor.addSecret(apiKey);
    return new CampaignClient(this.transport, apiKey, teamId);
  }
}
