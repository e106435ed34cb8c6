/**
 * chat.* methods. Messages are stored per channel (threads, reply counts, reactions, edits, deletes); ts
 * values are `seconds.micros` strings that strictly increase.
 */
import { messageErrors } from './block-kit.js';
import { controlSequenceErrors } from './mrkdwn.js';
import type { SlackState, Handler, TokenInfo } from './state.js';
import type { SeedMessage, SlackArgs, SlackEphemeral, SlackMessage } from './types.js';
import { bool, clone, fail, isObj, str, tsToMicros, type Json } from './util.js';

export function botMessage(s: SlackState, auth: TokenInfo, channel: string, args: SlackArgs, ts: string): SlackMessage {
  const msg: SlackMessage = {
    type: 'message',
    channel,
    ts,
    text: str(args, 'text') ?? '',
    user: auth.userId,
    team: auth.teamId,
    app_id: s.appId,
  };
  if (auth.botId) msg.bot_id = auth.botId;
  if (Array.isArray(args.blocks)) msg.blocks = clone(args.blocks);
  if (Array.isArray(args.attachments)) msg.attachments = clone(args.attachments);
  if (args.metadata !== undefined) msg.metadata = clone(args.metadata);
  const threadTs = str(args, 'thread_ts');
  if (threadTs) msg.thread_ts = threadTs;
  if (threadTs && bool(args, 'reply_broadcast')) {
    msg.reply_broadcast = true;
    msg.subtype = 'thread_broadcast';
  }
  for (const k of ['username', 'icon_emoji', 'icon_url'] as const) {
    const v = str(args, k);
    if (v) msg[k] = v;
  }
  return msg;
}

/** Shared validation of text/blocks/attachments for message-creating methods. */
export function contentError(args: SlackArgs, requireContent: boolean): Json | undefined {
  const blocksGiven = Array.isArray(args.blocks);
  if (args.blocks !== undefined && !blocksGiven && args.blocks !== '' && args.blocks !== '[]')
    return fail('invalid_blocks_format');
  if (args.attachments !== undefined && !Array.isArray(args.attachments) && args.attachments !== '') {
    return fail('invalid_attachments');
  }
  const errors = messageErrors(blocksGiven ? args : { ...args, blocks: undefined });
  if (errors.length > 0) return fail('invalid_blocks', { response_metadata: { messages: errors } });
  const text = str(args, 'text') ?? '';
  if (text.length > 40_000) return fail('msg_too_long');
  // The message text is mrkdwn too (unless `mrkdwn: false`): Slack parses it, in the message and its notification.
  const textErrors = args.mrkdwn === false ? [] : controlSequenceErrors(text);
  if (textErrors.length > 0)
    return fail('invalid_blocks', {
      response_metadata: { messages: textErrors.map((m) => `[ERROR] ${m} [json-pointer:/text]`) },
    });
  const hasBlocks = Array.isArray(args.blocks) && args.blocks.length > 0;
  const hasAttachments = Array.isArray(args.attachments) && args.attachments.length > 0;
  if (requireContent && text === '' && !hasBlocks && !hasAttachments) return fail('no_text');
  return undefined;
}

/**
 * A message's `metadata` as Slack takes it: a JSON object (or a JSON string of one) — otherwise
 * `invalid_metadata_format` — with a string `event_type` and an object `event_payload` — otherwise
 * `invalid_metadata_schema` (chat.postMessage's and chat.update's "Errors",
 * https://docs.slack.dev/reference/methods/chat.postMessage). An `event_type` with characters other than letters,
 * digits, `_` and `-` "returns an `invalid_metadata_schema` warning and is ignored"
 * (https://docs.slack.dev/messaging/message-metadata): the message goes out without it.
 */
function messageMetadata(args: SlackArgs): { value?: Json; warning?: Json } | { error: Json } {
  let raw = args.metadata;
  if (raw === undefined || raw === '') return {};
  if (typeof raw === 'string') {
    try {
      raw = JSON.parse(raw) as unknown;
    } catch {
      return { error: fail('invalid_metadata_format') };
    }
  }
  if (!isObj(raw)) return { error: fail('invalid_metadata_format') };
  if (typeof raw.event_type !== 'string' || raw.event_type === '' || !isObj(raw.event_payload))
    return { error: fail('invalid_metadata_schema') };
  if (!/^[A-Za-z0-9_-]+$/.test(raw.event_type))
    return {
      warning: { warning: 'invalid_metadata_schema', response_metadata: { warnings: ['invalid_metadata_schema'] } },
    };
  return { value: { event_type: raw.event_type, event_payload: clone(raw.event_payload) } };
}

/** An ephemeral message (chat.postEphemeral or an ephemeral response_url post), stored for `ephemerals()`. */
export function addEphemeral(
  s: SlackState,
  to: Pick<SlackEphemeral, 'channel' | 'user' | 'via'>,
  payload: SlackArgs,
): SlackEphemeral {
  const eph: SlackEphemeral = { ...to, ts: s.nextTs(), text: str(payload, 'text') ?? '', at: Date.now() };
  if (Array.isArray(payload.blocks)) eph.blocks = clone(payload.blocks);
  if (Array.isArray(payload.attachments)) eph.attachments = clone(payload.attachments);
  const threadTs = str(payload, 'thread_ts');
  if (threadTs) eph.thread_ts = threadTs;
  s.ephemeralList.push(eph);
  return eph;
}

export function apiMessage(m: SlackMessage): Json {
  const { channel: _channel, ...rest } = clone(m);
  return rest;
}

export function addMessage(s: SlackState, m: SeedMessage): SlackMessage {
  const existing = m.ts ? s.findMessage(m.channel, m.ts) : undefined;
  if (existing) return clone(existing);
  const ts = m.ts ?? s.nextTs();
  if (m.ts) s.lastTsMicros = Math.max(s.lastTsMicros, tsToMicros(m.ts));
  const msg: SlackMessage = {
    type: 'message',
    channel: m.channel,
    ts,
    text: m.text ?? '',
    user: m.user ?? 'U0SOMEUSER1',
    team: s.teamId,
  };
  if (m.bot_id) msg.bot_id = m.bot_id;
  if (m.blocks) msg.blocks = clone(m.blocks);
  if (m.files) msg.files = clone(m.files);
  if (m.subtype) msg.subtype = m.subtype;
  if (m.thread_ts && m.thread_ts !== ts) msg.thread_ts = m.thread_ts;
  s.insertMessage(msg);
  if (m.files)
    markShared(
      s,
      m.files.map((f) => f.id),
      m.channel,
    );
  return clone(msg);
}

/** A person shared these files in `channel` (a `file_share` message): `files.info` lists the channel, as Slack's does. */
function markShared(s: SlackState, fileIds: readonly string[], channel: string): void {
  for (const id of fileIds) {
    const file = s.files.get(id)?.file;
    if (!file) continue;
    const list = channel.startsWith('D') ? file.ims : channel.startsWith('G') ? file.groups : file.channels;
    if (!list.includes(channel)) list.push(channel);
  }
}

export function chatHandlers(s: SlackState): Record<string, Handler> {
  return {
    'chat.postMessage': (args, auth) => {
      const resolved = s.resolveChannel(str(args, 'channel'));
      if ('error' in resolved) return fail(resolved.error);
      const access = s.channelAccessError(resolved.channel, auth, true);
      if (access) return fail(access);
      const restricted = s.postRestriction(resolved.channel.id, str(args, 'thread_ts'));
      if (restricted) return fail(restricted);
      const invalid = contentError(args, true);
      if (invalid) return invalid;
      const metadata = messageMetadata(args);
      if ('error' in metadata) return metadata.error;
      const msg = botMessage(s, auth, resolved.channel.id, { ...args, metadata: metadata.value }, s.nextTs());
      s.insertMessage(msg);
      s.metadataEvents.posted(msg, s.appId, auth.teamId);
      const out = apiMessage(msg);
      const botProfile = {
        id: auth.botId,
        app_id: s.appId,
        name: 'Campaign',
        icons: {},
        deleted: false,
        updated: 1700000000,
        team_id: auth.teamId,
      };
      return {
        ok: true,
        channel: resolved.channel.id,
        ts: msg.ts,
        message: { ...out, bot_profile: botProfile },
        ...metadata.warning,
      };
    },

    'chat.update': (args, auth) => {
      const channel = str(args, 'channel');
      const ts = str(args, 'ts');
      if (!channel) return fail('channel_not_found');
      const resolved = s.resolveChannel(channel);
      if ('error' in resolved) return fail(resolved.error);
      const access = s.channelAccessError(resolved.channel, auth, true);
      if (access) return fail(access);
      const msg = ts ? s.findMessage(resolved.channel.id, ts) : undefined;
      if (!msg) return fail('message_not_found');
      if (msg.user !== auth.userId) return fail('cant_update_message');
      const invalid = contentError(args, false);
      if (invalid) return invalid;
      const metadata = messageMetadata(args);
      if ('error' in metadata) return metadata.error;
      const text = str(args, 'text');
      if (text !== undefined) msg.text = text;
      if (args.blocks !== undefined) {
        if (Array.isArray(args.blocks) && args.blocks.length > 0) msg.blocks = clone(args.blocks);
        else delete msg.blocks;
      }
      if (args.attachments !== undefined) {
        if (Array.isArray(args.attachments) && args.attachments.length > 0) msg.attachments = clone(args.attachments);
        else delete msg.attachments;
      }
      if (metadata.value !== undefined) msg.metadata = metadata.value;
      msg.edited = { user: auth.userId, ts: s.nextTs() };
      if (msg.text === '' && !msg.blocks?.length && !msg.attachments?.length && !msg.files?.length)
        return fail('no_text');
      return {
        ok: true,
        channel: resolved.channel.id,
        ts: msg.ts,
        text: msg.text,
        message: apiMessage(msg),
        ...metadata.warning,
      };
    },

    'chat.delete': (args, auth) => {
      const channel = str(args, 'channel') ?? '';
      const ts = str(args, 'ts');
      const resolved = s.resolveChannel(channel);
      if ('error' in resolved) return fail(resolved.error);
      const msg = ts ? s.findMessage(resolved.channel.id, ts) : undefined;
      if (!msg) return fail('message_not_found');
      if (msg.user !== auth.userId) return fail('cant_delete_message');
      s.removeMessage(resolved.channel.id, msg.ts);
      return { ok: true, channel: resolved.channel.id, ts: msg.ts };
    },

    'chat.postEphemeral': (args, auth) => {
      const resolved = s.resolveChannel(str(args, 'channel'));
      if ('error' in resolved) return fail(resolved.error);
      const access = s.channelAccessError(resolved.channel, auth, true);
      if (access) return fail(access);
      const user = str(args, 'user');
      if (!user) return fail('user_not_in_channel');
      const invalid = contentError(args, true);
      if (invalid) return invalid;
      const eph = addEphemeral(s, { channel: resolved.channel.id, user, via: 'chat.postEphemeral' }, args);
      return { ok: true, message_ts: eph.ts };
    },

    'chat.getPermalink': (args, auth) => {
      const channel = str(args, 'channel') ?? '';
      const ts = str(args, 'message_ts') ?? '';
      const msg = s.findMessage(channel, ts);
      if (!msg)
        return fail(s.channels.has(channel) || s.store.has(channel) ? 'message_not_found' : 'channel_not_found');
      const team = s.team(auth.teamId);
      let permalink = `https://${team.domain}.slack.com/archives/${channel}/p${ts.replace('.', '')}`;
      if (msg.thread_ts && msg.thread_ts !== msg.ts) permalink += `?thread_ts=${msg.thread_ts}&cid=${channel}`;
      return { ok: true, channel, permalink };
    },
  };
}
