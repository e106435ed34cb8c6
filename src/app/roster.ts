/**
 * Who a workspace's people are, learned from Slack in bulk and kept (`RosterRepo`: one letter per user id): a
 * channel of 3,000 is judged by its member list and one read of the roster, not by 3,000 users.info calls at
 * Slack's 100 a minute.
 *
 * - users.list (https://docs.slack.dev/reference/methods/users.list, Tier 2, cursor-paginated, `limit` at most
 *   1000): "all users in the workspace ... both invited users and deleted/deactivated users". Listed when a
 *   workspace is first judged and after Slack held events back (app_rate_limited), and again in the background
 *   once the list is a day old; its pages wait for Slack's pace rather than fail (`SlackPace.readWhenPaced`).
 * - auth.test (https://docs.slack.dev/reference/methods/auth.test): the workspace's `enterprise_id` on
 *   Enterprise Grid, so people of its sister workspaces count as ours (their users carry
 *   `enterprise_user.enterprise_id`, https://docs.slack.dev/reference/objects/user-object).
 * - users.info (Tier 4) only for people the roster does not know — someone of another organisation in a Slack
 *   Connect channel, someone of a sister workspace — and the verdict is kept in the roster until the next listing.
 * - team_join, user_change and user_guest_status_changed (https://docs.slack.dev/reference/events/team_join,
 *   …/user_change, …/user_guest_status_changed) carry the person's user object: their letter is rewritten, and a
 *   changed one makes every channel judged before it stale (`changedAt`).
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logger.js';
import type { SlackPace } from '../delivery/pace.js';
import { slackErrorCode } from '../slack/post.js';
import type { RosterMeta, Store, Verdict } from '../store/index.js';
import { standingOf, type SlackUserFacts, type Workspace } from './membership.js';

/** A roster is listed again after this long (Slack's events keep it current in between). */
const ROSTER_MAX_AGE_MS = 24 * 3600_000;
/** users.list's page: Slack's largest. */
const USERS_PAGE = 1_000;
/** People the roster does not know, asked about at once (users.info, Tier 4). */
const LOOKUPS_AT_ONCE = 5;
/** People the roster does not know, asked about per judgement at most; the rest wait for the next one. */
const LOOKUPS_PER_JUDGEMENT = 40;

const VERDICT_OF_STANDING = { member: 'm', guest: 'g', external: 'x', deactivated: 'd' } as const;

function verdictOf(org: Workspace, user: SlackUserFacts): Verdict {
  return VERDICT_OF_STANDING[standingOf(org, user).kind];
}

export class Roster {
  private readonly listing = new Map<string, Promise<RosterMeta>>();

  constructor(
    private readonly store: Pick<Store, 'rosters' | 'now'>,
    private readonly pace: Pick<SlackPace, 'readWhenPaced'>,
    private readonly logger: Logger,
  ) {}

  /**
   * The roster to judge by: listed first when there is none or Slack may have held events back; a day-old one
   * is listed again in the background, and judged by meanwhile (Slack's events kept it current).
   */
  async current(slack: WebClient, ws: Workspace): Promise<RosterMeta> {
    const meta = await this.trusted(ws.teamId);
    if (!meta) return this.listOnce(slack, ws);
    if (this.store.now() - meta.listedAt >= ROSTER_MAX_AGE_MS)
      this.listOnce(slack, ws).catch((err: unknown) => {
        this.logger.warn({ err, team: ws.teamId }, 'could not list the workspace’s people again: the last list holds');
      });
    return meta;
  }

  /** The stored roster when it is one to judge by (without listing it). */
  async trusted(teamId: string): Promise<RosterMeta | undefined> {
    const meta = await this.store.rosters.meta(teamId);
    return meta && meta.staleSince === undefined ? meta : undefined;
  }

  private listOnce(slack: WebClient, ws: Workspace): Promise<RosterMeta> {
    const running = this.listing.get(ws.teamId);
    if (running) return running;
    const work = this.list(slack, ws).finally(() => this.listing.delete(ws.teamId));
    this.listing.set(ws.teamId, work);
    return work;
  }

  private async list(slack: WebClient, ws: Workspace): Promise<RosterMeta> {
    const startedAt = this.store.now();
    const enterpriseId = ws.enterpriseId ?? ((await slack.auth.test()).enterprise_id || undefined);
    const org: Workspace = { teamId: ws.teamId, enterpriseId };
    const verdicts = new Map<string, Verdict>();
    let cursor: string | undefined;
    let pages = 0;
    do {
      // Tier 2: a 10,000-person workspace's fifth page waits its turn (here, or after Slack's Retry-After).
      const page = await this.pace.readWhenPaced(() =>
        slack.users.list({ limit: USERS_PAGE, ...(cursor ? { cursor } : {}) }),
      );
      pages++;
      for (const user of page.members ?? []) if (user.id) verdicts.set(user.id, verdictOf(org, user));
      cursor = page.response_metadata?.next_cursor || undefined;
    } while (cursor);
    // Listed whole: held-back events are covered, and every channel judged before it is done is stale (changedAt).
    const meta: RosterMeta = {
      listedAt: startedAt,
      changedAt: this.store.now(),
      ...(enterpriseId ? { enterpriseId } : {}),
    };
    await this.store.rosters.replace(ws.teamId, verdicts, meta);
    const guests = [...verdicts.values()].filter((v) => v === 'g').length;
    this.logger.info({ team: ws.teamId, people: verdicts.size, guests, pages }, 'listed the workspace’s people');
    return meta;
  }

  /**
   * Each person's verdict: the roster's, and Slack's (users.info) for the few it does not know. `unknown`: the
   * people Slack could not tell about just now, or beyond this judgement's share of questions — not known yet,
   * which is never the same as a guest.
   */
  async verdicts(
    slack: WebClient,
    org: Workspace,
    userIds: readonly string[],
  ): Promise<{ verdicts: Map<string, Verdict>; unknown: string[] }> {
    const known = await this.store.rosters.verdicts(org.teamId, userIds);
    const verdicts = new Map<string, Verdict>();
    const missing: string[] = [];
    userIds.forEach((id, i) => {
      const v = known[i];
      if (v) verdicts.set(id, v);
      else missing.push(id);
    });
    const asked = missing.slice(0, LOOKUPS_PER_JUDGEMENT);
    const unknown = missing.slice(LOOKUPS_PER_JUDGEMENT);
    for (let i = 0; i < asked.length; i += LOOKUPS_AT_ONCE) {
      const batch = asked.slice(i, i + LOOKUPS_AT_ONCE);
      const answers = await Promise.all(batch.map((id) => this.lookUp(slack, org, id)));
      answers.forEach((v, j) => {
        if (v) verdicts.set(batch[j]!, v);
        else unknown.push(batch[j]!);
      });
    }
    return { verdicts, unknown };
  }

  private async lookUp(slack: WebClient, org: Workspace, userId: string): Promise<Verdict | undefined> {
    let verdict: Verdict;
    try {
      const res = await this.pace.readWhenPaced(() => slack.users.info({ user: userId }));
      verdict = verdictOf(org, res.user ?? {});
    } catch (err) {
      // Slack knows nobody by that id for this workspace: someone it cannot vouch for reads as an outsider.
      if (slackErrorCode(err) === 'user_not_found') verdict = 'x';
      else {
        this.logger.warn({ err, team: org.teamId, user: userId }, 'users.info failed while judging a channel');
        return undefined;
      }
    }
    await this.store.rosters.set(org.teamId, userId, verdict);
    return verdict;
  }

  /**
   * Slack's word on one person (team_join, user_change, user_guest_status_changed). True when someone the roster
   * knew changed verdict: every channel judged before is stale from now on.
   */
  async heard(ws: Workspace, user: SlackUserFacts & { id: string }): Promise<boolean> {
    const meta = await this.store.rosters.meta(ws.teamId);
    if (!meta) return false; // never listed: the first judgement lists everyone as they are
    const verdict = verdictOf({ teamId: ws.teamId, enterpriseId: ws.enterpriseId ?? meta.enterpriseId }, user);
    const before = await this.store.rosters.set(ws.teamId, user.id, verdict);
    // Someone new is in no channel yet (member_joined_channel tells when they join one).
    if (before === undefined || before === verdict) return false;
    await this.store.rosters.setMeta(ws.teamId, { ...meta, changedAt: this.store.now() });
    this.logger.info(
      { team: ws.teamId, user: user.id, before, verdict },
      'someone’s standing in the workspace changed',
    );
    return true;
  }

  /** Slack held some of the workspace's events back: the roster is listed again before it is trusted. */
  async eventsMissed(teamId: string): Promise<void> {
    const meta = await this.store.rosters.meta(teamId);
    if (meta && meta.staleSince === undefined)
      await this.store.rosters.setMeta(teamId, { ...meta, staleSince: this.store.now() });
  }
}
