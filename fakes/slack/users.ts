/** auth.*, team.info, users.info and conversations.*: who is who, and reading channels and threads. */
import { apiMessage } from './chat.js';
import type { SlackState, Handler, TokenInfo } from './state.js';
import type { SlackArgs, SlackChannel, SlackMessage, SlackUser } from './types.js';
import { bool, compareTs, fail, int, str, type Json } from './util.js';

const tzInfos = new Map<string, { tz_label: string; tz_offset: number }>();

/** A time zone's label and offset now (remembered for the hour: a company's users.list names one zone 3,000 times). */
export function tzInfo(tz: string): { tz_label: string; tz_offset: number } {
  const key = `${tz}\u0000${new Date().toISOString().slice(0, 13)}`;
  let info = tzInfos.get(key);
  if (!info) {
    if (tzInfos.size > 1_000) tzInfos.clear();
    info = computeTzInfo(tz);
    tzInfos.set(key, info);
  }
  return info;
}

function computeTzInfo(tz: string): { tz_label: string; tz_offset: number } {
  const now = new Date();
  const offsetName =
    new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'longOffset' })
      .formatToParts(now)
      .find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(offsetName);
  const tz_offset = m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 3600 + Number(m[3]) * 60) : 0;
  const tz_label =
    new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'long' })
      .formatToParts(now)
      .find((p) => p.type === 'timeZoneName')?.value ?? tz;
  return { tz_label, tz_offset };
}

/** One page of `list` by Slack's cursor scheme (`limit` clamped to 1…`maxLimit`; the cursor is opaque to callers). */
function cursorPage<T>(
  list: T[],
  args: SlackArgs,
  maxLimit: number,
): { items: T[]; hasMore: boolean; nextCursor: string } {
  const limit = Math.min(Math.max(int(args, 'limit') ?? 100, 1), maxLimit);
  const cursor = str(args, 'cursor');
  const offset = cursor
    ? Number.parseInt(
        Buffer.from(cursor, 'base64')
          .toString('utf8')
          .replace(/^offset:/, ''),
        10,
      ) || 0
    : 0;
  const hasMore = offset + limit < list.length;
  return {
    items: list.slice(offset, offset + limit),
    hasMore,
    nextCursor: hasMore ? Buffer.from(`offset:${offset + limit}`).toString('base64') : '',
  };
}

/**
 * One page of messages as conversations.history / conversations.replies answer it: a message's `metadata` only
 * with `include_all_metadata=true` ("Return all metadata associated with this message",
 * https://docs.slack.dev/reference/methods/conversations.history, …/conversations.replies), `limit` at most 999 —
 * 15 under Slack's 2025 limits for apps distributed outside the Marketplace (`historyLimited`).
 */
function page(s: SlackState, list: SlackMessage[], args: SlackArgs, extra: Json): Json {
  const { items, hasMore, nextCursor } = cursorPage(list, args, s.historyLimited ? 15 : 999);
  const withMetadata = bool(args, 'include_all_metadata');
  return {
    ok: true,
    messages: items.map((m) => {
      const out = apiMessage(m);
      if (!withMetadata) delete out.metadata;
      return out;
    }),
    has_more: hasMore,
    ...extra,
    response_metadata: { next_cursor: nextCursor },
  };
}

/**
 * `oldest` / `latest` bound the messages by ts, ends excluded unless `inclusive` (both methods' arguments:
 * "Include messages with oldest or latest timestamps in results. Ignored unless either timestamp is specified").
 */
function inTimeRange(args: SlackArgs): (m: SlackMessage) => boolean {
  const oldest = str(args, 'oldest');
  const latest = str(args, 'latest');
  const inclusive = bool(args, 'inclusive');
  return (m) => {
    if (oldest !== undefined && oldest !== '') {
      const c = compareTs(m.ts, oldest);
      if (inclusive ? c < 0 : c <= 0) return false;
    }
    if (latest !== undefined && latest !== '') {
      const c = compareTs(m.ts, latest);
      if (inclusive ? c > 0 : c >= 0) return false;
    }
    return true;
  };
}

/** A user as Slack's API shows it (users.info, users.list, and the `user` of team_join / user_change events). */
export function userObject(
  s: Pick<SlackState, 'botId' | 'appId'>,
  u: SlackUser,
  teamId: string,
  includeLocale: boolean,
): Json {
  const tz = u.tz ?? 'America/Los_Angeles';
  const { tz_label, tz_offset } = tzInfo(tz);
  const name = u.name ?? u.id.toLowerCase();
  const realName = u.real_name ?? name;
  const user: Json = {
    id: u.id,
    team_id: u.team_id ?? teamId,
    name,
    deleted: u.deleted ?? false,
    color: '9f69e7',
    real_name: realName,
    tz,
    tz_label,
    tz_offset,
    profile: {
      title: '',
      phone: '',
      skype: '',
      real_name: realName,
      real_name_normalized: realName,
      display_name: name,
      display_name_normalized: name,
      fields: null,
      status_text: '',
      status_emoji: '',
      status_expiration: 0,
      avatar_hash: 'g0123456789a',
      ...(u.email ? { email: u.email } : {}),
      first_name: realName.split(' ')[0] ?? realName,
      last_name: realName.split(' ').slice(1).join(' '),
      image_24: 'https://a.slack-edge.com/80588/img/avatars/user_shapes/ava_0001-24.png',
      image_72: 'https://a.slack-edge.com/80588/img/avatars/user_shapes/ava_0001-72.png',
      image_192: 'https://a.slack-edge.com/80588/img/avatars/user_shapes/ava_0001-192.png',
      team: u.team_id ?? teamId,
      ...(u.is_bot ? { bot_id: s.botId, api_app_id: s.appId, always_active: true } : {}),
    },
    is_admin: u.is_admin ?? false,
    is_owner: u.is_owner ?? false,
    is_primary_owner: u.is_primary_owner ?? false,
    is_restricted: u.is_restricted ?? false,
    is_ultra_restricted: u.is_ultra_restricted ?? false,
    is_bot: u.is_bot ?? false,
    is_app_user: false,
    updated: 1700000000,
    is_email_confirmed: !u.is_bot,
    who_can_share_contact_card: 'EVERYONE',
  };
  if (u.is_stranger !== undefined) user.is_stranger = u.is_stranger;
  if (u.enterprise_id) {
    user.enterprise_user = {
      id: u.id,
      enterprise_id: u.enterprise_id,
      enterprise_name: `Enterprise ${u.enterprise_id}`,
      is_admin: u.is_admin ?? false,
      is_owner: u.is_owner ?? false,
      is_primary_owner: u.is_primary_owner ?? false,
      teams: [u.team_id ?? teamId],
    };
  }
  if (includeLocale) user.locale = 'en-US';
  return user;
}

function channelObject(c: SlackChannel, auth: TokenInfo): Json {
  const created = 1600000000;
  if (c.id.startsWith('D')) {
    return {
      id: c.id,
      created,
      is_im: true,
      is_org_shared: false,
      user: c.user ?? '',
      is_user_deleted: false,
      priority: 0,
    };
  }
  const name = c.name ?? `channel-${c.id.toLowerCase()}`;
  const isPrivate = c.is_private ?? c.id.startsWith('G');
  return {
    id: c.id,
    name,
    is_channel: !isPrivate,
    is_group: isPrivate,
    is_im: false,
    is_mpim: false,
    is_private: isPrivate,
    created,
    is_archived: c.is_archived ?? false,
    is_general: name === 'general',
    unlinked: 0,
    name_normalized: name,
    is_shared: c.is_ext_shared === true || c.is_org_shared === true || c.is_pending_ext_shared === true,
    is_org_shared: c.is_org_shared ?? false,
    is_pending_ext_shared: c.is_pending_ext_shared ?? false,
    pending_shared: [],
    context_team_id: auth.teamId,
    updated: created * 1000,
    parent_conversation: null,
    creator: 'U0SOMEUSER1',
    is_ext_shared: c.is_ext_shared ?? false,
    shared_team_ids: [auth.teamId],
    is_member: c.is_member ?? true,
    topic: { value: c.topic ?? '', creator: '', last_set: 0 },
    purpose: { value: c.purpose ?? '', creator: '', last_set: 0 },
    previous_names: [],
    ...(c.num_members !== undefined ? { num_members: c.num_members } : {}),
  };
}

const CONVERSATION_TYPES = ['public_channel', 'private_channel', 'mpim', 'im'] as const;
type ConversationType = (typeof CONVERSATION_TYPES)[number];

/** The `types` of users.conversations (default `public_channel`); Slack refuses an unknown one. */
export function usersConversationTypes(args: SlackArgs): { kinds: ConversationType[] } | { error: string } {
  const raw = (str(args, 'types') ?? 'public_channel')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const kinds: ConversationType[] = [];
  for (const t of raw) {
    if (!(CONVERSATION_TYPES as readonly string[]).includes(t)) return { error: 'invalid_types' };
    kinds.push(t as ConversationType);
  }
  return { kinds: kinds.length > 0 ? kinds : ['public_channel'] };
}

/** The read scope each conversation type needs. */
export const CONVERSATION_TYPE_SCOPES: Record<ConversationType, string> = {
  public_channel: 'channels:read',
  private_channel: 'groups:read',
  mpim: 'mpim:read',
  im: 'im:read',
};

export function userHandlers(s: SlackState): Record<string, Handler> {
  return {
    'auth.test': (_args, auth) => {
      const team = s.team(auth.teamId);
      const user = s.users.get(auth.userId);
      const res: Json = {
        ok: true,
        url: `https://${team.domain}.slack.com/`,
        team: team.name,
        user: user?.name ?? 'campaign',
        team_id: team.id,
        user_id: auth.userId,
        is_enterprise_install: auth.orgWide === true,
      };
      if (auth.botId) res.bot_id = auth.botId;
      if (team.enterpriseId) res.enterprise_id = team.enterpriseId;
      return res;
    },

    'auth.revoke': (args, auth) => {
      if (bool(args, 'test')) return { ok: true, revoked: false };
      auth.revoked = true;
      return { ok: true, revoked: true };
    },

    'team.info': (_args, auth) => {
      const team = s.team(auth.teamId);
      return { ok: true, team: { id: team.id, name: team.name, domain: team.domain, email_domain: '', icon: {} } };
    },

    'users.info': (args, auth) => {
      const id = str(args, 'user');
      const user = id ? s.users.get(id) : undefined;
      if (!user) return fail('user_not_found');
      return { ok: true, user: userObject(s, user, auth.teamId, bool(args, 'include_locale')) };
    },

    // https://docs.slack.dev/reference/methods/users.list: "all users in the workspace ... both invited users and
    // deleted/deactivated users", bots included, cursor-paginated (`limit` at most 1000); people of another
    // organisation met in a Slack Connect channel are not the workspace's, nor are a sister workspace's.
    'users.list': (args, auth) => {
      const everyone = [...s.users.values()].filter(
        (u) => !u.is_stranger && (u.team_id ?? auth.teamId) === auth.teamId,
      );
      const { items, nextCursor } = cursorPage(everyone, args, 1000);
      return {
        ok: true,
        members: items.map((u) => userObject(s, u, auth.teamId, bool(args, 'include_locale'))),
        cache_ts: Math.floor(Date.now() / 1000),
        response_metadata: { next_cursor: nextCursor },
      };
    },

    // https://docs.slack.dev/reference/methods/usergroups.list: the workspace's groups, their members with
    // `include_users` (and how many with `include_count`); not paginated.
    'usergroups.list': (args, auth) => ({
      ok: true,
      usergroups: [...s.userGroups.values()]
        .filter((g) => (g.team_id ?? auth.teamId) === auth.teamId)
        .map((g) => ({
          id: g.id,
          team_id: g.team_id ?? auth.teamId,
          is_usergroup: true,
          name: g.name,
          handle: g.handle,
          ...(bool(args, 'include_users') ? { users: [...g.users] } : {}),
          ...(bool(args, 'include_count') ? { user_count: g.users.length } : {}),
        })),
    }),

    'users.conversations': (args, auth) => {
      const user = str(args, 'user') ?? auth.userId;
      const types = usersConversationTypes(args);
      if ('error' in types) return fail(types.error);
      const excludeArchived = bool(args, 'exclude_archived');
      // Through a bot token, channels of another user are listed only where the bot is a member too.
      const list = [...s.channels.values()].filter((c) => {
        if (c.id.startsWith('D')) return false;
        const isPrivate = c.is_private ?? c.id.startsWith('G');
        if (!types.kinds.includes(isPrivate ? 'private_channel' : 'public_channel')) return false;
        if (excludeArchived && c.is_archived) return false;
        if (isPrivate && c.is_member === false) return false;
        return (c.members ?? []).includes(user);
      });
      const { items, nextCursor } = cursorPage(list, args, 1000);
      return {
        ok: true,
        channels: items.map((c) => channelObject(c, auth)),
        response_metadata: { next_cursor: nextCursor },
      };
    },

    'conversations.info': (args, auth) => {
      const resolved = s.resolveChannel(str(args, 'channel'));
      if ('error' in resolved) return fail(resolved.error);
      const c = resolved.channel;
      if (c.is_member === false && (c.is_private || c.id.startsWith('G'))) return fail('channel_not_found');
      return { ok: true, channel: channelObject(c, auth) };
    },

    // https://docs.slack.dev/reference/methods/conversations.members: user ids, cursor-paginated (`limit` under
    // 1000), the bot among them; a private channel the bot is not in is `channel_not_found`.
    'conversations.members': (args, auth) => {
      const resolved = s.resolveChannel(str(args, 'channel'));
      if ('error' in resolved) return fail(resolved.error);
      const c = resolved.channel;
      if (c.is_member === false && (c.is_private || c.id.startsWith('G'))) return fail('channel_not_found');
      const everyone = [...(c.is_member === false ? [] : [auth.userId]), ...(c.members ?? [])];
      const { items, nextCursor } = cursorPage(everyone, args, 999);
      return { ok: true, members: items, response_metadata: { next_cursor: nextCursor } };
    },

    'conversations.open': (args) => {
      const users = (str(args, 'users') ?? '').split(',').filter(Boolean);
      const channelArg = str(args, 'channel');
      if (channelArg) {
        const resolved = s.resolveChannel(channelArg);
        if ('error' in resolved) return fail(resolved.error);
        return { ok: true, channel: { id: resolved.channel.id } };
      }
      if (users.length !== 1 || !users[0])
        return fail(users.length === 0 ? 'users_list_not_supplied' : 'not_enough_users');
      if (!s.users.has(users[0])) return fail('user_not_found');
      const dm = s.dmWith(users[0]);
      return { ok: true, no_op: false, already_open: false, channel: { id: dm.id } };
    },

    'conversations.history': (args, auth) => {
      const resolved = s.resolveChannel(str(args, 'channel'));
      if ('error' in resolved) return fail(resolved.error);
      const access = s.channelAccessError(resolved.channel, auth, false);
      if (access) return fail(access);
      // Newest first; thread replies stay in their thread unless broadcast.
      const top = (s.store.get(resolved.channel.id) ?? [])
        .filter((m) => !m.thread_ts || m.thread_ts === m.ts || m.reply_broadcast)
        .filter(inTimeRange(args))
        .reverse();
      return page(s, top, args, { pin_count: 0, channel_actions_ts: null, channel_actions_count: 0 });
    },

    'conversations.replies': (args, auth) => {
      const resolved = s.resolveChannel(str(args, 'channel'));
      if ('error' in resolved) return fail(resolved.error);
      const access = s.channelAccessError(resolved.channel, auth, false);
      if (access) return fail(access);
      const ts = str(args, 'ts') ?? '';
      const target = s.findMessage(resolved.channel.id, ts);
      if (!target) return fail('thread_not_found');
      // Oldest first, the parent leading; later pages of a cursor carry only replies.
      const list = (s.store.get(resolved.channel.id) ?? [])
        .filter(
          target.thread_ts && target.thread_ts !== target.ts
            ? (m) => m.ts === target.ts
            : (m) => m.ts === ts || m.thread_ts === ts,
        )
        .filter(inTimeRange(args));
      return page(s, list, args, {});
    },
  };
}
