/**
 * A company in the stand-in: thousands of people in one workspace, a channel everyone is in (a company's
 * #general), and what Slack sends when one of them changes — so the bot meets Slack's paging and rate limits at
 * a real company's size.
 *
 * - team_join (https://docs.slack.dev/reference/events/team_join): `user`, the new member's user object;
 * - user_change (https://docs.slack.dev/reference/events/user_change): `user`, the member's user object as it
 *   is now (`is_restricted`, `is_ultra_restricted`, `deleted`…), `cache_ts`;
 * - user_guest_status_changed (https://docs.slack.dev/reference/events/user_guest_status_changed): sent besides,
 *   when a member became a guest or the reverse ("Regular member to single-channel or multi-channel guest, or the
 *   reverse"), with the same `user`.
 */
import type { SignedResult, SlackSigner } from './signer.js';
import type { FakeSlack, SlackUser } from './types.js';
import { userObject } from './users.js';

export interface CompanyOptions {
  /** The channel everyone is in (none when left out). */
  channel?: string;
  /** How many people (besides those the test already added). */
  people: number;
  /** Letters (A–Z, 0–9) every id of this company starts with after `U`, so two companies never share ids. */
  prefix: string;
  /** Positions (0-based) of the people who are guests (multi-channel). */
  guests?: readonly number[];
  /** An Enterprise Grid org every one of them belongs to (their user objects carry `enterprise_user`). */
  enterpriseId?: string;
  /** Their workspace, when it is not the stand-in's own (a sister workspace of the org). */
  teamId?: string;
}

/** Adds the people and their channel, if any (the bot in it); answers their ids, in order. */
export function addCompany(fake: FakeSlack, opts: CompanyOptions): string[] {
  const guests = new Set(opts.guests ?? []);
  const ids: string[] = [];
  for (let i = 0; i < opts.people; i++) {
    const id = `U${opts.prefix}${i.toString(36).toUpperCase().padStart(5, '0')}`;
    ids.push(id);
    fake.addUser({
      id,
      name: `person.${opts.prefix.toLowerCase()}${i}`,
      ...(guests.has(i) ? { is_restricted: true } : {}),
      ...(opts.enterpriseId ? { enterprise_id: opts.enterpriseId } : {}),
      ...(opts.teamId ? { team_id: opts.teamId } : {}),
    });
  }
  if (opts.channel) fake.addChannel({ id: opts.channel, name: `all-${opts.prefix.toLowerCase()}`, members: ids });
  return ids;
}

function isGuest(u: SlackUser | undefined): boolean {
  return u?.is_restricted === true || u?.is_ultra_restricted === true;
}

/** A person's account changes (made a guest, a member again, deactivated…): user_change sent, as Slack does. */
export async function userChanged(
  fake: FakeSlack,
  signer: SlackSigner,
  id: string,
  change: Partial<Omit<SlackUser, 'id'>>,
): Promise<SignedResult[]> {
  const before = fake.user(id);
  const after: SlackUser = { ...before, ...change, id };
  fake.addUser(after);
  const user = userObject(fake, after, after.team_id ?? fake.teamId, false);
  const sent = [await signer.event({ type: 'user_change', user, cache_ts: Math.floor(Date.now() / 1000) })];
  if (isGuest(before) !== isGuest(after)) sent.push(await signer.event({ type: 'user_guest_status_changed', user }));
  return sent;
}

/** Someone joins the workspace: team_join sent. */
export function teamJoin(fake: FakeSlack, signer: SlackSigner, user: SlackUser): Promise<SignedResult> {
  fake.addUser(user);
  return signer.event({ type: 'team_join', user: userObject(fake, user, user.team_id ?? fake.teamId, false) });
}
