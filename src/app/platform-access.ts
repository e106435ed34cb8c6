/**
 * Which platform API key a workspace uses, and a client bound to it.
 *
 * A workspace's own key (stored encrypted by `/campaign connect`) wins; `CAMPAIGN_API_KEY` is the default
 * of one workspace only: the installed one in single-workspace mode, `CAMPAIGN_API_KEY_TEAM` in OAuth mode
 * (any other workspace that installs the app must not run on the operator's platform account).
 * All clients share one transport (keep-alive pools to the platform), in which each takes its workspace's turns.
 * A refusal of `CAMPAIGN_API_KEY` is the operator's to fix: a log line naming it (once a minute at most), and
 * users are told so (`OperatorKeyRefusedError`), never to reconnect their workspace.
 */
import {
  ApiConnectionError,
  ApiTimeoutError,
  AuthenticationError,
  CampaignClient,
  NotFoundError,
  type PlatformTransport,
} from '../api/index.js';
import type { Logger, Redactor } from '../logger.js';
import type { Store } from '../store/index.js';

/** While the platform refuses CAMPAIGN_API_KEY, the log says so again at most this often. */
const REFUSAL_REPEAT_MS = 60_000;

/** The workspace has no key: a user-facing condition, not a bug. */
export class NotConnectedError extends Error {
  override readonly name = 'NotConnectedError';
  constructor(readonly teamId: string) {
    super(`workspace ${teamId} has no platform API key`);
  }
}

/** The platform refused CAMPAIGN_API_KEY: the operator's to fix, not the workspace's. */
export class OperatorKeyRefusedError extends AuthenticationError {
  override name = 'OperatorKeyRefusedError';
}

export class PlatformAccess {
  /** Requests with CAMPAIGN_API_KEY: a refusal becomes OperatorKeyRefusedError. */
  private readonly operatorTransport: PlatformTransport;
  private refusalToldAt: number | undefined;

  constructor(
    private readonly transport: PlatformTransport,
    private readonly store: Store,
    private readonly redactor: Redactor,
    private readonly logger: Logger,
    private readonly defaultApiKey: string | undefined,
    /** The only workspace `defaultApiKey` serves; every workspace when absent (single-workspace mode). */
    private readonly defaultApiKeyTeam?: string,
  ) {
    redactor.addSecret(defaultApiKey);
    const refused = (err: unknown): never => {
      if (!(err instanceof AuthenticationError)) throw err;
      this.tellRefusal(err);
      throw new OperatorKeyRefusedError({ ...err, message: err.message });
    };
    this.operatorTransport = {
      withKey: (apiKey, workspace) => {
        const keyed = transport.withKey(apiKey, workspace);
        return {
          requestJson: (req, schema) => keyed.requestJson(req, schema).catch(refused),
          requestEmpty: (req) => keyed.requestEmpty(req).catch(refused),
        };
      },
      close: () => transport.close(),
    };
  }

  /**
   * Tries CAMPAIGN_API_KEY once, as the bot starts (GET /open-api, the cheapest authenticated call): a refused key,
   * or a CAMPAIGN_API_URL that leads nowhere, is one log line naming the variable from the start.
   */
  async checkOperatorKey(): Promise<void> {
    if (!this.defaultApiKey) return;
    const client = new CampaignClient(this.operatorTransport, this.defaultApiKey, this.defaultApiKeyTeam ?? 'operator');
    const err = await client.keys.list().then(
      () => undefined,
      (e: unknown) => e,
    );
    const unanswered = err instanceof ApiConnectionError || err instanceof ApiTimeoutError;
    if (!unanswered && !(err instanceof NotFoundError)) return;
    this.logger.warn(
      { reason: err.message },
      `The platform ${unanswered ? 'did not answer' : 'answered 404'} at CAMPAIGN_API_URL: check that it is the platform’s base URL (ending in /v1/api) and that this host reaches it`,
    );
  }

  /** One line naming CAMPAIGN_API_KEY, at most once a minute while the platform refuses it. */
  private tellRefusal(err: AuthenticationError): void {
    const at = Date.now();
    if (this.refusalToldAt !== undefined && at - this.refusalToldAt < REFUSAL_REPEAT_MS) return;
    this.refusalToldAt = at;
    this.logger.error(
      { status: err.status, code: err.code, requestId: err.requestId, endpoint: err.endpoint },
      `The platform refuses CAMPAIGN_API_KEY (HTTP ${err.status}): set CAMPAIGN_API_KEY to a current key from the platform’s portal`,
    );
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
    return new CampaignClient(key === this.defaultApiKey ? this.operatorTransport : this.transport, key, teamId);
  }

  /** A client for a key that is not stored yet (used to verify it before saving), in `teamId`'s turns. */
  clientForKey(apiKey: string, teamId: string): CampaignClient {
    this.redactor.addSecret(apiKey);
    return new CampaignClient(this.transport, apiKey, teamId);
  }
}
