/**
 * What the stand-in knows, shared by its API families: the workspace, tokens, channels, messages, views,
 * files, and every request it recorded. The families (chat.ts, views.ts, …) are functions over this.
 */
import { FileCdn } from './file-cdn.js';
import { MetadataEvents } from './metadata-events.js';
import { startExecution } from './functions.js';
import { hex, compareTs, type Json } from './util.js';
import type {
  ChannelRestriction,
  FakeSlackOptions,
  FunctionExecution,
  FileDownload,
  OAuthGrant,
  ResponseUrlContext,
  ResponseUrlPost,
  SuggestionAnswer,
  SlackArgs,
  SlackCall,
  SlackChannel,
  SlackEphemeral,
  SlackFile,
  SlackMessage,
  SlackUpload,
  SlackUser,
  SlackUserGroup,
  StoredView,
} from './types.js';

export interface TokenInfo {
  token: string;
  kind: 'bot' | 'user';
  teamId: string;
  userId: string;
  botId?: string;
  scopes: string[];
  revoked: boolean;
  /** An org-wide install's token: `teamId` is then its org's id, and it acts in every workspace of the org. */
  orgWide?: boolean;
  /** Token rotation: refused with `token_expired` from this time on (`expiryClock`). */
  expiresAt?: number;
}

/** A rotating token's refresh token: what oauth.v2.access `grant_type=refresh_token` grants again. */
export interface RefreshGrant {
  teamId: string;
  enterpriseId?: string;
  orgWide: boolean;
  botUserId: string;
  botId: string;
  scopes: string[];
}

export interface Team {
  id: string;
  name: string;
  domain: string;
  enterpriseId?: string;
}

export interface Trigger {
  issuedAt: number;
  used: boolean;
  userId?: string;
  viewId?: string;
}

export interface PendingUpload {
  fileId: string;
  filename: string;
  length: number;
  altText?: string;
  userId: string;
  teamId: string;
  data?: Buffer;
}

export interface StoredFile {
  file: SlackFile;
  data: Buffer;
  teamId: string;
}

export interface ResponseUrlEntry {
  id: string;
  url: string;
  uses: number;
  createdAt: number;
  ctx: ResponseUrlContext;
}

export type OAuthCode = OAuthGrant & { issuedAt: number; used: boolean };

/** Errors from chat.postMessage's method page (https://docs.slack.dev/reference/methods/chat.postMessage, "Errors"). */
const RESTRICTION_ERRORS: Record<ChannelRestriction, string> = {
  'read-only': 'restricted_action_read_only_channel',
  'thread-only': 'restricted_action_thread_only_channel',
  'admins-only': 'restricted_action',
  'non-threadable': 'restricted_action_non_threadable_channel',
};

/** The errors a restricted or archived channel (`restrictChannel`, `archiveChannel`) answers posts with. */
export const RESTRICTION_REFUSALS = new Set([...Object.values(RESTRICTION_ERRORS), 'is_archived']);

/** One Web API method: the arguments as parsed and the token's owner; answers the JSON body. */
export type Handler = (args: SlackArgs, auth: TokenInfo) => Json;

export class SlackState {
  readonly calls: SlackCall[] = [];
  readonly responses: ResponseUrlPost[] = [];
  readonly suggestions: SuggestionAnswer[] = [];
  readonly uploads: SlackUpload[] = [];
  readonly downloads: FileDownload[] = [];
  readonly serverErrors: Error[] = [];

  readonly botToken: string;
  readonly teamId: string;
  readonly teamName: string;
  readonly teamDomain: string;
  readonly botUserId: string;
  readonly botId: string;
  readonly appId: string;
  readonly appToken: string;

  baseUrl = '';
  apiUrl = '';

  readonly opts: FakeSlackOptions;
  readonly tokens = new Map<string, TokenInfo>();
  readonly teams = new Map<string, Team>();
  readonly users = new Map<string, SlackUser>();
  readonly userGroups = new Map<string, SlackUserGroup>();
  readonly channels = new Map<string, SlackChannel>();
  readonly store = new Map<string, SlackMessage[]>();
  ephemeralList: SlackEphemeral[] = [];
  readonly viewStore = new Map<string, StoredView>();
  readonly rootStacks = new Map<string, string[]>();
  readonly triggers = new Map<string, Trigger>();
  readonly files = new Map<string, StoredFile>();
  readonly seededFileIds = new Set<string>();
  /** Files a person deleted in Slack (`deleteFile`): `files.info` answers `file_deleted`, downloads 404. */
  readonly deletedFileIds = new Set<string>();
  readonly pendingUploads = new Map<string, PendingUpload>();
  readonly uploadKeys = new Map<string, string>();
  readonly responseUrls = new Map<string, ResponseUrlEntry>();
  readonly oauthCodes = new Map<string, OAuthCode>();
  readonly refreshTokens = new Map<string, RefreshGrant>();
  readonly fileCdn = new FileCdn(this);
  /** Channels a test restricted (`restrictChannel`) or archived (`archiveChannel`), until lifted. */
  readonly restrictions = new Map<string, ChannelRestriction | 'archived'>();
  /** Runs of the app's workflow steps (`executeFunction`), by function_execution_id. */
  readonly functionRuns = new Map<string, FunctionExecution>();
  /** Slack's 2025 history limits for non-Marketplace apps (`historyLimits2025`, `limitHistory`). */
  historyLimited: boolean;
  /** `message_metadata_posted` for the manifest's metadata subscriptions. */
  readonly metadataEvents: MetadataEvents;
  lastTsMicros = 0;
  responseUrlCounter = 0;

  /** The time trigger_ids, response_urls and OAuth codes are issued and expire by (`expiryClock`). */
  expiryNow(): number {
    return (this.opts.expiryClock ?? Date.now)();
  }

  constructor(opts: FakeSlackOptions) {
    this.opts = opts;
    this.historyLimited = opts.historyLimits2025 ?? false;
    this.metadataEvents = new MetadataEvents(opts.metadataSubscriptions ?? []);
    this.teamId = opts.teamId ?? 'T0CAMPAIGN1';
    this.teamName = opts.teamName ?? 'Campaign Test Workspace';
    this.teamDomain = opts.teamDomain ?? 'campaign-test';
    this.botUserId = opts.botUserId ?? 'U0CAMPAIGNBOT';
    this.botId = opts.botId ?? 'B0CAMPAIGNBOT';
    this.appId = opts.appId ?? 'A0CAMPAIGN01';
    this.botToken = opts.botToken ?? `xoxb-${Date.now() % 1e11}-${Date.now() % 1e12}-${hex(12)}`;
    if (opts.appToken !== undefined && !opts.appToken.startsWith('xapp-')) {
      // A test that configures a bot/user token here would only ever see not_allowed_token_type.
      throw new Error(
        `startFakeSlack: appToken must be an app-level token (xapp-…), got ${opts.appToken.slice(0, 5)}…`,
      );
    }
    this.appToken = opts.appToken ?? `xapp-1-${this.appId}-${Date.now() % 1e13}-${hex(32)}`;
    this.teams.set(this.teamId, {
      id: this.teamId,
      name: this.teamName,
      domain: this.teamDomain,
      ...(opts.enterpriseId ? { enterpriseId: opts.enterpriseId } : {}),
    });
    this.tokens.set(this.botToken, {
      token: this.botToken,
      kind: 'bot',
      teamId: this.teamId,
      userId: this.botUserId,
      botId: this.botId,
      scopes: [...opts.scopes],
      revoked: false,
    });
    this.users.set(this.botUserId, { id: this.botUserId, name: 'campaign', real_name: 'Campaign', is_bot: true });
  }

  executeFunction(p: { callbackId: string; inputs: Record<string, unknown>; teamId?: string; user?: string }): {
    execution: FunctionExecution;
    event: Record<string, unknown>;
  } {
    return startExecution(this, p);
  }

  functionExecution(id: string): FunctionExecution | undefined {
    const run = this.functionRuns.get(id);
    return run ? structuredClone(run) : undefined;
  }

  callsTo(method: string): SlackCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  nextTs(): string {
    this.lastTsMicros = Math.max(Date.now() * 1000, this.lastTsMicros + 1);
    const sec = Math.floor(this.lastTsMicros / 1_000_000);
    const micro = this.lastTsMicros % 1_000_000;
    return `${sec}.${String(micro).padStart(6, '0')}`;
  }

  team(teamId: string): Team {
    return this.teams.get(teamId) ?? { id: teamId, name: teamId, domain: teamId.toLowerCase() };
  }

  /** Resolve a `channel` argument like Slack: ids, `#name`, or a user id (the app's DM with that user). */
  resolveChannel(raw: string | undefined): { channel: SlackChannel } | { error: string } {
    if (!raw) return { error: 'channel_not_found' };
    if (raw.startsWith('#')) {
      const byName = [...this.channels.values()].find((c) => c.name === raw.slice(1));
      return byName ? { channel: byName } : { error: 'channel_not_found' };
    }
    if (/^[UW][A-Z0-9]{2,}$/.test(raw)) {
      if (!this.users.has(raw) && !/^[UW][A-Z0-9]{8,}$/.test(raw)) return { error: 'channel_not_found' };
      return { channel: this.dmWith(raw) };
    }
    const known = this.channels.get(raw);
    if (known) return { channel: known };
    if (/^[CGD][A-Z0-9]{2,}$/.test(raw)) {
      // Any well-formed id is a channel the bot is in unless a test says otherwise (addChannel).
      const made: SlackChannel = {
        id: raw,
        name: raw.startsWith('D') ? undefined : `channel-${raw.toLowerCase()}`,
        is_private: raw.startsWith('G'),
        is_member: true,
      };
      this.channels.set(raw, made);
      return { channel: made };
    }
    return { error: 'channel_not_found' };
  }

  dmWith(userId: string): SlackChannel {
    const id = `D${userId.slice(1)}`;
    const existing = this.channels.get(id);
    if (existing) return existing;
    const dm: SlackChannel = { id, user: userId, is_member: true };
    this.channels.set(id, dm);
    return dm;
  }

  /** Can `auth` post to / read `channel`? Private channels the bot is not in are invisible (channel_not_found). */
  channelAccessError(channel: SlackChannel, auth: TokenInfo, write: boolean): string | undefined {
    if (channel.is_member === false) {
      if (channel.is_private || channel.id.startsWith('G')) return 'channel_not_found';
      if (write && auth.scopes.includes('chat:write.public')) return undefined;
      return 'not_in_channel';
    }
    if (write && channel.is_archived) return 'is_archived';
    return undefined;
  }

  /** The error a post (a message, or a shared file) into a restricted channel gets; thread replies pass a thread-only one. */
  postRestriction(channelId: string, threadTs: string | undefined): string | undefined {
    const kind = this.restrictions.get(channelId);
    if (kind === undefined || kind === 'archived') return undefined;
    if (kind === 'thread-only' && threadTs) return undefined;
    if (kind === 'non-threadable' && !threadTs) return undefined;
    return RESTRICTION_ERRORS[kind];
  }

  findMessage(channel: string, ts: string): SlackMessage | undefined {
    return this.store.get(channel)?.find((m) => m.ts === ts);
  }

  insertMessage(msg: SlackMessage): void {
    const list = this.store.get(msg.channel) ?? [];
    list.push(msg);
    list.sort((a, b) => compareTs(a.ts, b.ts));
    this.store.set(msg.channel, list);
    if (msg.thread_ts && msg.thread_ts !== msg.ts) {
      const parent = this.findMessage(msg.channel, msg.thread_ts);
      if (parent) {
        parent.thread_ts = parent.ts;
        parent.reply_count = (parent.reply_count ?? 0) + 1;
        const author = msg.user ?? msg.bot_id ?? '';
        const users = new Set(parent.reply_users ?? []);
        if (author) users.add(author);
        parent.reply_users = [...users];
        parent.reply_users_count = users.size;
        parent.latest_reply = msg.ts;
        if (!msg.parent_user_id && parent.user) msg.parent_user_id = parent.user;
      }
    }
  }

  removeMessage(channel: string, ts: string): void {
    const list = this.store.get(channel);
    if (!list) return;
    const idx = list.findIndex((m) => m.ts === ts);
    if (idx < 0) return;
    const [removed] = list.splice(idx, 1);
    if (removed?.thread_ts && removed.thread_ts !== removed.ts) {
      const parent = this.findMessage(channel, removed.thread_ts);
      if (parent && parent.reply_count) {
        parent.reply_count -= 1;
        const replies = list.filter((m) => m.thread_ts === parent.ts && m.ts !== parent.ts);
        parent.latest_reply = replies.at(-1)?.ts ?? parent.ts;
      }
    }
  }
}
