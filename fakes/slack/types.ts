/**
 * The Slack stand-in's public types: what it records, what tests seed, and the `FakeSlack` handle that
 * `startFakeSlack` returns.
 */
import type { FunctionExecution } from './function-types.js';
import type {
  SentEnvelope,
  SocketModeAck,
  SocketModeConnection,
  SocketModeEnvelopeInput,
} from './socket-mode-types.js';

export type * from './socket-mode-types.js';
export type * from './function-types.js';
export type * from './options.js';

export type SlackArgs = Record<string, unknown>;

/**
 * How a lost answer is lost (`loseAnswer`, `loseAnswers`). `connection-dropped`: the socket is destroyed before
 * any byte of the answer, so the caller sees a network error — what a connection dropping after Slack acted
 * looks like. `http-503`: an edge in front of Slack gives up and answers 503 in Slack's place.
 */
export type LostAnswer = 'connection-dropped' | 'http-503';

/**
 * Why a channel refuses posts (`restrictChannel`): an announcement channel only its admins post in
 * (`read-only` → `restricted_action_read_only_channel`), one that takes thread replies only (`thread-only` →
 * `restricted_action_thread_only_channel` for top-level posts), one that takes no thread replies (`non-threadable` →
 * `restricted_action_non_threadable_channel` for replies), or a workspace preference that keeps the app from
 * posting (`admins-only` → `restricted_action`). Errors from chat.postMessage's method page
 * (https://docs.slack.dev/reference/methods/chat.postMessage, "Errors").
 */
export type ChannelRestriction = 'read-only' | 'thread-only' | 'non-threadable' | 'admins-only';

export interface SlackCall {
  /** e.g. `chat.postMessage` */
  method: string;
  /** Arguments as Slack parsed them: form values are strings; `blocks`/`view`/`attachments`/… decoded. */
  args: SlackArgs;
  /** The token used (Authorization header, or `token` form field). Never part of `args`. */
  token?: string;
  /** `Date.now()` when the request arrived. */
  at: number;
  /** HTTP status the fake answered (200, or 429 when rate limited; 0 when it dropped the connection instead). */
  status: number;
  /** The JSON body the fake answered — for a lost answer, the one the caller never got. */
  response: Record<string, unknown>;
  /** The call was carried out but its answer lost (`loseAnswer`, `loseAnswers`), and how. */
  lost?: LostAnswer;
  /** `form` | `json` | `multipart` | `query` — how the args were encoded. */
  encoding: 'form' | 'json' | 'multipart' | 'query';
  /**
   * The answer came from a fault the test injected (`rateLimit`, `failMethod`, `failMethodFor`,
   * `channelRateLimit`, `workspacePostLimit`, `loseAnswer`, `loseAnswers`, a channel's `restrictChannel` or
   * `archiveChannel`). A 429 from the stand-in's default rate limits is not injected: it is a refusal like any
   * other, and so is a channel given as archived through `addChannel`.
   */
  injected?: true;
}

export interface ResponseUrlPost {
  /** The id given to `responseUrl(id)` (or the generated one). */
  id: string;
  /** Parsed JSON body the bot posted. */
  body: Record<string, unknown>;
  at: number;
  /** What the fake answered: 200, or 404 (`used_url`/`expired_url`), 400 (`invalid_payload`, `no_text`, …). */
  status: number;
  url: string;
  /** The refusal's error (`invalid_blocks`, `used_url`, …) and Slack's messages for it. */
  error?: string;
  messages?: string[];
}

/**
 * One options request (`block_suggestion`) the signer sent for a menu with an external data source, and what
 * Slack made of the app's answer: the options it shows, or — when `errors` is not empty — nothing at all.
 */
export interface SuggestionAnswer {
  viewId?: string;
  blockId: string;
  actionId: string;
  /** What the user had typed. */
  value: string;
  at: number;
  status: number;
  ms: number;
  /** Slack gives up after 3 s and shows no options. */
  timedOut: boolean;
  options?: unknown[];
  optionGroups?: unknown[];
  /** Why Slack would show nothing (bad status, not JSON, over Block Kit's limits…); empty when all is well. */
  errors: string[];
}

export interface SlackFile {
  id: string;
  created: number;
  timestamp: number;
  name: string;
  title: string;
  mimetype: string;
  filetype: string;
  pretty_type: string;
  user: string;
  user_team: string;
  editable: boolean;
  size: number;
  mode: 'hosted';
  is_external: boolean;
  external_type: string;
  is_public: boolean;
  public_url_shared: boolean;
  display_as_bot: boolean;
  username: string;
  url_private: string;
  url_private_download: string;
  permalink: string;
  permalink_public: string;
  channels: string[];
  groups: string[];
  ims: string[];
  has_rich_preview: boolean;
  file_access: 'visible';
  alt_txt?: string;
}

interface SlackReaction {
  name: string;
  users: string[];
  count: number;
}

export interface SlackMessage {
  type: 'message';
  /** The channel the message lives in (Slack's history API omits it; `messages()` includes it). */
  channel: string;
  ts: string;
  text: string;
  user?: string;
  bot_id?: string;
  app_id?: string;
  team?: string;
  subtype?: string;
  thread_ts?: string;
  parent_user_id?: string;
  blocks?: unknown[];
  attachments?: unknown[];
  metadata?: unknown;
  reply_count?: number;
  reply_users?: string[];
  reply_users_count?: number;
  latest_reply?: string;
  reply_broadcast?: boolean;
  edited?: { user: string; ts: string };
  reactions?: SlackReaction[];
  files?: SlackFile[];
  upload?: boolean;
  username?: string;
  icon_emoji?: string;
  icon_url?: string;
}

export interface SlackEphemeral {
  channel: string;
  user: string;
  /** `message_ts` as returned by chat.postEphemeral. */
  ts: string;
  thread_ts?: string;
  text: string;
  blocks?: unknown[];
  attachments?: unknown[];
  via: 'chat.postEphemeral' | 'response_url';
  at: number;
}

export interface SlackView {
  id: string;
  team_id: string;
  type: string;
  title?: unknown;
  submit?: unknown;
  close?: unknown;
  blocks: unknown[];
  private_metadata: string;
  callback_id: string;
  state: { values: Record<string, unknown> };
  hash: string;
  clear_on_close: boolean;
  notify_on_close: boolean;
  root_view_id: string | null;
  previous_view_id: string | null;
  app_id: string;
  external_id: string;
  app_installed_team_id: string;
  bot_id: string;
}

export interface StoredView {
  view: SlackView;
  /** The user the modal was opened for (from the trigger) or the home tab belongs to. */
  userId?: string;
  via: 'views.open' | 'views.push' | 'views.publish';
  at: number;
}

/** A user group (a "subteam"): mentioned as `<!subteam^S…>`, listed by usergroups.list. */
export interface SlackUserGroup {
  id: string;
  /** What people type after `@` (`support`). */
  handle: string;
  name: string;
  users: string[];
  /** Its workspace; the token's team when absent. */
  team_id?: string;
}

export interface SlackUser {
  id: string;
  name?: string;
  real_name?: string;
  is_admin?: boolean;
  is_owner?: boolean;
  is_primary_owner?: boolean;
  is_restricted?: boolean;
  is_ultra_restricted?: boolean;
  tz?: string;
  is_bot?: boolean;
  deleted?: boolean;
  email?: string;
  team_id?: string;
  /** An Enterprise Grid user: users.info then carries `enterprise_user` with this org id. */
  enterprise_id?: string;
  /**
   * A user of a foreign workspace party to a shared (Slack Connect) channel: users.info then carries
   * `is_stranger` ("Shared channels", https://docs.slack.dev/reference/methods/users.info).
   */
  is_stranger?: boolean;
}

export interface SlackChannel {
  id: string;
  name?: string;
  is_private?: boolean;
  /** Whether the bot is in the channel (default true). */
  is_member?: boolean;
  is_archived?: boolean;
  /** For a DM (id starting with D): the other user. */
  user?: string;
  topic?: string;
  purpose?: string;
  num_members?: number;
  /**
   * Users in the channel besides the bot (users.conversations with `user`, conversations.members); none unless
   * a test says.
   */
  members?: string[];
  /**
   * Shared with another organisation (Slack Connect), an invitation out pending, or with other workspaces of
   * the org: conversations.info's `is_ext_shared`, `is_pending_ext_shared`, `is_org_shared` (`is_shared` is any
   * of them; https://docs.slack.dev/reference/objects/conversation-object).
   */
  is_ext_shared?: boolean;
  is_pending_ext_shared?: boolean;
  is_org_shared?: boolean;
}

export interface SlackUpload {
  file_id: string;
  filename: string;
  title?: string;
  data: Buffer;
  channel_id?: string;
  thread_ts?: string;
  initial_comment?: string;
  at: number;
}

export interface FileDownload {
  fileId: string;
  /** Whether a valid bearer token with files:read was presented (on the CDN: a valid, unexpired signature). */
  authorized: boolean;
  status: number;
  at: number;
  /** A hit on the signed CDN URL (`fileDownloads: 'cdn-redirect'`): whether it carried an Authorization header. */
  cdn?: { authorizationHeader: boolean };
}

export interface OAuthGrant {
  code: string;
  teamId: string;
  teamName: string;
  botToken: string;
  botUserId: string;
  botId: string;
  userToken?: string;
  installerUserId: string;
  botScopes: string[];
  userScopes: string[];
  redirectUri?: string;
  enterpriseId?: string;
  /** An org-wide install (Enterprise Grid): one token for every workspace of `enterpriseId`, `team: null`. */
  orgWide?: boolean;
}

export interface ResponseUrlContext {
  channelId?: string;
  /** The message a block action / message shortcut came from (for `replace_original` / `delete_original`). */
  messageTs?: string;
  /**
   * The ephemeral message a block action came from (`message_ts` of its container): Slack lets that
   * response_url replace or delete the ephemeral it belongs to.
   */
  ephemeralTs?: string;
  userId?: string;
}

export interface TriggerContext {
  userId?: string;
  /** The view the interaction came from (a views.push from it stacks on that view's root). */
  viewId?: string;
  /** Use this exact trigger_id string instead of generating one. */
  triggerId?: string;
}

/** A message seeded into the fake (a user's message the bot will react to…); `ts` defaults to a fresh one. */
export interface SeedMessage {
  channel: string;
  text?: string;
  user?: string;
  ts?: string;
  thread_ts?: string;
  blocks?: unknown[];
  bot_id?: string;
  files?: SlackFile[];
  subtype?: string;
}

export interface FakeSlack {
  /** `http://127.0.0.1:PORT/api/` — give to WebClient/Bolt as `slackApiUrl`. */
  readonly apiUrl: string;
  /** `http://127.0.0.1:PORT` */
  readonly baseUrl: string;
  readonly botToken: string;
  readonly teamId: string;
  readonly teamName: string;
  readonly teamDomain: string;
  readonly botUserId: string;
  readonly botId: string;
  readonly appId: string;
  /** Every Web API call, in arrival order (including rate-limited and failed ones). */
  readonly calls: SlackCall[];
  callsTo(method: string): SlackCall[];
  /** Posts to response_urls, in arrival order. */
  readonly responses: ResponseUrlPost[];
  /** Options requests sent to the bot and how its answers were taken, in sending order. */
  readonly suggestions: SuggestionAnswer[];
  /**
   * What Slack does with the bot's answer to a `block_suggestion`: checks it (3 s, HTTP 200, JSON `options` or
   * `option_groups`, at most 100, each option within Block Kit's limits), records it in `suggestions`, and
   * returns it. A refused answer counts as a refusal (`expectRefusal('block_suggestion')` to declare one).
   */
  judgeSuggestion(
    request: { viewId?: string; blockId: string; actionId: string; value: string },
    answer: { status: number; json?: unknown; ms: number; timedOut: boolean },
  ): SuggestionAnswer;
  /** A response_url on this server. `ctx` lets `replace_original`/`delete_original`/`in_channel` take effect. */
  responseUrl(id?: string, ctx?: ResponseUrlContext): string;
  /** Completed filesUploadV2 uploads. */
  readonly uploads: SlackUpload[];
  /** GETs of url_private / url_private_download. */
  readonly downloads: FileDownload[];
  /** Polls `pick` (every 10 ms; an async one is awaited) until it gives something truthy; rejects after `timeoutMs` (default 15 s: a bound on a hang). */
  waitFor<T>(
    pick: () => T | undefined | null | false | Promise<T | undefined | null | false>,
    timeoutMs?: number,
  ): Promise<T>;
  addUser(user: SlackUser): void;
  addUserGroup(group: SlackUserGroup): void;
  userGroup(id: string): SlackUserGroup | undefined;
  addChannel(channel: SlackChannel): void;
  /** A channel the fake knows (added, or seen in a call). */
  channel(id: string): SlackChannel | undefined;
  /** A user the fake knows (added, the bot, installers). */
  user(id: string): SlackUser | undefined;
  /** Seed a message (e.g. a user's message the bot will react to). `ts` defaults to a fresh one. */
  addMessage(message: SeedMessage): SlackMessage;
  addFile(file: {
    name: string;
    mimetype: string;
    data: Buffer;
    filetype?: string;
    title?: string;
    user?: string;
    /** The workspace the file is in (only its bot token downloads it); the fake's own by default. */
    teamId?: string;
  }): SlackFile;
  /**
   * What a person deleting a file in Slack does: it is gone — `files.info` answers `file_deleted`, its
   * `url_private(_download)` 404. False for an unknown id.
   */
  deleteFile(id: string): boolean;
  /** Messages (top-level and thread replies), oldest first; optionally of one channel. */
  messages(channel?: string): SlackMessage[];
  /** One stored message, or undefined. */
  message(channel: string, ts: string): SlackMessage | undefined;
  /** A thread: parent first, then replies. */
  thread(channel: string, threadTs: string): SlackMessage[];
  /** Ephemeral messages (chat.postEphemeral and ephemeral response_url posts). */
  ephemerals(channel?: string): SlackEphemeral[];
  /** Views opened/pushed/published, latest state. Optionally filtered by callback_id. */
  views(callbackId?: string): StoredView[];
  view(id: string): StoredView | undefined;
  /** Issue a trigger_id (what Slack puts in interaction payloads). Valid for `triggerTtlMs`, usable once. */
  issueTrigger(ctx?: TriggerContext): string;
  /** Make a code that oauth.v2.access exchanges for a fresh installation (new tokens become valid). */
  oauthCode(grant?: Partial<Omit<OAuthGrant, 'code'>> & { code?: string }): OAuthGrant;
  /** Answer 429 + Retry-After. `times` defaults to 1 (Infinity with `everyOther`); no `method` = every method. */
  rateLimit(rule: { method?: string; times?: number; retryAfterSec: number; everyOther?: boolean }): void;
  /**
   * An extra per-channel chat.postMessage limit (a fault, on top of the default limits): beyond `perSecond`
   * posts in a rolling second → 429 Retry-After.
   */
  channelRateLimit(perSecond: number): void;
  /**
   * Slack's workspace-wide message limit, opt-in (https://docs.slack.dev/apis/web-api/rate-limits: chat.postMessage
   * "generally allows posting one message per second per channel, while also maintaining a workspace-wide
   * limit"): beyond `perMinute` posts of one workspace, across all its channels, in a rolling minute (on
   * `rateLimitClock`) → 429 + Retry-After (seconds until the oldest of them leaves the minute).
   */
  workspacePostLimit(perMinute: number): void;
  /**
   * Answer HTTP 200 `{ok:false,error}` for `method`, `times` times (default: until reset). Any error, for any
   * method, before the token is even looked at: `invalid_auth`, `account_inactive`, `token_revoked`,
   * `token_expired`, `team_access_not_granted`, `missing_scope`, `internal_error`…
   */
  failMethod(method: string, error: string, times?: number): void;
  /**
   * An outage that heals: answer HTTP 200 `{ok:false,error}` for `method` until `ms` have passed on
   * `rateLimitClock`, then normally again. chat.postMessage's method page lists the transient ones:
   * `service_unavailable`, `internal_error`, `fatal_error`, `request_timeout`, `ratelimited`
   * (https://docs.slack.dev/reference/methods/chat.postMessage, "Errors"). `teamId`: only that workspace's calls
   * (an error of one workspace, as `message_limit_exceeded`: "Members on this team are sending too many messages").
   */
  failMethodFor(method: string, error: string, ms: number, teamId?: string): void;
  /**
   * Slack down, until called with false: every Web API call is answered HTTP 503 and not carried out, as when
   * Slack's edge answers for a Slack that is unavailable (https://docs.slack.dev/apis/web-api/#errors: 5xx
   * "the request could not be processed"; https://slack-status.com for incidents). Cleared by `clearFaults`.
   */
  setDown(down: boolean): void;
  /**
   * Carry out `method` but lose its answer, `times` times (default 1): Slack did it (the message is stored, the
   * file shared…) and the caller cannot know. By default the connection drops with no HTTP answer at all (the
   * caller sees a network error); `'http-503'` answers 503 instead, as an edge that gave up on Slack would.
   * The call is recorded with `lost`, status 0 (dropped) or 503, and the response it would have had.
   */
  loseAnswer(method: string, times?: number, how?: LostAnswer): void;
  /**
   * Lose the answers of a `share` (0…1) of the calls to `method` (every method when left out), carried out as
   * with `loseAnswer`. Which calls is drawn from `seed` (default 1): the same seed loses the same calls.
   */
  loseAnswers(rule: { method?: string; share: number; seed?: number; how?: LostAnswer }): void;
  /**
   * The channel refuses chat.postMessage and files.completeUploadExternal into it as Slack does for `kind`
   * (see `ChannelRestriction`); thread replies still go into a `thread-only` one. Until `unrestrictChannel`.
   */
  restrictChannel(channel: string, kind: ChannelRestriction): void;
  /** Someone archived the channel: posts, shares, updates into it get `is_archived`. Until `unrestrictChannel`. */
  archiveChannel(channel: string): void;
  /** Lifts `restrictChannel` and `archiveChannel` from the channel. */
  unrestrictChannel(channel: string): void;
  /**
   * Lifts every injected fault, channel restrictions and archiving included (Slack answers normally again; the
   * default rate limits stay); what was posted stays.
   */
  clearFaults(): void;
  /**
   * Slack's 2025 history limits for non-Marketplace apps, on or off (see `historyLimits2025`); `reset` puts back
   * the option's.
   */
  limitHistory(on: boolean): void;
  /**
   * Called with every `message_metadata_posted` event (see `metadataSubscriptions`); the harness sends each
   * through the signer to the bot's event route.
   */
  onMetadataPosted(listener: (event: Record<string, unknown>) => void): void;
  /** Generate the next message ts (strictly increasing). */
  nextTs(): string;
  /**
   * Starts a run of the declared workflow step `callbackId` (`FakeSlackOptions.functions`; throws for another, for
   * an undeclared input, or when a required input is missing) and gives the `function_executed` event to send
   * (`signer.functionExecuted`). `user` is the person who used the workflow: Slack fills each `user_context`
   * input with them (`{ id, secret }`); none for a scheduled run.
   */
  executeFunction(p: { callbackId: string; inputs: Record<string, unknown>; teamId?: string; user?: string }): {
    execution: FunctionExecution;
    event: Record<string, unknown>;
  };
  /** A run of a workflow step as it stands: running, or completed with its outputs, or failed with its error. */
  functionExecution(id: string): FunctionExecution | undefined;
  /** The app-level token (`xapp-…`) to give Bolt as `appToken` for Socket Mode. */
  readonly appToken: string;
  /** Socket Mode WebSockets the bot opened (open and closed), in connection order. */
  readonly socketConnections: SocketModeConnection[];
  /** Envelopes pushed to the bot, in sending order. */
  readonly socketEnvelopes: SentEnvelope[];
  /** Acks the bot sent back, in arrival order (late ones too, after `pushEnvelope` gave up). */
  readonly socketAcks: SocketModeAck[];
  /**
   * Send an envelope to the bot over Socket Mode and resolve with its ack. Goes to the newest connection
   * that got `hello` and no `disconnect`; waits up to `timeoutMs` (default 5000) for one, then up to
   * `timeoutMs` for the ack. Rejects with what it saw (connections, apps.connections.open results) otherwise.
   */
  pushEnvelope(envelope: SocketModeEnvelopeInput, opts?: { timeoutMs?: number }): Promise<SocketModeAck>;
  /** Resolves with a ready connection (hello sent, no disconnect); rejects after `timeoutMs` (default 5000). */
  waitForSocketConnection(timeoutMs?: number): Promise<SocketModeConnection>;
  /**
   * Send Slack's `{type:'disconnect', reason, debug_info}` to every ready connection (the SDK then closes it
   * and reconnects through apps.connections.open). The fake closes any that are still open after
   * `closeAfterMs` (default 10 000, like Slack's warning window). Returns how many got the message.
   * Slack's reasons: `refresh_requested` (default), `warning` (~10 s before a refresh), `link_disabled`.
   */
  disconnectSockets(reason?: string, opts?: { closeAfterMs?: number }): number;
  /** Errors thrown inside the fake while handling requests (should stay empty). */
  readonly serverErrors: Error[];
  /** A stored file and its bytes (what `url_private` serves to an authorized token). */
  file(id: string): { file: SlackFile; data: Buffer } | undefined;
  /**
   * What Slack does with a view_submission ack `{ response_action: 'update', view }`: the same view id gets
   * the new content (so a later views.update by id still finds it). Errors are Slack's validation messages.
   */
  replaceView(
    viewId: string,
    view: Record<string, unknown>,
  ): { ok: true; view: SlackView } | { ok: false; errors: string[] };
  /** What Slack does with a view_submission ack `{ response_action: 'push', view }`: a new view on top of `fromViewId`'s stack. */
  pushView(
    fromViewId: string,
    view: Record<string, unknown>,
  ): { ok: true; view: SlackView } | { ok: false; errors: string[] };
  /**
   * Forget recorded traffic and state produced by traffic (calls, responses, uploads, downloads, messages,
   * ephemerals, views, triggers, uploaded files) and all injected faults/limits; the default rate limits'
   * buckets are full again. Keeps configuration:
   * tokens and installations, users, channels, files added with `addFile`. Open Socket Mode connections
   * stay open (the bot stays connected); closed ones, sent envelopes and acks are forgotten.
   */
  reset(): void;
  /**
   * Declares that this test expects Slack to refuse `method` (a Web API method, or `response_url`), with
   * `error` or any error. Undeclared refusals fail the test (test/support/refusal-guard.ts); declarations
   * last until the end of the test.
   */
  expectRefusal(method: string, error?: string): void;
  close(): Promise<void>;
}
