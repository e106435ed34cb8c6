/**
 * What `GET /readyz` checks: the store answers (each probe: a local round trip within 1 s), the bot is not
 * shutting down, and — with one workspace's token (SLACK_BOT_TOKEN) — Slack still accepts that token.
 *
 * The token is asked about with `auth.test` at most once per `SLACK_TOKEN_CHECK_MS`, never per probe: the first
 * probe after start asks, a probe finding the answer older than that asks again (and waits for it up to 1 s),
 * every other probe reads the last answer; the bot asks once as it starts, so a refused token is in the log at
 * once (then once a minute while it lasts). Only Slack's refusal of the token itself (`invalid_auth`,
 * `token_revoked`, `account_inactive`… — https://docs.slack.dev/reference/methods/auth.test, "Errors") makes the
 * bot not ready: every call it would make fails the same way until the app is reinstalled and the new token
 * deployed. A Slack that does not answer says nothing about the token: the last answer stands, so an outage
 * of Slack's never takes every replica out of the Service (webhooks would be refused too).
 */
import type { Deps } from '../app/deps.js';
import type { Logger } from '../logger.js';
import { classOfSlackError } from '../delivery/slack-errors.js';
import { withDeadline } from '../util/deadline.js';

const READY_TIMEOUT_MS = 1_000;

/** While Slack refuses the token, the log says so again at most this often. */
const REFUSAL_REPEAT_MS = 60_000;

/** How old the last `auth.test` answer may be before a probe asks again. */
export const SLACK_TOKEN_CHECK_MS = 30_000;

export interface Readiness {
  ok: boolean;
  /** The names of the checks that failed (`store`, `slack`, `lifecycle`). */
  failed: string[];
  /** Each check: `ok…` or why not, in fixed words an operator acts on (no token, no address, no error text). */
  checks: Record<string, string>;
}

/** The bot token's standing with Slack, from `auth.test` answers at most one per interval. */
export class SlackTokenCheck {
  private verdict = 'ok (not checked yet)';
  private askedAt: number | undefined;
  private asking: Promise<void> | undefined;
  /** When the operator was last told the token is refused (once a minute at most while it lasts). */
  private toldAt: number | undefined;

  constructor(
    /** `auth.test` through the bot's paced client. */
    private readonly authTest: () => Promise<unknown>,
    private readonly now: () => number,
    /** Told each answer about the token: `true` refused, `false` accepted (the metric's gauge). */
    private readonly onAnswer: (refused: boolean) => void,
    private readonly logger: Logger,
  ) {}

  /** The last verdict, asked again first (waiting up to 1 s) when it is older than the interval. */
  async current(): Promise<string> {
    const at = this.now();
    if (this.asking === undefined && (this.askedAt === undefined || at - this.askedAt >= SLACK_TOKEN_CHECK_MS)) {
      this.askedAt = at;
      this.asking = this.ask().finally(() => (this.asking = undefined));
    }
    if (this.asking) await withDeadline(this.asking, READY_TIMEOUT_MS, 'auth.test').catch(() => undefined);
    return this.verdict;
  }

  private async ask(): Promise<void> {
    try {
      await this.authTest();
      this.verdict = 'ok (auth.test)';
      this.toldAt = undefined;
      this.onAnswer(false);
    } catch (err) {
      const code = platformCode(err);
      if (code !== undefined && classOfSlackError(code) === 'workspace') {
        this.verdict = `refused: Slack answers auth.test with ${code} — the bot token no longer works; reinstall the app and deploy its new SLACK_BOT_TOKEN`;
        this.onAnswer(true);
        const at = this.now();
        if (this.toldAt === undefined || at - this.toldAt >= REFUSAL_REPEAT_MS) {
          this.toldAt = at;
          this.logger.error(
            { code },
            `Slack refuses SLACK_BOT_TOKEN (auth.test: ${code}): set it to the app’s current Bot User OAuth Token (OAuth & Permissions; reinstalling the app gives a new one)`,
          );
        }
      }
      // Anything else (Slack unreachable, 5xx, 429): nothing learnt about the token; the last verdict stands.
    }
  }
}

/** Slack's error code of a refused Web API call (`{ok:false,error}`), if that is what failed. */
function platformCode(err: unknown): string | undefined {
  const code = (err as { data?: { error?: unknown } } | null)?.data?.error;
  return typeof code === 'string' ? code : undefined;
}

export async function readiness(
  deps: Pick<Deps, 'config' | 'store' | 'lifecycle'>,
  slackToken: SlackTokenCheck | undefined,
): Promise<Readiness> {
  const checks: Record<string, string> = { config: 'ok' };
  const [store, slack] = await Promise.all([storeCheck(deps), slackToken?.current()]);
  checks.store = store;
  if (slack !== undefined) checks.slack = slack;
  checks.lifecycle = deps.lifecycle.stopping ? 'shutting down' : 'ok';
  const failed = Object.keys(checks).filter((name) => !checks[name]?.startsWith('ok'));
  return { ok: failed.length === 0, failed, checks };
}

/** The store's error text (it may name its address) is not said here: the log says it (reportOutages). */
async function storeCheck({ config, store }: Pick<Deps, 'config' | 'store'>): Promise<string> {
  try {
    await withDeadline(store.ping(), READY_TIMEOUT_MS, 'store ping');
    return `ok (${store.backend})`;
  } catch {
    const variable = config.redisCluster ? 'REDIS_CLUSTER_NODES' : 'REDIS_URL';
    return `unreachable: Redis does not answer — check ${variable} and that Redis is running`;
  }
}
