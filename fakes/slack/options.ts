/** How a test starts the Slack stand-in (`startFakeSlack(options)`): what it seeds and which of Slack's limits it keeps. */
import type { FunctionDefinition } from './function-types.js';

export interface FakeSlackOptions {
  botToken?: string;
  /**
   * The app-level token (`xapp-…`, scope `connections:write`) that `apps.connections.open` accepts.
   * Default: a fresh `xapp-1-<appId>-…` token. Anything not starting with `xapp-` is rejected here.
   */
  appToken?: string;
  /** How often the fake pings each Socket Mode connection (Slack pings too). Default 5000; 0 = never. */
  socketPingIntervalMs?: number;
  teamId?: string;
  botUserId?: string;
  botId?: string;
  appId?: string;
  teamName?: string;
  /** Workspace subdomain: permalinks are `https://<domain>.slack.com/...`. */
  teamDomain?: string;
  /** The workspace belongs to this Enterprise Grid org: auth.test answers its `enterprise_id`. */
  enterpriseId?: string;
  /** Scopes of the bot token and of OAuth grants by default (callers pass the app manifest's bot scopes). */
  scopes: readonly string[];
  /** trigger_id lifetime (Slack: 3 s). */
  triggerTtlMs?: number;
  /**
   * The clock trigger_ids, response_urls and OAuth codes are issued and expire by (a test moves it past their
   * lifetime instead of waiting it out). Default `Date.now`.
   */
  expiryClock?: () => number;
  /** How many posts a response_url accepts (Slack: 5, within 30 minutes). */
  responseUrlMaxUses?: number;
  /** The workflow steps the app declares (its manifest's `functions:`); `executeFunction` runs only these. */
  functions?: readonly FunctionDefinition[];
  /** When set, oauth.v2.access / apps.uninstall check these credentials (otherwise any non-empty pair). */
  oauthClient?: { clientId: string; clientSecret: string };
  /**
   * Token rotation on (https://docs.slack.dev/authentication/using-token-rotation): oauth.v2.access grants an
   * expiring `xoxe.xoxb-` token with a refresh token, refreshed with `grant_type=refresh_token`; a token past its
   * `lifeS` (on `expiryClock`) is refused with `token_expired`. Slack's life is 12 hours.
   */
  tokenRotation?: { lifeS: number };
  /**
   * The origin the stand-in names in its files' `url_private(_download)` — e.g. `https://files.slack-gov.com`, for a
   * test that answers for that host itself (a dispatcher of its own); its own origin by default.
   */
  fileOrigin?: string;
  /**
   * What a file download without a valid token gets. `'forbidden'` (default): 403 + an HTML page.
   * `'login-page'`: what slack.com really does for browsers — 302 to a sign-in page that answers 200 HTML,
   * which a naive `fetch` follows and then mistakes for the file.
   */
  unauthenticatedFileDownloads?: 'forbidden' | 'login-page';
  /**
   * How an authorized file download is answered. `'direct'` (default): 200 with the bytes. `'cdn-redirect'`:
   * what Slack does for many files — a 302 to a signed, expiring URL on its file CDN that needs no token.
   */
  fileDownloads?: 'direct' | 'cdn-redirect';
  /**
   * Turns off the rate limits every stand-in applies by default (rate-limits.ts): chat.postMessage 4 in a
   * burst then 1 per second per workspace and channel; chat.update, chat.delete, reactions.add and
   * reactions.remove (Tier 3) 10 in a burst then 50 per minute per workspace and method; users.list (Tier 2)
   * 5 then 20 a minute; users.info and conversations.members (Tier 4) 20 then 100 a minute. Beyond them Slack,
   * and the stand-in, answer 429 + Retry-After, which the refusal check reports. Only for a test that drives
   * the stand-in itself at speed as a tool, never for one about the app: say why (a non-empty reason).
   * Injected faults (`rateLimit`, `channelRateLimit`, `workspacePostLimit`) still apply.
   */
  unlimitedBecause?: string;
  /** Other numbers for the default limits (a field left out keeps Slack's). Not with `unlimitedBecause`. */
  rateLimits?: {
    postPerChannel?: { capacity?: number; perSecond?: number };
    tier3?: { capacity?: number; perMinute?: number };
    /** users.list. */
    tier2?: { capacity?: number; perMinute?: number };
    /** users.info, conversations.members. */
    tier4?: { capacity?: number; perMinute?: number };
  };
  /**
   * The clock the rate limits refill by, `workspacePostLimit`'s minute runs on and `failMethodFor` faults heal by
   * (a test moves it instead of waiting out a Retry-After or an outage). Default `Date.now`.
   */
  rateLimitClock?: () => number;
  /**
   * Slack's 2025 limits for apps distributed outside the Marketplace, on from the start (`limitHistory` switches
   * them at run time): conversations.history and conversations.replies 1 a minute per workspace and method, 429 +
   * Retry-After beyond, and at most 15 messages a page (https://docs.slack.dev/reference/methods/conversations.history,
   * https://docs.slack.dev/apis/web-api/rate-limits › App types and rate limits).
   */
  historyLimits2025?: boolean;
  /** The app manifest's `metadata_subscriptions`: which posts' `message_metadata_posted` events go out. */
  metadataSubscriptions?: readonly MetadataSubscription[];
}

/** One entry of the manifest's `settings.event_subscriptions.metadata_subscriptions`. */
export interface MetadataSubscription {
  /** The app whose posts are meant, or `'*'` for any app. */
  app_id: string;
  event_type: string;
}
