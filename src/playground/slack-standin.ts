/**
 * A fake Slack (Web API + files + response_urls + OAuth) on a real HTTP port, for driving the bot
 * end-to-end with the real `@slack/web-api` WebClient and `@slack/bolt` App.
 *
 * What it copies from Slack, because our bot (or the Slack SDKs) depend on it:
 * - Web API transport: POST/GET `/api/<method>`, form-encoded args (JSON-typed args such as `blocks`/`view`
 *   arrive as JSON strings and are decoded here), or a JSON body with the token *only* in
 *   `Authorization: Bearer` (a JSON body without it is `not_authed`, like Slack). HTTP 200 with
 *   `{ok:false,error}` for every platform error; 429 + `Retry-After` + `{ok:false,error:'ratelimited'}`.
 * - Tokens: missing → `not_authed`, unknown → `invalid_auth`, revoked (apps.uninstall / auth.revoke) →
 *   `token_revoked`. Scopes are enforced (`missing_scope` with `needed`/`provided`), defaulting to the bot
 *   scopes in /manifest.yml, so a call our manifest would not allow fails here as it would in Slack.
 * - Messages are stored per channel (threads, reply counts, reactions, edits, deletes); ts values are
 *   `seconds.micros` strings that strictly increase.
 * - Block Kit / view limits that Slack enforces and that are easy to trip (50 blocks per message, 100 per
 *   view, 3000-char section text, 24-char modal titles, empty text objects, duplicate block_ids…).
 * - trigger_ids expire after 3 s and can be exchanged once (`expired_trigger_id` / `exchanged_trigger_id`).
 * - files.getUploadURLExternal → POST bytes to upload_url → files.completeUploadExternal (WebClient's
 *   `filesUploadV2`); `url_private(_download)` need `Authorization: Bearer <token with files:read>`.
 * - response_urls: 5 uses, JSON body, `replace_original` / `delete_original` / `in_channel` effects.
 * - Socket Mode: `apps.connections.open` with the app-level token (`xapp-…`; any other token type is
 *   `not_allowed_token_type`) returns a one-time `ws://…/link/?ticket=…` URL on this same port; the WebSocket
 *   (RFC 6455, spoken by hand: the `ws` package is not installed) sends `hello`, answers pings, pings the
 *   client, collects `{envelope_id, payload}` acks and can send `disconnect`. Envelopes are pushed by
 *   `pushEnvelope` — tests normally use `SocketModeDriver` (./socket-mode.ts), which builds Slack's payloads.
 */
import { BOT_SCOPES } from '../bot/scopes.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Socket, type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';

// ---------------------------------------------------------------------------------------------------------
// Public types
// ---------------------------------------------------------------------------------------------------------

export type SlackArgs = Record<string, unknown>;

export interface SlackCall {
  /** e.g. `chat.postMessage` */
  method: string;
  /** Arguments as Slack parsed them: form values are strings; `blocks`/`view`/`attachments`/… decoded. */
  args: SlackArgs;
  /** The token used (Authorization header, or `token` form field). Never part of `args`. */
  token?: string;
  /** `Date.now()` when the request arrived. */
  at: number;
  /** HTTP status the fake answered (200, or 429 when rate limited). */
  status: number;
  /** The JSON body the fake answered. */
  response: Record<string, unknown>;
  /** `form` | `json` | `multipart` | `query` — how the args were encoded. */
  encoding: 'form' | 'json' | 'multipart' | 'query';
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

export interface SlackReaction {
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

/** What Slack sends over a Socket Mode WebSocket for each request (the payloads are the HTTP ones). */
export interface SocketModeEnvelope {
  /** A UUID; the bot acks with `{ envelope_id, payload? }`. */
  envelope_id: string;
  type: 'slash_commands' | 'interactive' | 'events_api';
  /** Slash commands: the form fields as a JSON object (string values); interactive: the parsed `payload`; events: the `event_callback`. */
  payload: Record<string, unknown>;
  /** Whether the ack may carry a response (`true` for commands and interactions, `false` for events). */
  accepts_response_payload: boolean;
  /** Events only: 0 on first delivery (Bolt's `context.retryNum` is then 0, not undefined as over HTTP). */
  retry_attempt?: number;
  /** Events only: `''` on first delivery, e.g. `timeout` on a retry. */
  retry_reason?: string;
}

/** An envelope to push: `envelope_id` defaults to a fresh UUID. */
export type SocketModeEnvelopeInput = Omit<SocketModeEnvelope, 'envelope_id'> & { envelope_id?: string };

/** One WebSocket the bot opened with a URL from `apps.connections.open`. */
export interface SocketModeConnection {
  /** `ws1`, `ws2`, … in connection order. */
  id: string;
  openedAt: number;
  /** When the fake sent `hello` (right after the upgrade, like Slack). */
  helloAt?: number;
  /** When the fake sent a `disconnect` message on it; no envelopes go to it from then on. */
  disconnectReason?: string;
  closedAt?: number;
  /** Who started the close: the bot (close frame), the fake (after `disconnect` / on close()), or the TCP socket just ended. */
  closedBy?: 'client' | 'fake' | 'socket';
  closeCode?: number;
  /** Pings the client sent (each answered with a pong, or the SDK would drop the connection). */
  pingsReceived: number;
  /** Pongs the client sent back to the fake's pings. */
  pongsReceived: number;
}

/** An ack the bot sent for an envelope. */
export interface SocketModeAck {
  envelopeId: string;
  /** The ack's `payload` as sent. Bolt always sends one: `{}` for a bare `ack()`, `{ text }` for `ack('text')`. */
  payload?: Record<string, unknown>;
  /** Milliseconds from the fake sending the envelope to the ack arriving — the latency Slack measures. */
  ms: number;
  /** Slack gives up after 3 s (the user sees a timeout error, events get retried). */
  timedOut: boolean;
  /** The envelope it acknowledges. */
  envelope: SocketModeEnvelope;
  connectionId: string;
  at: number;
}

/** An envelope the fake sent to the bot. */
export interface SentEnvelope {
  envelope: SocketModeEnvelope;
  connectionId: string;
  at: number;
}

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
  /** Bot token scopes. Default: the bot scopes of /manifest.yml (`MANIFEST_BOT_SCOPES`). */
  scopes?: string[];
  /** trigger_id lifetime (Slack: 3 s). */
  triggerTtlMs?: number;
  /** How many posts a response_url accepts (Slack: 5, within 30 minutes). */
  responseUrlMaxUses?: number;
  /** When set, oauth.v2.access / apps.uninstall check these credentials (otherwise any non-empty pair). */
  oauthClient?: { clientId: string; clientSecret: string };
  /**
   * What a file download without a valid token gets. `'forbidden'` (default): 403 + an HTML page.
   * `'login-page'`: what slack.com really does for browsers — 302 to a sign-in page that answers 200 HTML,
   * which a naive `fetch` follows and then mistakes for the file.
   */
  unauthenticatedFileDownloads?: 'forbidden' | 'login-page';
  /**
   * How an authorized file download is answered. `'direct'` (default): 200 with the bytes. `'cdn-redirect'`:
   * what Slack does for many files — a 302 to a signed, expiring URL on its file CDN (here another port of
   * this stand-in) that needs no token. CDN hits are recorded in `downloads` with `cdn` set.
   */
  fileDownloads?: 'direct' | 'cdn-redirect';
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
  /** A response_url on this server. `ctx` lets `replace_original`/`delete_original`/`in_channel` take effect. */
  responseUrl(id?: string, ctx?: ResponseUrlContext): string;
  /** Completed filesUploadV2 uploads. */
  readonly uploads: SlackUpload[];
  /** GETs of url_private / url_private_download. */
  readonly downloads: FileDownload[];
  /** Polls `pick` (every 10 ms) until it returns something truthy; rejects after `timeoutMs` (default 5000). */
  waitFor<T>(pick: () => T | undefined | null | false, timeoutMs?: number): Promise<T>;
  addUser(user: SlackUser): void;
  addChannel(channel: SlackChannel): void;
  /** A channel the fake knows (added, or seen in a call). */
  channel(id: string): SlackChannel | undefined;
  /** A user the fake knows (added, the bot, installers). */
  user(id: string): SlackUser | undefined;
  /** Seed a message (e.g. a user's message the bot will react to). `ts` defaults to a fresh one. */
  addMessage(message: { channel: string; text?: string; user?: string; ts?: string; thread_ts?: string; blocks?: unknown[]; bot_id?: string; files?: SlackFile[]; subtype?: string }): SlackMessage;
  addFile(file: { name: string; mimetype: string; data: Buffer; filetype?: string; title?: string; user?: string }): SlackFile;
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
  /** Per-channel chat.postMessage limit; beyond `perSecond` posts in a rolling second → 429 Retry-After. */
  channelRateLimit(perSecond: number): void;
  /** Answer `{ok:false,error}` for `method`, `times` times (default: until reset). */
  failMethod(method: string, error: string, times?: number): void;
  /** Generate the next message ts (strictly increasing). */
  nextTs(): string;
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
  replaceView(viewId: string, view: Record<string, unknown>): { ok: true; view: SlackView } | { ok: false; errors: string[] };
  /** What Slack does with a view_submission ack `{ response_action: 'push', view }`: a new view on top of `fromViewId`'s stack. */
  pushView(fromViewId: string, view: Record<string, unknown>): { ok: true; view: SlackView } | { ok: false; errors: string[] };
  /**
   * Forget recorded traffic and state produced by traffic (calls, responses, uploads, downloads, messages,
   * ephemerals, views, triggers, uploaded files) and all injected faults/limits. Keeps configuration:
   * tokens and installations, users, channels, files added with `addFile`. Open Socket Mode connections
   * stay open (the bot stays connected); closed ones, sent envelopes and acks are forgotten.
   */
  reset(): void;
  close(): Promise<void>;
}

/** The bot scopes manifest.yml requests (the app's own list; a self-test parses manifest.yml and compares). */
export const MANIFEST_BOT_SCOPES: readonly string[] = BOT_SCOPES;

// ---------------------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------------------

type Json = Record<string, unknown>;

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(args: SlackArgs, key: string): string | undefined {
  const v = args[key];
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

function bool(args: SlackArgs, key: string): boolean {
  const v = args[key];
  return v === true || v === 1 || v === 'true' || v === '1';
}

function int(args: SlackArgs, key: string): number | undefined {
  const s = str(args, key);
  if (s === undefined || s === '') return undefined;
  const n = Number.parseInt(s, 10);
  return Number.isNaN(n) ? undefined : n;
}

function fail(error: string, extra: Json = {}): Json {
  return { ok: false, error, ...extra };
}

function invalidArguments(messages: string[]): Json {
  return fail('invalid_arguments', { response_metadata: { messages } });
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** Slack-looking id: prefix + 10 upper-case alphanumerics (e.g. `V07ABCD1234`). */
function slackId(prefix: string): string {
  const bytes = randomBytes(10);
  let out = prefix;
  for (const b of bytes) out += ID_ALPHABET[b % ID_ALPHABET.length];
  return out;
}

function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

function tsToMicros(ts: string): number {
  const [sec, micro = '0'] = ts.split('.');
  return Number(sec) * 1_000_000 + Number(micro.padEnd(6, '0').slice(0, 6));
}

function compareTs(a: string, b: string): number {
  return tsToMicros(a) - tsToMicros(b);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function clone<T>(v: T): T {
  return structuredClone(v);
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks);
}

/** Fields Slack accepts as JSON strings in form-encoded calls. */
const JSON_FIELDS = new Set(['blocks', 'attachments', 'view', 'files', 'metadata', 'unfurls', 'user_auth_blocks']);

const FILE_TYPES: Record<string, { filetype: string; mimetype: string; pretty: string }> = {
  txt: { filetype: 'text', mimetype: 'text/plain', pretty: 'Plain Text' },
  text: { filetype: 'text', mimetype: 'text/plain', pretty: 'Plain Text' },
  md: { filetype: 'markdown', mimetype: 'text/plain', pretty: 'Markdown (raw)' },
  csv: { filetype: 'csv', mimetype: 'text/csv', pretty: 'CSV' },
  json: { filetype: 'json', mimetype: 'application/json', pretty: 'JSON' },
  html: { filetype: 'html', mimetype: 'text/html', pretty: 'HTML' },
  pdf: { filetype: 'pdf', mimetype: 'application/pdf', pretty: 'PDF' },
  png: { filetype: 'png', mimetype: 'image/png', pretty: 'PNG' },
  jpg: { filetype: 'jpg', mimetype: 'image/jpeg', pretty: 'JPEG' },
  jpeg: { filetype: 'jpg', mimetype: 'image/jpeg', pretty: 'JPEG' },
  gif: { filetype: 'gif', mimetype: 'image/gif', pretty: 'GIF' },
  mp3: { filetype: 'mp3', mimetype: 'audio/mpeg', pretty: 'MP3' },
  wav: { filetype: 'wav', mimetype: 'audio/wav', pretty: 'WAV' },
  m4a: { filetype: 'm4a', mimetype: 'audio/x-m4a', pretty: 'M4A' },
  ogg: { filetype: 'ogg', mimetype: 'audio/ogg', pretty: 'Ogg Vorbis' },
  webm: { filetype: 'webm', mimetype: 'audio/webm', pretty: 'WebM' },
  mp4: { filetype: 'mp4', mimetype: 'video/mp4', pretty: 'MPEG 4 Video' },
};

function fileTypeFor(name: string, mimetype?: string): { filetype: string; mimetype: string; pretty: string } {
  const ext = name.includes('.') ? (name.split('.').pop() ?? '').toLowerCase() : '';
  const known = FILE_TYPES[ext];
  if (known) return mimetype ? { ...known, mimetype } : known;
  if (mimetype) {
    const byMime = Object.values(FILE_TYPES).find((t) => t.mimetype === mimetype);
    if (byMime) return byMime;
  }
  return { filetype: 'binary', mimetype: mimetype ?? 'application/octet-stream', pretty: 'Binary' };
}

function tzInfo(tz: string): { tz_label: string; tz_offset: number } {
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

// ---------------------------------------------------------------------------------------------------------
// Block Kit validation (the subset of Slack's rules that apps commonly trip over)
// ---------------------------------------------------------------------------------------------------------

const BLOCK_TYPES = new Set([
  'section', 'divider', 'image', 'actions', 'context', 'input', 'header', 'rich_text', 'file', 'video',
  'markdown', 'call', 'table', 'context_actions',
]);

function textObjectErrors(t: unknown, ptr: string, max: number, plainOnly = false): string[] {
  if (!isObj(t)) return [`[ERROR] must provide an object [json-pointer:${ptr}]`];
  const type = t.type;
  if (type !== 'plain_text' && type !== 'mrkdwn') return [`[ERROR] must be one of plain_text, mrkdwn [json-pointer:${ptr}/type]`];
  if (plainOnly && type !== 'plain_text') return [`[ERROR] must be plain_text [json-pointer:${ptr}/type]`];
  if (typeof t.text !== 'string') return [`[ERROR] must provide a string [json-pointer:${ptr}/text]`];
  if (t.text.length === 0) return [`[ERROR] must be more than 0 characters [json-pointer:${ptr}/text]`];
  if (t.text.length > max) return [`[ERROR] must be less than ${max + 1} characters [json-pointer:${ptr}/text]`];
  return [];
}

function elementErrors(el: unknown, ptr: string): string[] {
  if (!isObj(el)) return [`[ERROR] must provide an object [json-pointer:${ptr}]`];
  const errors: string[] = [];
  if (typeof el.action_id === 'string' && el.action_id.length > 255) {
    errors.push(`[ERROR] must be less than 256 characters [json-pointer:${ptr}/action_id]`);
  }
  if (el.type === 'button') {
    errors.push(...textObjectErrors(el.text, `${ptr}/text`, 75, true));
    if (typeof el.value === 'string' && el.value.length > 2000) {
      errors.push(`[ERROR] must be less than 2001 characters [json-pointer:${ptr}/value]`);
    }
    if (typeof el.url === 'string' && el.url.length > 3000) {
      errors.push(`[ERROR] must be less than 3001 characters [json-pointer:${ptr}/url]`);
    }
  }
  if ((el.type === 'static_select' || el.type === 'multi_static_select') && Array.isArray(el.options)) {
    if (el.options.length > 100) errors.push(`[ERROR] must be less than 101 items [json-pointer:${ptr}/options]`);
  }
  return errors;
}

/** Slack-style `response_metadata.messages` for invalid blocks; empty when valid. */
export function blockKitErrors(blocks: unknown, maxBlocks: number, root = '/blocks'): string[] {
  if (!Array.isArray(blocks)) return [`[ERROR] must provide an array [json-pointer:${root}]`];
  const errors: string[] = [];
  if (blocks.length > maxBlocks) errors.push(`[ERROR] no more than ${maxBlocks} items allowed [json-pointer:${root}]`);
  const blockIds = new Set<string>();
  blocks.forEach((block, i) => {
    const ptr = `${root}/${i}`;
    if (!isObj(block)) {
      errors.push(`[ERROR] must provide an object [json-pointer:${ptr}]`);
      return;
    }
    if (typeof block.type !== 'string' || !BLOCK_TYPES.has(block.type)) {
      errors.push(`[ERROR] unsupported type: ${String(block.type)} [json-pointer:${ptr}/type]`);
      return;
    }
    if (typeof block.block_id === 'string') {
      if (block.block_id.length > 255) errors.push(`[ERROR] must be less than 256 characters [json-pointer:${ptr}/block_id]`);
      if (blockIds.has(block.block_id)) errors.push(`[ERROR] duplicate block_id: ${block.block_id} [json-pointer:${ptr}/block_id]`);
      blockIds.add(block.block_id);
    }
    switch (block.type) {
      case 'section': {
        if (block.text === undefined && block.fields === undefined) {
          errors.push(`[ERROR] must provide either text or fields [json-pointer:${ptr}]`);
        }
        if (block.text !== undefined) errors.push(...textObjectErrors(block.text, `${ptr}/text`, 3000));
        if (block.fields !== undefined) {
          if (!Array.isArray(block.fields)) errors.push(`[ERROR] must provide an array [json-pointer:${ptr}/fields]`);
          else {
            if (block.fields.length > 10) errors.push(`[ERROR] no more than 10 items allowed [json-pointer:${ptr}/fields]`);
            block.fields.forEach((f, j) => errors.push(...textObjectErrors(f, `${ptr}/fields/${j}`, 2000)));
          }
        }
        if (block.accessory !== undefined) errors.push(...elementErrors(block.accessory, `${ptr}/accessory`));
        break;
      }
      case 'header':
        errors.push(...textObjectErrors(block.text, `${ptr}/text`, 150, true));
        break;
      case 'actions': {
        if (!Array.isArray(block.elements) || block.elements.length === 0) {
          errors.push(`[ERROR] must provide at least 1 item [json-pointer:${ptr}/elements]`);
          break;
        }
        if (block.elements.length > 25) errors.push(`[ERROR] no more than 25 items allowed [json-pointer:${ptr}/elements]`);
        const actionIds = new Set<string>();
        block.elements.forEach((el, j) => {
          errors.push(...elementErrors(el, `${ptr}/elements/${j}`));
          if (isObj(el) && typeof el.action_id === 'string') {
            if (actionIds.has(el.action_id)) {
              errors.push(`[ERROR] duplicate action_id: ${el.action_id} [json-pointer:${ptr}/elements/${j}/action_id]`);
            }
            actionIds.add(el.action_id);
          }
        });
        break;
      }
      case 'context': {
        if (!Array.isArray(block.elements) || block.elements.length === 0) {
          errors.push(`[ERROR] must provide at least 1 item [json-pointer:${ptr}/elements]`);
        } else if (block.elements.length > 10) {
          errors.push(`[ERROR] no more than 10 items allowed [json-pointer:${ptr}/elements]`);
        }
        break;
      }
      case 'input': {
        errors.push(...textObjectErrors(block.label, `${ptr}/label`, 2000, true));
        if (!isObj(block.element)) errors.push(`[ERROR] must provide an object [json-pointer:${ptr}/element]`);
        else errors.push(...elementErrors(block.element, `${ptr}/element`));
        break;
      }
      case 'image': {
        if (typeof block.alt_text !== 'string' || block.alt_text.length === 0) {
          errors.push(`[ERROR] must provide a string [json-pointer:${ptr}/alt_text]`);
        }
        break;
      }
      default:
        break;
    }
  });
  return errors;
}

function viewErrors(view: Json, kind: 'modal' | 'home'): string[] {
  const errors: string[] = [];
  if (view.type !== kind) {
    errors.push(`[ERROR] must be ${kind} [json-pointer:/view/type]`);
    return errors;
  }
  if (kind === 'modal') {
    errors.push(...textObjectErrors(view.title, '/view/title', 24, true));
    if (view.submit !== undefined) errors.push(...textObjectErrors(view.submit, '/view/submit', 24, true));
    if (view.close !== undefined) errors.push(...textObjectErrors(view.close, '/view/close', 24, true));
    const hasInput = Array.isArray(view.blocks) && view.blocks.some((b) => isObj(b) && b.type === 'input');
    if (hasInput && view.submit === undefined) {
      errors.push(`[ERROR] submit is required when an 'input' block is within the blocks array [json-pointer:/view/submit]`);
    }
  }
  errors.push(...blockKitErrors(view.blocks, 100, '/view/blocks'));
  if (typeof view.private_metadata === 'string' && view.private_metadata.length > 3000) {
    errors.push(`[ERROR] must be less than 3001 characters [json-pointer:/view/private_metadata]`);
  }
  if (typeof view.callback_id === 'string' && view.callback_id.length > 255) {
    errors.push(`[ERROR] must be less than 256 characters [json-pointer:/view/callback_id]`);
  }
  if (typeof view.external_id === 'string' && view.external_id.length > 255) {
    errors.push(`[ERROR] must be less than 256 characters [json-pointer:/view/external_id]`);
  }
  return errors;
}

// ---------------------------------------------------------------------------------------------------------
// Which scope each method needs (bot token). `null`: no scope. Channel-dependent ones are computed.
// ---------------------------------------------------------------------------------------------------------

const METHOD_SCOPES: Record<string, string | null> = {
  'auth.test': null,
  'auth.revoke': null,
  'chat.postMessage': 'chat:write',
  'chat.update': 'chat:write',
  'chat.delete': 'chat:write',
  'chat.postEphemeral': 'chat:write',
  'chat.getPermalink': null,
  'views.open': null,
  'views.update': null,
  'views.push': null,
  'views.publish': null,
  'reactions.add': 'reactions:write',
  'reactions.remove': 'reactions:write',
  'users.info': 'users:read',
  'conversations.open': 'im:write',
  'files.info': 'files:read',
  'files.getUploadURLExternal': 'files:write',
  'files.completeUploadExternal': 'files:write',
  'team.info': 'team:read',
  'apps.uninstall': null,
};

/** `a slash_commands envelope (/campaign hello)` — for error messages. */
function describeEnvelope(e: SocketModeEnvelope): string {
  const p = e.payload;
  const detail =
    e.type === 'slash_commands'
      ? `${str(p, 'command') ?? '?'} ${str(p, 'text') ?? ''}`.trim()
      : e.type === 'interactive'
        ? String(p.type)
        : isObj(p.event)
          ? String(p.event.type)
          : String(p.type);
  return `a ${e.type} envelope (${detail})`;
}

function conversationKind(channelId: string): 'channels' | 'groups' | 'im' | 'mpim' {
  if (channelId.startsWith('D')) return 'im';
  if (channelId.startsWith('G')) return 'groups';
  return 'channels';
}

// ---------------------------------------------------------------------------------------------------------
// WebSocket server side (RFC 6455), just what Socket Mode uses: text frames, ping/pong, close. Written here
// because the `ws` package is not installed (@slack/socket-mode 3 connects with undici's WebSocket).
// ---------------------------------------------------------------------------------------------------------

const WS_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const WS_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
const OP_CONTINUATION = 0x0;
const OP_TEXT = 0x1;
const OP_BINARY = 0x2;
const OP_CLOSE = 0x8;
const OP_PING = 0x9;
const OP_PONG = 0xa;

interface WsEvents {
  text(data: string): void;
  ping(payload: Buffer): void;
  pong(payload: Buffer): void;
  /** The peer sent a close frame (already answered when the peer started the close). */
  close(code: number | undefined, initiatedByPeer: boolean): void;
  /** The TCP socket is gone. */
  end(): void;
  /** The peer broke the protocol (the connection is then closed with 1002). */
  protocolError(message: string): void;
}

/** `Sec-WebSocket-Accept` for a client's `Sec-WebSocket-Key`. */
function wsAccept(key: string): string {
  return createHash('sha1').update(key + WS_GUID).digest('base64');
}

/** A server frame: FIN set, never masked (clients must reject masked server frames). */
function wsFrame(opcode: number, payload: Buffer): Buffer {
  const len = payload.length;
  let header: Buffer;
  if (len < 126) {
    header = Buffer.alloc(2);
    header.writeUInt8(len, 1);
  } else if (len < 65_536) {
    header = Buffer.alloc(4);
    header.writeUInt8(126, 1);
    header.writeUInt16BE(len, 2);
  } else {
    header = Buffer.alloc(10);
    header.writeUInt8(127, 1);
    header.writeBigUInt64BE(BigInt(len), 2);
  }
  header.writeUInt8(0x80 | opcode, 0);
  return Buffer.concat([header, payload]);
}

class WsPeer {
  private buffered: Buffer = Buffer.alloc(0);
  private fragments: Buffer[] = [];
  private fragmentOpcode = 0;
  private closeSent = false;
  private ended = false;
  private killTimer: NodeJS.Timeout | undefined;
  /** Settles when the TCP socket is gone. */
  readonly closed: Promise<void>;

  constructor(
    private readonly socket: Duplex,
    private readonly on: WsEvents,
  ) {
    this.closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('end', () => socket.end());
    // A client that destroys its socket right after the close handshake (the SDK does) resets it: not an error.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.ended = true;
      clearTimeout(this.killTimer);
      this.on.end();
    });
  }

  get open(): boolean {
    return !this.ended && !this.closeSent;
  }

  sendText(text: string): void {
    this.write(OP_TEXT, Buffer.from(text, 'utf8'));
  }

  ping(payload: Buffer): void {
    this.write(OP_PING, payload);
  }

  /** Start (or answer) the close handshake; the TCP socket is dropped if the peer does not answer in time. */
  close(code: number, reason = '', waitMs = 1000): void {
    if (this.closeSent || this.ended) return;
    const reasonBytes = Buffer.from(reason, 'utf8').subarray(0, 123);
    const payload = Buffer.alloc(2 + reasonBytes.length);
    payload.writeUInt16BE(code, 0);
    reasonBytes.copy(payload, 2);
    this.write(OP_CLOSE, payload);
    this.closeSent = true;
    this.killTimer = setTimeout(() => this.socket.destroy(), waitMs);
    this.killTimer.unref();
  }

  /** Bytes from the client (also those that arrived together with the upgrade request). */
  receive(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    while (!this.ended) {
      const frame = this.nextFrame();
      if (frame === undefined) return;
      if (typeof frame === 'string') {
        this.on.protocolError(frame);
        this.close(1002, 'protocol error');
        return;
      }
      this.handle(frame.fin, frame.opcode, frame.payload);
    }
  }

  private write(opcode: number, payload: Buffer): void {
    if (this.ended || this.socket.destroyed) return;
    this.socket.write(wsFrame(opcode, payload));
  }

  /** The next complete frame, `undefined` if more bytes are needed, or a protocol error message. */
  private nextFrame(): { fin: boolean; opcode: number; payload: Buffer } | string | undefined {
    const buf = this.buffered;
    if (buf.length < 2) return undefined;
    const b0 = buf.readUInt8(0);
    const b1 = buf.readUInt8(1);
    if ((b0 & 0x70) !== 0) return 'reserved bits set (no extension was negotiated)';
    if ((b1 & 0x80) === 0) return 'client frame not masked';
    let len = b1 & 0x7f;
    let offset = 2;
    if (len === 126) {
      if (buf.length < 4) return undefined;
      len = buf.readUInt16BE(2);
      offset = 4;
    } else if (len === 127) {
      if (buf.length < 10) return undefined;
      const big = buf.readBigUInt64BE(2);
      if (big > BigInt(WS_MAX_MESSAGE_BYTES)) return `frame too large (${big} bytes)`;
      len = Number(big);
      offset = 10;
    }
    if (len > WS_MAX_MESSAGE_BYTES) return `frame too large (${len} bytes)`;
    if (buf.length < offset + 4 + len) return undefined;
    const mask = buf.subarray(offset, offset + 4);
    const payload = Buffer.from(buf.subarray(offset + 4, offset + 4 + len));
    for (let i = 0; i < payload.length; i += 1) payload.writeUInt8(payload.readUInt8(i) ^ mask.readUInt8(i % 4), i);
    this.buffered = buf.subarray(offset + 4 + len);
    return { fin: (b0 & 0x80) !== 0, opcode: b0 & 0x0f, payload };
  }

  private handle(fin: boolean, opcode: number, payload: Buffer): void {
    switch (opcode) {
      case OP_PING:
        this.write(OP_PONG, payload);
        this.on.ping(payload);
        return;
      case OP_PONG:
        this.on.pong(payload);
        return;
      case OP_CLOSE: {
        const code = payload.length >= 2 ? payload.readUInt16BE(0) : undefined;
        const initiatedByPeer = !this.closeSent;
        // Echo the close (RFC 6455 §5.5.1), then the server ends the TCP connection.
        if (initiatedByPeer) this.close(code ?? 1000);
        this.socket.end();
        this.on.close(code, initiatedByPeer);
        return;
      }
      case OP_TEXT:
      case OP_BINARY:
      case OP_CONTINUATION: {
        if (opcode !== OP_CONTINUATION) {
          this.fragments = [];
          this.fragmentOpcode = opcode;
        }
        this.fragments.push(payload);
        if (!fin) return;
        const whole = Buffer.concat(this.fragments);
        this.fragments = [];
        if (this.fragmentOpcode === OP_TEXT) this.on.text(whole.toString('utf8'));
        else this.on.protocolError('binary message (Socket Mode only uses text frames)');
        return;
      }
      default:
        this.on.protocolError(`unknown opcode ${opcode}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// The fake
// ---------------------------------------------------------------------------------------------------------

interface TokenInfo {
  token: string;
  kind: 'bot' | 'user';
  teamId: string;
  userId: string;
  botId?: string;
  scopes: string[];
  revoked: boolean;
}

interface Team {
  id: string;
  name: string;
  domain: string;
  enterpriseId?: string;
}

interface Trigger {
  issuedAt: number;
  used: boolean;
  userId?: string;
  viewId?: string;
}

interface PendingUpload {
  fileId: string;
  filename: string;
  length: number;
  altText?: string;
  userId: string;
  teamId: string;
  data?: Buffer;
}

interface StoredFile {
  file: SlackFile;
  data: Buffer;
  teamId: string;
}

interface ResponseUrlEntry {
  id: string;
  url: string;
  uses: number;
  createdAt: number;
  ctx: ResponseUrlContext;
}

interface RateRule {
  method?: string;
  remaining: number;
  retryAfterSec: number;
  everyOther: boolean;
  seen: number;
}

interface FailRule {
  method: string;
  error: string;
  remaining: number;
}

type Handler = (args: SlackArgs, auth: TokenInfo) => Json;

interface LiveSocket {
  record: SocketModeConnection;
  peer: WsPeer;
  pingTimer?: NodeJS.Timeout;
  /** Closes the connection some time after a `disconnect` message, if the client has not. */
  closeTimer?: NodeJS.Timeout;
}

interface PendingAck {
  resolve(ack: SocketModeAck): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
  connectionId: string;
}

/** Slack's apps.connections.open host names look like this; only informative. */
const SOCKET_HOST = 'applink-fake-0';

const RESPONSE_URL_TTL_MS = 30 * 60_000;
const OAUTH_CODE_TTL_MS = 10 * 60_000;

class FakeSlackServer implements FakeSlack {
  readonly calls: SlackCall[] = [];
  readonly responses: ResponseUrlPost[] = [];
  readonly uploads: SlackUpload[] = [];
  readonly downloads: FileDownload[] = [];
  readonly serverErrors: Error[] = [];
  readonly socketConnections: SocketModeConnection[] = [];
  readonly socketEnvelopes: SentEnvelope[] = [];
  readonly socketAcks: SocketModeAck[] = [];

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

  private server: Server;
  private readonly opts: FakeSlackOptions;
  private readonly tokens = new Map<string, TokenInfo>();
  private readonly teams = new Map<string, Team>();
  private readonly users = new Map<string, SlackUser>();
  private readonly channels = new Map<string, SlackChannel>();
  private readonly store = new Map<string, SlackMessage[]>();
  private ephemeralList: SlackEphemeral[] = [];
  private readonly viewStore = new Map<string, StoredView>();
  private readonly rootStacks = new Map<string, string[]>();
  private readonly triggers = new Map<string, Trigger>();
  private readonly files = new Map<string, StoredFile>();
  private readonly seededFileIds = new Set<string>();
  private readonly pendingUploads = new Map<string, PendingUpload>();
  private readonly uploadKeys = new Map<string, string>();
  private readonly responseUrls = new Map<string, ResponseUrlEntry>();
  private readonly oauthCodes = new Map<string, OAuthGrant & { issuedAt: number; used: boolean }>();
  private rateRules: RateRule[] = [];
  private failRules: FailRule[] = [];
  private channelLimit: number | undefined;
  private readonly channelPosts = new Map<string, number[]>();
  private lastTsMicros = 0;
  private responseUrlCounter = 0;
  private readonly handlers: Record<string, Handler>;
  private readonly liveSockets = new Map<string, LiveSocket>();
  /** One-time tickets from apps.connections.open that a WebSocket upgrade may use. */
  private readonly socketTickets = new Set<string>();
  private readonly sentEnvelopes = new Map<string, { envelope: SocketModeEnvelope; connectionId: string; sentAt: number }>();
  private readonly pendingAcks = new Map<string, PendingAck>();
  private socketCounter = 0;

  constructor(opts: FakeSlackOptions) {
    this.opts = opts;
    this.teamId = opts.teamId ?? 'T0CAMPAIGN1';
    this.teamName = opts.teamName ?? 'Campaign Test Workspace';
    this.teamDomain = opts.teamDomain ?? 'campaign-test';
    this.botUserId = opts.botUserId ?? 'U0CAMPAIGNBOT';
    this.botId = opts.botId ?? 'B0CAMPAIGNBOT';
    this.appId = opts.appId ?? 'A0CAMPAIGN01';
    this.botToken = opts.botToken ?? `xoxb-${Date.now() % 1e11}-${Date.now() % 1e12}-${hex(12)}`;
    if (opts.appToken !== undefined && !opts.appToken.startsWith('xapp-')) {
      // A test that configures a bot/user token here would only ever see not_allowed_token_type.
      throw new Error(`startFakeSlack: appToken must be an app-level token (xapp-…), got ${opts.appToken.slice(0, 5)}…`);
    }
    this.appToken = opts.appToken ?? `xapp-1-${this.appId}-${Date.now() % 1e13}-${hex(32)}`;
    this.teams.set(this.teamId, { id: this.teamId, name: this.teamName, domain: this.teamDomain });
    this.tokens.set(this.botToken, {
      token: this.botToken,
      kind: 'bot',
      teamId: this.teamId,
      userId: this.botUserId,
      botId: this.botId,
      scopes: [...(opts.scopes ?? MANIFEST_BOT_SCOPES)],
      revoked: false,
    });
    this.users.set(this.botUserId, { id: this.botUserId, name: 'campaign', real_name: 'Campaign', is_bot: true });
    this.server = createServer((req, res) => {
      this.route(req, res).catch((err: unknown) => {
        const error = err instanceof Error ? err : new Error(String(err));
        this.serverErrors.push(error);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`fake slack error: ${error.message}`);
      });
    });
    this.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.handleUpgrade(req, socket, head));
    this.handlers = this.buildHandlers();
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = this.server.address() as AddressInfo;
    this.baseUrl = `http://127.0.0.1:${port}`;
    this.apiUrl = `${this.baseUrl}/api/`;
  }

  // ------------------------------------------------------------------ public helpers

  callsTo(method: string): SlackCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  responseUrl(id?: string, ctx: ResponseUrlContext = {}): string {
    this.responseUrlCounter += 1;
    const key = hex(12);
    const theId = id ?? `r${this.responseUrlCounter}`;
    const url = `${this.baseUrl}/commands/${this.teamId}/${1_000_000 + this.responseUrlCounter}/${key}`;
    this.responseUrls.set(key, { id: theId, url, uses: 0, createdAt: Date.now(), ctx });
    return url;
  }

  async waitFor<T>(pick: () => T | undefined | null | false, timeoutMs = 5000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let lastError: unknown;
    for (;;) {
      let value: T | undefined | null | false;
      try {
        value = pick();
        lastError = undefined;
      } catch (err) {
        lastError = err;
        value = undefined;
      }
      if (value) return value;
      if (Date.now() >= deadline) {
        const src = pick.toString().replace(/\s+/g, ' ').slice(0, 200);
        const recent = this.calls
          .slice(-15)
          .map((c) => `${c.method}${c.response.ok === false ? `(${String(c.response.error)})` : ''}`)
          .join(', ');
        const why = lastError instanceof Error ? `; last error from the predicate: ${lastError.message}` : '';
        throw new Error(
          `fakeSlack.waitFor timed out after ${timeoutMs} ms waiting for: ${src}\n` +
            `  Web API calls so far (${this.calls.length}, last 15): ${recent || 'none'}\n` +
            `  response_url posts: ${this.responses.length}; uploads: ${this.uploads.length}; ` +
            `fake errors: ${this.serverErrors.map((e) => e.message).join(' | ') || 'none'}${why}`,
        );
      }
      await sleep(10);
    }
  }

  addUser(user: SlackUser): void {
    if (user.tz !== undefined) tzInfo(user.tz); // throws RangeError for a bad IANA name, at the call site
    this.users.set(user.id, { ...user });
  }

  addChannel(channel: SlackChannel): void {
    this.channels.set(channel.id, { ...channel });
  }

  channel(id: string): SlackChannel | undefined {
    const c = this.channels.get(id);
    return c ? { ...c } : undefined;
  }

  user(id: string): SlackUser | undefined {
    const u = this.users.get(id);
    return u ? { ...u } : undefined;
  }

  file(id: string): { file: SlackFile; data: Buffer } | undefined {
    const stored = this.files.get(id);
    return stored ? { file: clone(stored.file), data: Buffer.from(stored.data) } : undefined;
  }

  replaceView(viewId: string, input: Record<string, unknown>): { ok: true; view: SlackView } | { ok: false; errors: string[] } {
    const stored = this.viewStore.get(viewId);
    if (!stored) return { ok: false, errors: [`no view ${viewId}`] };
    const errors = viewErrors(input, 'modal');
    if (errors.length > 0) return { ok: false, errors };
    stored.view = this.makeView(input, stored.view.team_id, stored.view.bot_id, stored.view);
    stored.at = Date.now();
    return { ok: true, view: clone(stored.view) };
  }

  pushView(fromViewId: string, input: Record<string, unknown>): { ok: true; view: SlackView } | { ok: false; errors: string[] } {
    const from = this.viewStore.get(fromViewId);
    if (!from) return { ok: false, errors: [`no view ${fromViewId}`] };
    const errors = viewErrors(input, 'modal');
    if (errors.length > 0) return { ok: false, errors };
    const rootId = from.view.root_view_id ?? from.view.id;
    const stack = this.rootStacks.get(rootId) ?? [rootId];
    if (stack.length >= 3) return { ok: false, errors: ['push_limit_reached'] };
    const view = this.makeView(input, from.view.team_id, from.view.bot_id);
    view.root_view_id = rootId;
    view.previous_view_id = stack.at(-1) ?? null;
    stack.push(view.id);
    this.rootStacks.set(rootId, stack);
    this.viewStore.set(view.id, { view, userId: from.userId, via: 'views.push', at: Date.now() });
    return { ok: true, view: clone(view) };
  }

  addMessage(m: { channel: string; text?: string; user?: string; ts?: string; thread_ts?: string; blocks?: unknown[]; bot_id?: string; files?: SlackFile[]; subtype?: string }): SlackMessage {
    const existing = m.ts ? this.message(m.channel, m.ts) : undefined;
    if (existing) return existing;
    const ts = m.ts ?? this.nextTs();
    if (m.ts) this.lastTsMicros = Math.max(this.lastTsMicros, tsToMicros(m.ts));
    const msg: SlackMessage = {
      type: 'message',
      channel: m.channel,
      ts,
      text: m.text ?? '',
      user: m.user ?? 'U0SOMEUSER1',
      team: this.teamId,
    };
    if (m.bot_id) msg.bot_id = m.bot_id;
    if (m.blocks) msg.blocks = clone(m.blocks);
    if (m.files) msg.files = clone(m.files);
    if (m.subtype) msg.subtype = m.subtype;
    if (m.thread_ts && m.thread_ts !== ts) msg.thread_ts = m.thread_ts;
    this.insertMessage(msg);
    return clone(msg);
  }

  addFile(f: { name: string; mimetype: string; data: Buffer; filetype?: string; title?: string; user?: string }): SlackFile {
    const file = this.makeFile({
      name: f.name,
      title: f.title ?? f.name,
      mimetype: f.mimetype,
      filetype: f.filetype,
      size: f.data.length,
      user: f.user ?? 'U0SOMEUSER1',
      teamId: this.teamId,
    });
    this.files.set(file.id, { file, data: Buffer.from(f.data), teamId: this.teamId });
    this.seededFileIds.add(file.id);
    return clone(file);
  }

  messages(channel?: string): SlackMessage[] {
    const all = channel === undefined ? [...this.store.values()].flat() : (this.store.get(channel) ?? []);
    return clone(all).sort((a, b) => compareTs(a.ts, b.ts));
  }

  message(channel: string, ts: string): SlackMessage | undefined {
    const found = this.findMessage(channel, ts);
    return found ? clone(found) : undefined;
  }

  thread(channel: string, threadTs: string): SlackMessage[] {
    return this.messages(channel).filter((m) => m.ts === threadTs || m.thread_ts === threadTs);
  }

  ephemerals(channel?: string): SlackEphemeral[] {
    return clone(channel === undefined ? this.ephemeralList : this.ephemeralList.filter((e) => e.channel === channel));
  }

  views(callbackId?: string): StoredView[] {
    const all = [...this.viewStore.values()];
    return clone(callbackId === undefined ? all : all.filter((v) => v.view.callback_id === callbackId));
  }

  view(id: string): StoredView | undefined {
    const v = this.viewStore.get(id);
    return v ? clone(v) : undefined;
  }

  issueTrigger(ctx: TriggerContext = {}): string {
    const id = ctx.triggerId ?? `${Math.floor(Date.now() / 1000)}${Math.floor(Math.random() * 1000)}.${Math.floor(Math.random() * 1e12)}.${hex(16)}`;
    this.triggers.set(id, { issuedAt: Date.now(), used: false, userId: ctx.userId, viewId: ctx.viewId });
    return id;
  }

  oauthCode(grant: Partial<Omit<OAuthGrant, 'code'>> & { code?: string } = {}): OAuthGrant {
    const teamId = grant.teamId ?? slackId('T');
    const g: OAuthGrant = {
      code: grant.code ?? `${Date.now()}.${hex(20)}`,
      teamId,
      teamName: grant.teamName ?? (teamId === this.teamId ? this.teamName : `Workspace ${teamId}`),
      botToken: grant.botToken ?? `xoxb-${Date.now() % 1e11}-${hex(6)}-${hex(12)}`,
      botUserId: grant.botUserId ?? slackId('U'),
      botId: grant.botId ?? slackId('B'),
      userToken: grant.userToken ?? ((grant.userScopes?.length ?? 0) > 0 ? `xoxp-${Date.now() % 1e11}-${hex(12)}` : undefined),
      installerUserId: grant.installerUserId ?? slackId('U'),
      botScopes: grant.botScopes ?? [...(this.opts.scopes ?? MANIFEST_BOT_SCOPES)],
      userScopes: grant.userScopes ?? [],
      redirectUri: grant.redirectUri,
      enterpriseId: grant.enterpriseId,
    };
    this.oauthCodes.set(g.code, { ...g, issuedAt: Date.now(), used: false });
    return { ...g };
  }

  rateLimit(rule: { method?: string; times?: number; retryAfterSec: number; everyOther?: boolean }): void {
    const everyOther = rule.everyOther ?? false;
    this.rateRules.push({
      method: rule.method,
      remaining: rule.times ?? (everyOther ? Number.POSITIVE_INFINITY : 1),
      retryAfterSec: rule.retryAfterSec,
      everyOther,
      seen: 0,
    });
  }

  channelRateLimit(perSecond: number): void {
    this.channelLimit = perSecond;
  }

  failMethod(method: string, error: string, times?: number): void {
    this.failRules.push({ method, error, remaining: times ?? Number.POSITIVE_INFINITY });
  }

  nextTs(): string {
    this.lastTsMicros = Math.max(Date.now() * 1000, this.lastTsMicros + 1);
    const sec = Math.floor(this.lastTsMicros / 1_000_000);
    const micro = this.lastTsMicros % 1_000_000;
    return `${sec}.${String(micro).padStart(6, '0')}`;
  }

  reset(): void {
    this.calls.length = 0;
    this.responses.length = 0;
    this.uploads.length = 0;
    this.downloads.length = 0;
    this.serverErrors.length = 0;
    this.store.clear();
    this.ephemeralList = [];
    this.viewStore.clear();
    this.rootStacks.clear();
    this.triggers.clear();
    this.pendingUploads.clear();
    this.uploadKeys.clear();
    this.responseUrls.clear();
    for (const id of [...this.files.keys()]) if (!this.seededFileIds.has(id)) this.files.delete(id);
    this.rateRules = [];
    this.failRules = [];
    this.channelLimit = undefined;
    this.channelPosts.clear();
    this.socketEnvelopes.length = 0;
    this.socketAcks.length = 0;
    for (const id of [...this.sentEnvelopes.keys()]) if (!this.pendingAcks.has(id)) this.sentEnvelopes.delete(id);
    for (let i = this.socketConnections.length - 1; i >= 0; i -= 1) {
      if (this.socketConnections[i]?.closedAt !== undefined) this.socketConnections.splice(i, 1);
    }
  }

  async close(): Promise<void> {
    // Upgraded sockets are no longer the HTTP server's: close them ourselves with a proper handshake
    // (1001 "going away"), so a bot that is stopping sees a clean close rather than a socket error.
    // Stop the bot first: a running SDK would try to reconnect to a fake that is gone.
    await Promise.all(
      [...this.liveSockets.values()].map((live) => {
        clearTimeout(live.closeTimer);
        clearInterval(live.pingTimer);
        if (live.peer.open) {
          live.record.closedBy ??= 'fake';
          live.peer.close(1001, 'going away', 1000);
        }
        return live.peer.closed;
      }),
    );
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  // ------------------------------------------------------------------ HTTP routing

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.baseUrl);
    const body = await readBody(req);
    const path = url.pathname;
    if (path.startsWith('/api/')) return this.handleApi(req, res, url, body);
    if (path.startsWith('/upload/v1/')) return this.handleUpload(req, res, path, body);
    if (path.startsWith('/files-pri/')) return this.handleDownload(req, res, url);
    if (path.startsWith('/commands/')) return this.handleResponseUrl(req, res, path, body);
    if (path === '/oauth/v2/authorize') return this.handleAuthorize(res, url);
    if (path === '/signin') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(loginPage(this.teamName));
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  }

  // ------------------------------------------------------------------ Web API

  private async parseApiArgs(
    req: IncomingMessage,
    url: URL,
    body: Buffer,
  ): Promise<{ args: SlackArgs; encoding: SlackCall['encoding']; invalidJson: boolean }> {
    const args: SlackArgs = Object.fromEntries(url.searchParams.entries());
    const ct = (req.headers['content-type'] ?? '').toLowerCase();
    let encoding: SlackCall['encoding'] = 'query';
    let invalidJson = false;
    if (ct.startsWith('application/json')) {
      encoding = 'json';
      try {
        const parsed: unknown = body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
        if (isObj(parsed)) Object.assign(args, parsed);
        else invalidJson = true;
      } catch {
        invalidJson = true;
      }
      return { args, encoding, invalidJson };
    }
    if (body.length > 0 && ct.startsWith('multipart/form-data')) {
      encoding = 'multipart';
      const form = await new Response(body, { headers: { 'content-type': ct } }).formData();
      for (const [k, v] of form.entries()) {
        args[k] = typeof v === 'string' ? v : { filename: v.name, size: v.size };
      }
    } else if (body.length > 0 || ct.startsWith('application/x-www-form-urlencoded')) {
      encoding = 'form';
      for (const [k, v] of new URLSearchParams(body.toString('utf8')).entries()) args[k] = v;
    }
    for (const key of JSON_FIELDS) {
      const v = args[key];
      if (typeof v === 'string' && /^\s*[[{]/.test(v)) {
        try {
          args[key] = JSON.parse(v) as unknown;
        } catch {
          // left as a string: the method answers invalid_blocks_format / invalid_arguments like Slack
        }
      }
    }
    return { args, encoding, invalidJson };
  }

  private async handleApi(req: IncomingMessage, res: ServerResponse, url: URL, body: Buffer): Promise<void> {
    const method = decodeURIComponent(url.pathname.slice('/api/'.length));
    const { args, encoding, invalidJson } = await this.parseApiArgs(req, url, body);
    const authHeader = req.headers.authorization;
    const bearer = authHeader ? /^Bearer\s+(\S+)/i.exec(authHeader)?.[1] : undefined;
    // Slack ignores a `token` inside a JSON body: JSON callers must use the Authorization header.
    const bodyToken = encoding === 'json' ? undefined : str(args, 'token');
    delete args.token;
    const token = bearer ?? bodyToken;

    const call: SlackCall = { method, args, at: Date.now(), status: 200, response: {}, encoding };
    if (token !== undefined) call.token = token;
    this.calls.push(call);

    const send = (status: number, response: Json, headers: Record<string, string> = {}): void => {
      if (encoding === 'json' && !/charset=/i.test(req.headers['content-type'] ?? '')) {
        // Slack's nudge for JSON bodies without a charset.
        response.warning = 'missing_charset';
        const meta = isObj(response.response_metadata) ? response.response_metadata : {};
        meta.warnings = ['missing_charset'];
        response.response_metadata = meta;
      }
      call.status = status;
      call.response = response;
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(JSON.stringify(response));
    };

    // Injected faults first: a test that asks for a 429 or an error gets it whatever the arguments.
    const rate = this.matchRateRule(method);
    if (rate) {
      send(429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(rate.retryAfterSec) });
      return;
    }
    const failure = this.failRules.find((r) => r.method === method && r.remaining > 0);
    if (failure) {
      failure.remaining -= 1;
      send(200, fail(failure.error));
      return;
    }
    if (invalidJson) {
      send(200, fail('invalid_json'));
      return;
    }

    if (method === 'oauth.v2.access') {
      send(200, this.oauthV2Access(args, req.headers.authorization));
      return;
    }
    if (method === 'apps.connections.open') {
      const opened = this.appsConnectionsOpen(token);
      send(200, opened, opened.ok === true ? { 'x-oauth-scopes': 'connections:write', 'x-accepted-oauth-scopes': 'connections:write' } : {});
      return;
    }
    const handler = this.handlers[method];
    if (!handler) {
      send(200, fail('unknown_method', { req_method: method }));
      return;
    }
    if (token === undefined || token === '') {
      send(200, fail('not_authed'));
      return;
    }
    if (token === this.appToken) {
      // App-level tokens only open Socket Mode connections; Slack refuses them for everything else.
      send(200, fail('not_allowed_token_type'));
      return;
    }
    const auth = this.tokens.get(token);
    if (!auth) {
      send(200, fail('invalid_auth'));
      return;
    }
    if (auth.revoked) {
      send(200, fail('token_revoked'));
      return;
    }
    const needed = this.neededScope(method, args);
    const scopeHeaders: Record<string, string> = { 'x-oauth-scopes': auth.scopes.join(',') };
    if (needed) scopeHeaders['x-accepted-oauth-scopes'] = needed;
    if (needed && !auth.scopes.includes(needed)) {
      send(200, fail('missing_scope', { needed, provided: auth.scopes.join(',') }), scopeHeaders);
      return;
    }
    if (method === 'chat.postMessage' && this.channelLimit !== undefined) {
      const retryAfter = this.channelRetryAfter(str(args, 'channel') ?? '');
      if (retryAfter !== undefined) {
        send(429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(retryAfter) });
        return;
      }
    }
    const response = handler(args, auth);
    if (method === 'chat.postMessage' && response.ok === true && typeof response.channel === 'string') {
      const posts = this.channelPosts.get(response.channel) ?? [];
      posts.push(Date.now());
      this.channelPosts.set(response.channel, posts);
    }
    send(200, response, scopeHeaders);
  }

  private matchRateRule(method: string): RateRule | undefined {
    for (const rule of this.rateRules) {
      if (rule.remaining <= 0) continue;
      if (rule.method !== undefined && rule.method !== method) continue;
      rule.seen += 1;
      if (rule.everyOther && rule.seen % 2 === 0) continue;
      rule.remaining -= 1;
      return rule;
    }
    return undefined;
  }

  private channelRetryAfter(channel: string): number | undefined {
    const limit = this.channelLimit;
    if (limit === undefined) return undefined;
    const now = Date.now();
    const recent = (this.channelPosts.get(channel) ?? []).filter((t) => now - t < 1000);
    this.channelPosts.set(channel, recent);
    if (recent.length < limit) return undefined;
    const oldest = recent[0] ?? now;
    return Math.max(1, Math.ceil((oldest + 1000 - now) / 1000));
  }

  private neededScope(method: string, args: SlackArgs): string | null {
    if (method === 'conversations.history' || method === 'conversations.replies') {
      return `${conversationKind(str(args, 'channel') ?? '')}:history`;
    }
    if (method === 'conversations.info') return `${conversationKind(str(args, 'channel') ?? '')}:read`;
    return METHOD_SCOPES[method] ?? null;
  }

  // ------------------------------------------------------------------ Socket Mode

  waitForSocketConnection(timeoutMs = 5000): Promise<SocketModeConnection> {
    return this.readySocket(timeoutMs, 'to be ready').then((live) => live.record);
  }

  async pushEnvelope(input: SocketModeEnvelopeInput, opts: { timeoutMs?: number } = {}): Promise<SocketModeAck> {
    const timeoutMs = opts.timeoutMs ?? 5000;
    const envelope: SocketModeEnvelope = {
      envelope_id: input.envelope_id ?? randomUUID(),
      type: input.type,
      payload: clone(input.payload),
      accepts_response_payload: input.accepts_response_payload,
    };
    if (input.retry_attempt !== undefined) envelope.retry_attempt = input.retry_attempt;
    if (input.retry_reason !== undefined) envelope.retry_reason = input.retry_reason;
    if (this.pendingAcks.has(envelope.envelope_id)) throw new Error(`fakeSlack.pushEnvelope: envelope ${envelope.envelope_id} is already waiting for its ack`);
    const live = await this.readySocket(timeoutMs, `to deliver ${describeEnvelope(envelope)}`);
    const connectionId = live.record.id;
    return new Promise<SocketModeAck>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pendingAcks.delete(envelope.envelope_id);
        const still = this.liveSockets.get(connectionId)?.peer.open ? 'still open' : 'closed';
        const consequence = envelope.type === 'events_api' ? 'retried the event' : 'shown the user an error';
        reject(
          new Error(
            `fakeSlack: the bot did not ack ${describeEnvelope(envelope)} (envelope ${envelope.envelope_id}) within ${timeoutMs} ms ` +
              `on Socket Mode connection ${connectionId} (${still}). Slack gives up after 3000 ms and would have ${consequence}. ` +
              `Does the listener call ack()?\n  fake errors: ${this.serverErrors.map((e) => e.message).join(' | ') || 'none'}`,
          ),
        );
      }, timeoutMs);
      this.pendingAcks.set(envelope.envelope_id, { resolve, reject, timer, connectionId });
      this.sentEnvelopes.set(envelope.envelope_id, { envelope, connectionId, sentAt: performance.now() });
      this.socketEnvelopes.push({ envelope: clone(envelope), connectionId, at: Date.now() });
      live.peer.sendText(JSON.stringify(envelope));
    });
  }

  disconnectSockets(reason = 'refresh_requested', opts: { closeAfterMs?: number } = {}): number {
    let sent = 0;
    for (const live of this.liveSockets.values()) {
      if (!live.peer.open) continue;
      live.record.disconnectReason = reason;
      live.peer.sendText(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: SOCKET_HOST } }));
      clearTimeout(live.closeTimer);
      live.closeTimer = setTimeout(() => {
        if (!live.peer.open) return;
        live.record.closedBy = 'fake';
        live.peer.close(1001, 'going away');
      }, opts.closeAfterMs ?? 10_000);
      live.closeTimer.unref();
      sent += 1;
    }
    return sent;
  }

  /** apps.connections.open: only the app-level token; bot/user tokens are real but of the wrong type. */
  private appsConnectionsOpen(token: string | undefined): Json {
    if (token === undefined || token === '') return fail('not_authed');
    if (token !== this.appToken) return fail(this.tokens.has(token) ? 'not_allowed_token_type' : 'invalid_auth');
    const ticket = randomUUID();
    this.socketTickets.add(ticket);
    return { ok: true, url: `${this.baseUrl.replace(/^http/, 'ws')}/link/?ticket=${ticket}&app_id=${hex(32)}` };
  }

  private handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const refuse = (status: number, text: string): void => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
    };
    try {
      const url = new URL(req.url ?? '/', this.baseUrl);
      if (url.pathname !== '/link/' && url.pathname !== '/link') return refuse(404, 'Not Found');
      const key = req.headers['sec-websocket-key'];
      if (typeof key !== 'string' || req.headers['sec-websocket-version'] !== '13' || (req.headers.upgrade ?? '').toLowerCase() !== 'websocket') {
        return refuse(400, 'Bad Request');
      }
      // Tickets are one-time: a reconnect must call apps.connections.open again.
      if (!this.socketTickets.delete(url.searchParams.get('ticket') ?? '')) return refuse(401, 'Unauthorized');
      socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${wsAccept(key)}\r\n\r\n`);
      this.acceptSocket(socket, head);
    } catch (err) {
      this.serverErrors.push(err instanceof Error ? err : new Error(String(err)));
      socket.destroy();
    }
  }

  private acceptSocket(socket: Duplex, head: Buffer): void {
    if (socket instanceof Socket) socket.setNoDelay(true);
    this.socketCounter += 1;
    const record: SocketModeConnection = { id: `ws${this.socketCounter}`, openedAt: Date.now(), pingsReceived: 0, pongsReceived: 0 };
    this.socketConnections.push(record);
    const peer = new WsPeer(socket, {
      text: (data) => this.onSocketText(record, data),
      ping: () => {
        record.pingsReceived += 1;
      },
      pong: () => {
        record.pongsReceived += 1;
      },
      close: (code, initiatedByPeer) => {
        record.closedBy ??= initiatedByPeer ? 'client' : 'fake';
        record.closeCode ??= code;
      },
      end: () => this.onSocketEnd(record),
      protocolError: (message) => this.serverErrors.push(new Error(`Socket Mode ${record.id}: ${message}`)),
    });
    const live: LiveSocket = { record, peer };
    this.liveSockets.set(record.id, live);
    const interval = this.opts.socketPingIntervalMs ?? 5000;
    if (interval > 0) {
      live.pingTimer = setInterval(() => peer.ping(Buffer.from(`ping ${Date.now()}`)), interval);
      live.pingTimer.unref();
    }
    if (head.length > 0) peer.receive(head);
    const numConnections = [...this.liveSockets.values()].filter((l) => l.peer.open).length;
    peer.sendText(
      JSON.stringify({
        type: 'hello',
        num_connections: numConnections,
        debug_info: { host: SOCKET_HOST, build_number: 1, approximate_connection_time: 18060 },
        connection_info: { app_id: this.appId },
      }),
    );
    record.helloAt = Date.now();
  }

  private onSocketText(record: SocketModeConnection, data: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(data);
    } catch {
      this.serverErrors.push(new Error(`Socket Mode ${record.id}: the bot sent a non-JSON message: ${data.slice(0, 200)}`));
      return;
    }
    if (!isObj(msg) || typeof msg.envelope_id !== 'string') {
      this.serverErrors.push(new Error(`Socket Mode ${record.id}: the bot sent something that is not an ack: ${data.slice(0, 200)}`));
      return;
    }
    const sent = this.sentEnvelopes.get(msg.envelope_id);
    if (!sent) {
      this.serverErrors.push(new Error(`Socket Mode ${record.id}: ack for an envelope_id the fake never sent: ${msg.envelope_id}`));
      return;
    }
    if (msg.payload !== undefined && !isObj(msg.payload)) {
      this.serverErrors.push(new Error(`Socket Mode ${record.id}: ack payload for ${msg.envelope_id} is not an object: ${data.slice(0, 200)}`));
    }
    const ms = performance.now() - sent.sentAt;
    const ack: SocketModeAck = { envelopeId: msg.envelope_id, ms, timedOut: ms > 3000, envelope: clone(sent.envelope), connectionId: record.id, at: Date.now() };
    if (isObj(msg.payload)) ack.payload = msg.payload;
    this.socketAcks.push(ack);
    const pending = this.pendingAcks.get(msg.envelope_id);
    if (pending) {
      this.pendingAcks.delete(msg.envelope_id);
      clearTimeout(pending.timer);
      pending.resolve(clone(ack));
    }
  }

  private onSocketEnd(record: SocketModeConnection): void {
    record.closedAt ??= Date.now();
    record.closedBy ??= 'socket';
    const live = this.liveSockets.get(record.id);
    if (live) {
      clearInterval(live.pingTimer);
      clearTimeout(live.closeTimer);
      this.liveSockets.delete(record.id);
    }
    for (const [id, pending] of this.pendingAcks) {
      if (pending.connectionId !== record.id) continue;
      this.pendingAcks.delete(id);
      clearTimeout(pending.timer);
      const sent = this.sentEnvelopes.get(id);
      pending.reject(
        new Error(
          `fakeSlack: Socket Mode connection ${record.id} closed (${record.closedBy}${record.closeCode !== undefined ? `, code ${record.closeCode}` : ''}) ` +
            `before the bot acked ${sent ? describeEnvelope(sent.envelope) : 'an envelope'} (envelope ${id}).`,
        ),
      );
    }
  }

  /** The newest connection that got `hello` and no `disconnect`, waiting up to `timeoutMs` for one. */
  private async readySocket(timeoutMs: number, purpose: string): Promise<LiveSocket> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const ready = [...this.liveSockets.values()].filter((l) => l.peer.open && l.record.helloAt !== undefined && l.record.disconnectReason === undefined);
      const newest = ready.at(-1);
      if (newest) return newest;
      if (Date.now() >= deadline) {
        const opens = this.callsTo('apps.connections.open');
        const results = opens.map((c) => (c.response.ok === true ? 'ok' : String(c.response.error))).join(', ');
        const conns = this.socketConnections
          .map((c) => `${c.id} ${c.closedAt === undefined ? 'open' : `closed by ${c.closedBy ?? '?'}${c.closeCode !== undefined ? ` (${c.closeCode})` : ''}`}${c.disconnectReason ? ` after disconnect:${c.disconnectReason}` : ''}`)
          .join(', ');
        throw new Error(
          `fakeSlack: no Socket Mode connection ${purpose} within ${timeoutMs} ms.\n` +
            `  apps.connections.open calls: ${opens.length}${opens.length > 0 ? ` (${results})` : ''}; connections: ${conns || 'none'}.\n` +
            `  The bot needs new App({ socketMode: true, appToken: fake.appToken, token: fake.botToken, clientOptions: { slackApiUrl: fake.apiUrl } }) ` +
            `and an awaited app.start(); after a disconnect the SDK waits clientPingTimeout (5 s by default) before reconnecting.`,
        );
      }
      await sleep(10);
    }
  }

  // ------------------------------------------------------------------ channels & messages

  private team(teamId: string): Team {
    return this.teams.get(teamId) ?? { id: teamId, name: teamId, domain: teamId.toLowerCase() };
  }

  /** Resolve a `channel` argument like Slack: ids, `#name`, or a user id (the app's DM with that user). */
  private resolveChannel(raw: string | undefined): { channel: SlackChannel } | { error: string } {
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

  private dmWith(userId: string): SlackChannel {
    const id = `D${userId.slice(1)}`;
    const existing = this.channels.get(id);
    if (existing) return existing;
    const dm: SlackChannel = { id, user: userId, is_member: true };
    this.channels.set(id, dm);
    return dm;
  }

  /** Can `auth` post to / read `channel`? Private channels the bot is not in are invisible (channel_not_found). */
  private channelAccessError(channel: SlackChannel, auth: TokenInfo, write: boolean): string | undefined {
    if (channel.is_member === false) {
      if (channel.is_private || channel.id.startsWith('G')) return 'channel_not_found';
      if (write && auth.scopes.includes('chat:write.public')) return undefined;
      return 'not_in_channel';
    }
    if (write && channel.is_archived) return 'is_archived';
    return undefined;
  }

  private findMessage(channel: string, ts: string): SlackMessage | undefined {
    return this.store.get(channel)?.find((m) => m.ts === ts);
  }

  private insertMessage(msg: SlackMessage): void {
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

  private botMessage(auth: TokenInfo, channel: string, args: SlackArgs, ts: string): SlackMessage {
    const msg: SlackMessage = {
      type: 'message',
      channel,
      ts,
      text: str(args, 'text') ?? '',
      user: auth.userId,
      team: auth.teamId,
      app_id: this.appId,
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
  private contentError(args: SlackArgs, requireContent: boolean): Json | undefined {
    if (args.blocks !== undefined) {
      if (typeof args.blocks === 'string' || !Array.isArray(args.blocks)) {
        if (args.blocks !== '' && args.blocks !== '[]') return fail('invalid_blocks_format');
      } else {
        const errors = blockKitErrors(args.blocks, 50);
        if (errors.length > 0) return fail('invalid_blocks', { response_metadata: { messages: errors } });
      }
    }
    if (args.attachments !== undefined && !Array.isArray(args.attachments) && args.attachments !== '') {
      return fail('invalid_attachments');
    }
    const text = str(args, 'text') ?? '';
    if (text.length > 40_000) return fail('msg_too_long');
    const hasBlocks = Array.isArray(args.blocks) && args.blocks.length > 0;
    const hasAttachments = Array.isArray(args.attachments) && args.attachments.length > 0;
    if (requireContent && text === '' && !hasBlocks && !hasAttachments) return fail('no_text');
    return undefined;
  }

  private apiMessage(m: SlackMessage): Json {
    const { channel: _channel, ...rest } = clone(m);
    return rest;
  }

  // ------------------------------------------------------------------ views

  private makeView(input: Json, teamId: string, botId: string, prev?: SlackView): SlackView {
    return {
      id: prev?.id ?? slackId('V'),
      team_id: teamId,
      type: typeof input.type === 'string' ? input.type : 'modal',
      title: clone(input.title),
      submit: input.submit === undefined ? undefined : clone(input.submit),
      close: input.close === undefined ? undefined : clone(input.close),
      blocks: Array.isArray(input.blocks) ? clone(input.blocks) : [],
      private_metadata: typeof input.private_metadata === 'string' ? input.private_metadata : '',
      callback_id: typeof input.callback_id === 'string' ? input.callback_id : '',
      state: { values: {} },
      hash: `${Math.floor(Date.now() / 1000)}.${hex(4)}`,
      clear_on_close: input.clear_on_close === true,
      notify_on_close: input.notify_on_close === true,
      root_view_id: prev?.root_view_id ?? null,
      previous_view_id: prev?.previous_view_id ?? null,
      app_id: this.appId,
      external_id: typeof input.external_id === 'string' ? input.external_id : (prev?.external_id ?? ''),
      app_installed_team_id: teamId,
      bot_id: botId,
    };
  }

  private exchangeTrigger(triggerId: string | undefined): { trigger: Trigger } | { error: Json } {
    if (!triggerId) return { error: invalidArguments(['[ERROR] missing required field: trigger_id']) };
    const trigger = this.triggers.get(triggerId);
    if (!trigger) return { error: fail('invalid_trigger_id') };
    if (trigger.used) return { error: fail('exchanged_trigger_id') };
    if (Date.now() - trigger.issuedAt > (this.opts.triggerTtlMs ?? 3000)) return { error: fail('expired_trigger_id') };
    trigger.used = true;
    return { trigger };
  }

  private viewArg(args: SlackArgs, kind: 'modal' | 'home'): { view: Json } | { error: Json } {
    const v = args.view;
    if (v === undefined) return { error: invalidArguments(['[ERROR] missing required field: view']) };
    if (!isObj(v)) return { error: invalidArguments(['[ERROR] failed to parse view: invalid JSON [json-pointer:/view]']) };
    const errors = viewErrors(v, kind);
    if (errors.length > 0) return { error: invalidArguments(errors) };
    if (typeof v.external_id === 'string' && v.external_id !== '') {
      const clash = [...this.viewStore.values()].find((s) => s.view.external_id === v.external_id);
      if (clash && kind === 'modal') return { error: fail('duplicate_external_id') };
    }
    return { view: v };
  }

  // ------------------------------------------------------------------ files

  private makeFile(f: { name: string; title: string; mimetype?: string; filetype?: string; size: number; user: string; teamId: string; id?: string; altText?: string }): SlackFile {
    const id = f.id ?? slackId('F');
    const type = fileTypeFor(f.name, f.mimetype);
    const team = this.team(f.teamId);
    const safe = encodeURIComponent(f.name);
    const now = Math.floor(Date.now() / 1000);
    const file: SlackFile = {
      id,
      created: now,
      timestamp: now,
      name: f.name,
      title: f.title,
      mimetype: type.mimetype,
      filetype: f.filetype ?? type.filetype,
      pretty_type: type.pretty,
      user: f.user,
      user_team: f.teamId,
      editable: false,
      size: f.size,
      mode: 'hosted',
      is_external: false,
      external_type: '',
      is_public: false,
      public_url_shared: false,
      display_as_bot: false,
      username: '',
      url_private: `${this.baseUrl}/files-pri/${f.teamId}-${id}/${safe}`,
      url_private_download: `${this.baseUrl}/files-pri/${f.teamId}-${id}/download/${safe}`,
      permalink: `https://${team.domain}.slack.com/files/${f.user}/${id}/${safe}`,
      permalink_public: `https://slack-files.com/${f.teamId}-${id}-${hex(5)}`,
      channels: [],
      groups: [],
      ims: [],
      has_rich_preview: false,
      file_access: 'visible',
    };
    if (f.altText) file.alt_txt = f.altText;
    return file;
  }

  private async handleUpload(req: IncomingMessage, res: ServerResponse, path: string, body: Buffer): Promise<void> {
    const key = path.slice('/upload/v1/'.length);
    const fileId = this.uploadKeys.get(key);
    const pending = fileId ? this.pendingUploads.get(fileId) : undefined;
    if (!pending || req.method !== 'POST') {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    const ct = req.headers['content-type'] ?? '';
    let data = body;
    if (ct.toLowerCase().startsWith('multipart/form-data')) {
      // WebClient sends the bytes as a multipart part (field `body`); curl users send `file=@...`.
      const form = await new Response(body, { headers: { 'content-type': ct } }).formData();
      const part = [...form.values()].find((v): v is File => typeof v !== 'string');
      data = part ? Buffer.from(await part.arrayBuffer()) : Buffer.alloc(0);
    }
    pending.data = data;
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(`OK - ${data.length}`);
  }

  private handleDownload(req: IncomingMessage, res: ServerResponse, url: URL): void {
    // /files-pri/<team>-<file>/[download/]<name>
    const m = /^\/files-pri\/([A-Z0-9]+)-([A-Z0-9]+)\//.exec(url.pathname);
    const stored = m?.[2] ? this.files.get(m[2]) : undefined;
    const bearer = req.headers.authorization ? /^Bearer\s+(\S+)/i.exec(req.headers.authorization)?.[1] : undefined;
    const auth = bearer ? this.tokens.get(bearer) : undefined;
    const authorized =
      stored !== undefined && auth !== undefined && !auth.revoked && auth.teamId === stored.teamId && auth.scopes.includes('files:read');
    const record = (status: number): void => {
      this.downloads.push({ fileId: m?.[2] ?? '', authorized, status, at: Date.now() });
    };
    if (!authorized) {
      if (this.opts.unauthenticatedFileDownloads === 'login-page') {
        record(302);
        res.writeHead(302, { location: `${this.baseUrl}/signin?redir=${encodeURIComponent(url.pathname)}` });
        res.end();
        return;
      }
      record(403);
      res.writeHead(403, { 'content-type': 'text/html; charset=utf-8' });
      res.end(loginPage(this.teamName));
      return;
    }
    if (this.opts.fileDownloads === 'cdn-redirect') return void this.redirectToCdn(res, stored, m?.[2] ?? '', record);
    const download = url.pathname.includes('/download/');
    record(200);
    res.writeHead(200, {
      'content-type': stored.file.mimetype,
      'content-length': String(stored.data.length),
      ...(download ? { 'content-disposition': `attachment; filename="${stored.file.name.replace(/"/g, '')}"` } : {}),
    });
    res.end(stored.data);
  }

  // ------------------------------------------------------------------ signed CDN downloads
  // `fileDownloads: 'cdn-redirect'`: Slack answers many authorized downloads with a 302 to a signed, expiring
  // URL on its file CDN, another host that needs no token. Here the CDN is a second port of this stand-in,
  // started on first use and closed with it; its hits land in `downloads` with `cdn` set.

  private cdn: Promise<{ origin: string; key: Buffer }> | undefined;

  private async redirectToCdn(res: ServerResponse, stored: StoredFile, fileId: string, record: (status: number) => void): Promise<void> {
    try {
      const { origin, key } = await (this.cdn ??= this.startCdn());
      const path = `/files-cdn/${stored.teamId}-${fileId}/${encodeURIComponent(stored.file.name)}`;
      const expires = Math.floor(Date.now() / 1000) + 300;
      record(302);
      res.writeHead(302, { location: `${origin}${path}?exp=${expires}&sig=${this.cdnSignature(key, path, expires)}` });
      res.end();
    } catch (err) {
      this.serverErrors.push(err instanceof Error ? err : new Error(String(err)));
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('fake slack error: CDN unavailable');
    }
  }

  private cdnSignature(key: Buffer, path: string, expires: number): string {
    return createHash('sha256').update(key).update(`${path}\n${expires}`).digest('hex');
  }

  private async startCdn(): Promise<{ origin: string; key: Buffer }> {
    const key = randomBytes(32);
    const cdn = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://cdn.invalid');
      const m = /^\/files-cdn\/([A-Z0-9]+)-([A-Z0-9]+)\//.exec(url.pathname);
      const stored = m?.[2] ? this.files.get(m[2]) : undefined;
      const expires = Number(url.searchParams.get('exp'));
      const valid =
        stored !== undefined && expires * 1000 >= Date.now() && url.searchParams.get('sig') === this.cdnSignature(key, url.pathname, expires);
      this.downloads.push({ fileId: m?.[2] ?? '', authorized: valid, status: valid ? 200 : 403, at: Date.now(), cdn: { authorizationHeader: req.headers.authorization !== undefined } });
      if (!valid) {
        res.writeHead(403, { 'content-type': 'text/plain' });
        res.end('signature invalid or expired');
        return;
      }
      res.writeHead(200, { 'content-type': stored.file.mimetype, 'content-length': String(stored.data.length) });
      res.end(stored.data);
    });
    await new Promise<void>((resolve, reject) => {
      cdn.once('error', reject);
      cdn.listen(0, '127.0.0.1', () => resolve());
    });
    this.server.once('close', () => {
      cdn.closeAllConnections();
      cdn.close();
    });
    return { origin: `http://127.0.0.1:${(cdn.address() as AddressInfo).port}`, key };
  }

  // ------------------------------------------------------------------ response_url

  private handleResponseUrl(req: IncomingMessage, res: ServerResponse, path: string, body: Buffer): void {
    const key = path.split('/').pop() ?? '';
    const entry = this.responseUrls.get(key);
    const reply = (status: number, text: string): void => {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(text);
    };
    if (!entry || req.method !== 'POST') {
      reply(404, 'invalid_url');
      return;
    }
    let parsed: unknown;
    const ct = (req.headers['content-type'] ?? '').toLowerCase();
    try {
      const raw = body.toString('utf8');
      parsed = ct.startsWith('application/x-www-form-urlencoded')
        ? (JSON.parse(new URLSearchParams(raw).get('payload') ?? '') as unknown)
        : (JSON.parse(raw) as unknown);
    } catch {
      parsed = undefined;
    }
    const post: ResponseUrlPost = { id: entry.id, body: isObj(parsed) ? parsed : {}, at: Date.now(), status: 200, url: entry.url };
    this.responses.push(post);
    const reject = (status: number, error: string): void => {
      post.status = status;
      reply(status, error);
    };
    if (!isObj(parsed)) return reject(400, 'invalid_payload');
    if (Date.now() - entry.createdAt > RESPONSE_URL_TTL_MS) return reject(404, 'expired_url');
    if (entry.uses >= (this.opts.responseUrlMaxUses ?? 5)) return reject(404, 'used_url');
    const isDelete = parsed.delete_original === true || parsed.delete_original === 'true';
    if (!isDelete) {
      const err = this.contentError(parsed, true);
      if (err) return reject(400, String(err.error));
    }
    entry.uses += 1;
    this.applyResponseUrlEffects(entry.ctx, parsed, isDelete);
    reply(200, 'ok');
  }

  private applyResponseUrlEffects(ctx: ResponseUrlContext, body: Json, isDelete: boolean): void {
    const channel = ctx.channelId;
    if (!channel) return;
    const ownEphemeral = ctx.ephemeralTs === undefined ? undefined : this.ephemeralList.find((e) => e.channel === channel && e.ts === ctx.ephemeralTs);
    if (ownEphemeral && (isDelete || body.replace_original === true || body.replace_original === 'true')) {
      // An ephemeral can't be edited through the Web API, but its own response_url replaces or removes it.
      if (isDelete) {
        this.ephemeralList = this.ephemeralList.filter((e) => e !== ownEphemeral);
        return;
      }
      ownEphemeral.text = str(body, 'text') ?? '';
      if (Array.isArray(body.blocks)) ownEphemeral.blocks = clone(body.blocks);
      else delete ownEphemeral.blocks;
      if (Array.isArray(body.attachments)) ownEphemeral.attachments = clone(body.attachments);
      else delete ownEphemeral.attachments;
      ownEphemeral.at = Date.now();
      return;
    }
    const original = ctx.messageTs ? this.findMessage(channel, ctx.messageTs) : undefined;
    if (isDelete) {
      if (original) this.removeMessage(channel, original.ts);
      return;
    }
    const replace = body.replace_original === true || body.replace_original === 'true';
    if (replace && original) {
      original.text = str(body, 'text') ?? '';
      if (Array.isArray(body.blocks)) original.blocks = clone(body.blocks);
      else delete original.blocks;
      if (Array.isArray(body.attachments)) original.attachments = clone(body.attachments);
      return;
    }
    const auth = this.tokens.get(this.botToken);
    if (body.response_type === 'in_channel' && auth) {
      const threadTs = str(body, 'thread_ts');
      this.insertMessage(this.botMessage(auth, channel, { ...body, thread_ts: threadTs }, this.nextTs()));
      return;
    }
    const ephemeral: SlackEphemeral = {
      channel,
      user: ctx.userId ?? '',
      ts: this.nextTs(),
      text: str(body, 'text') ?? '',
      via: 'response_url',
      at: Date.now(),
    };
    if (Array.isArray(body.blocks)) ephemeral.blocks = clone(body.blocks);
    if (Array.isArray(body.attachments)) ephemeral.attachments = clone(body.attachments);
    const threadTs = str(body, 'thread_ts');
    if (threadTs) ephemeral.thread_ts = threadTs;
    this.ephemeralList.push(ephemeral);
  }

  private removeMessage(channel: string, ts: string): void {
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

  // ------------------------------------------------------------------ OAuth

  private handleAuthorize(res: ServerResponse, url: URL): void {
    const redirectUri = url.searchParams.get('redirect_uri');
    const clientId = url.searchParams.get('client_id');
    if (!redirectUri || !clientId) {
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end('missing client_id or redirect_uri');
      return;
    }
    const split = (v: string | null): string[] => (v ? v.split(',').map((s) => s.trim()).filter(Boolean) : []);
    const grant = this.oauthCode({
      teamId: url.searchParams.get('team') ?? this.teamId,
      botScopes: split(url.searchParams.get('scope')),
      userScopes: split(url.searchParams.get('user_scope')),
      redirectUri,
    });
    const target = new URL(redirectUri);
    target.searchParams.set('code', grant.code);
    const state = url.searchParams.get('state');
    if (state !== null) target.searchParams.set('state', state);
    res.writeHead(302, { location: target.toString() });
    res.end();
  }

  private clientCredentials(args: SlackArgs, authorization: string | undefined): { id?: string; secret?: string } {
    const basic = authorization ? /^Basic\s+(\S+)/i.exec(authorization)?.[1] : undefined;
    if (basic) {
      const [id, secret] = Buffer.from(basic, 'base64').toString('utf8').split(':');
      return { id, secret };
    }
    return { id: str(args, 'client_id'), secret: str(args, 'client_secret') };
  }

  private clientError(args: SlackArgs, authorization: string | undefined): Json | undefined {
    const { id, secret } = this.clientCredentials(args, authorization);
    const expected = this.opts.oauthClient;
    if (!id || (expected && expected.clientId !== id)) return fail('invalid_client_id');
    if (!secret || (expected && expected.clientSecret !== secret)) return fail('bad_client_secret');
    return undefined;
  }

  private oauthV2Access(args: SlackArgs, authorization: string | undefined): Json {
    const clientErr = this.clientError(args, authorization);
    if (clientErr) return clientErr;
    if (str(args, 'grant_type') === 'refresh_token') return fail('invalid_refresh_token');
    const code = str(args, 'code');
    const grant = code ? this.oauthCodes.get(code) : undefined;
    if (!grant || Date.now() - grant.issuedAt > OAUTH_CODE_TTL_MS) return fail('invalid_code');
    if (grant.used) return fail('code_already_used');
    const redirectUri = str(args, 'redirect_uri');
    if (grant.redirectUri && redirectUri !== undefined && redirectUri !== grant.redirectUri) return fail('bad_redirect_uri');
    grant.used = true;
    if (!this.teams.has(grant.teamId)) {
      this.teams.set(grant.teamId, {
        id: grant.teamId,
        name: grant.teamName,
        domain: grant.teamName.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
        enterpriseId: grant.enterpriseId,
      });
    }
    this.tokens.set(grant.botToken, {
      token: grant.botToken,
      kind: 'bot',
      teamId: grant.teamId,
      userId: grant.botUserId,
      botId: grant.botId,
      scopes: [...grant.botScopes],
      revoked: false,
    });
    this.users.set(grant.botUserId, { id: grant.botUserId, name: 'campaign', real_name: 'Campaign', is_bot: true, team_id: grant.teamId });
    if (!this.users.has(grant.installerUserId)) {
      this.users.set(grant.installerUserId, { id: grant.installerUserId, name: 'installer', real_name: 'Installer', is_admin: true, team_id: grant.teamId });
    }
    const authedUser: Json = { id: grant.installerUserId };
    if (grant.userToken) {
      this.tokens.set(grant.userToken, {
        token: grant.userToken,
        kind: 'user',
        teamId: grant.teamId,
        userId: grant.installerUserId,
        scopes: [...grant.userScopes],
        revoked: false,
      });
      Object.assign(authedUser, { scope: grant.userScopes.join(','), access_token: grant.userToken, token_type: 'user' });
    }
    return {
      ok: true,
      app_id: this.appId,
      authed_user: authedUser,
      scope: grant.botScopes.join(','),
      token_type: 'bot',
      access_token: grant.botToken,
      bot_user_id: grant.botUserId,
      team: { id: grant.teamId, name: grant.teamName },
      enterprise: grant.enterpriseId ? { id: grant.enterpriseId, name: `Enterprise ${grant.enterpriseId}` } : null,
      is_enterprise_install: false,
    };
  }

  // ------------------------------------------------------------------ method table

  private buildHandlers(): Record<string, Handler> {
    return {
      'auth.test': (_args, auth) => {
        const team = this.team(auth.teamId);
        const user = this.users.get(auth.userId);
        const res: Json = {
          ok: true,
          url: `https://${team.domain}.slack.com/`,
          team: team.name,
          user: user?.name ?? 'campaign',
          team_id: team.id,
          user_id: auth.userId,
          is_enterprise_install: false,
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

      'apps.uninstall': (args, auth) => {
        const clientErr = this.clientError(args, undefined);
        if (clientErr) return clientErr;
        for (const t of this.tokens.values()) if (t.teamId === auth.teamId) t.revoked = true;
        return { ok: true };
      },

      'team.info': (_args, auth) => {
        const team = this.team(auth.teamId);
        return { ok: true, team: { id: team.id, name: team.name, domain: team.domain, email_domain: '', icon: {} } };
      },

      'chat.postMessage': (args, auth) => {
        const resolved = this.resolveChannel(str(args, 'channel'));
        if ('error' in resolved) return fail(resolved.error);
        const access = this.channelAccessError(resolved.channel, auth, true);
        if (access) return fail(access);
        const invalid = this.contentError(args, true);
        if (invalid) return invalid;
        const msg = this.botMessage(auth, resolved.channel.id, args, this.nextTs());
        this.insertMessage(msg);
        const out = this.apiMessage(msg);
        const botProfile = { id: auth.botId, app_id: this.appId, name: 'Campaign', icons: {}, deleted: false, updated: 1700000000, team_id: auth.teamId };
        return { ok: true, channel: resolved.channel.id, ts: msg.ts, message: { ...out, bot_profile: botProfile } };
      },

      'chat.update': (args, auth) => {
        const channel = str(args, 'channel');
        const ts = str(args, 'ts');
        if (!channel) return fail('channel_not_found');
        const resolved = this.resolveChannel(channel);
        if ('error' in resolved) return fail(resolved.error);
        const access = this.channelAccessError(resolved.channel, auth, true);
        if (access) return fail(access);
        const msg = ts ? this.findMessage(resolved.channel.id, ts) : undefined;
        if (!msg) return fail('message_not_found');
        if (msg.user !== auth.userId) return fail('cant_update_message');
        const invalid = this.contentError(args, false);
        if (invalid) return invalid;
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
        if (args.metadata !== undefined) msg.metadata = clone(args.metadata);
        msg.edited = { user: auth.userId, ts: this.nextTs() };
        if (msg.text === '' && !msg.blocks?.length && !msg.attachments?.length && !msg.files?.length) return fail('no_text');
        return { ok: true, channel: resolved.channel.id, ts: msg.ts, text: msg.text, message: this.apiMessage(msg) };
      },

      'chat.delete': (args, auth) => {
        const channel = str(args, 'channel') ?? '';
        const ts = str(args, 'ts');
        const resolved = this.resolveChannel(channel);
        if ('error' in resolved) return fail(resolved.error);
        const msg = ts ? this.findMessage(resolved.channel.id, ts) : undefined;
        if (!msg) return fail('message_not_found');
        if (msg.user !== auth.userId) return fail('cant_delete_message');
        this.removeMessage(resolved.channel.id, msg.ts);
        return { ok: true, channel: resolved.channel.id, ts: msg.ts };
      },

      'chat.postEphemeral': (args, auth) => {
        const resolved = this.resolveChannel(str(args, 'channel'));
        if ('error' in resolved) return fail(resolved.error);
        const access = this.channelAccessError(resolved.channel, auth, true);
        if (access) return fail(access);
        const user = str(args, 'user');
        if (!user) return fail('user_not_in_channel');
        const invalid = this.contentError(args, true);
        if (invalid) return invalid;
        const eph: SlackEphemeral = {
          channel: resolved.channel.id,
          user,
          ts: this.nextTs(),
          text: str(args, 'text') ?? '',
          via: 'chat.postEphemeral',
          at: Date.now(),
        };
        if (Array.isArray(args.blocks)) eph.blocks = clone(args.blocks);
        if (Array.isArray(args.attachments)) eph.attachments = clone(args.attachments);
        const threadTs = str(args, 'thread_ts');
        if (threadTs) eph.thread_ts = threadTs;
        this.ephemeralList.push(eph);
        return { ok: true, message_ts: eph.ts };
      },

      'chat.getPermalink': (args, auth) => {
        const channel = str(args, 'channel') ?? '';
        const ts = str(args, 'message_ts') ?? '';
        const msg = this.findMessage(channel, ts);
        if (!msg) return fail(this.channels.has(channel) || this.store.has(channel) ? 'message_not_found' : 'channel_not_found');
        const team = this.team(auth.teamId);
        let permalink = `https://${team.domain}.slack.com/archives/${channel}/p${ts.replace('.', '')}`;
        if (msg.thread_ts && msg.thread_ts !== msg.ts) permalink += `?thread_ts=${msg.thread_ts}&cid=${channel}`;
        return { ok: true, channel, permalink };
      },

      'reactions.add': (args, auth) => this.react(args, auth, true),
      'reactions.remove': (args, auth) => this.react(args, auth, false),

      'users.info': (args, auth) => {
        const id = str(args, 'user');
        const user = id ? this.users.get(id) : undefined;
        if (!user) return fail('user_not_found');
        return { ok: true, user: this.userObject(user, auth.teamId, bool(args, 'include_locale')) };
      },

      'conversations.info': (args, auth) => {
        const resolved = this.resolveChannel(str(args, 'channel'));
        if ('error' in resolved) return fail(resolved.error);
        const c = resolved.channel;
        if (c.is_member === false && (c.is_private || c.id.startsWith('G'))) return fail('channel_not_found');
        return { ok: true, channel: this.channelObject(c, auth) };
      },

      'conversations.open': (args) => {
        const users = (str(args, 'users') ?? '').split(',').filter(Boolean);
        const channelArg = str(args, 'channel');
        if (channelArg) {
          const resolved = this.resolveChannel(channelArg);
          if ('error' in resolved) return fail(resolved.error);
          return { ok: true, channel: { id: resolved.channel.id } };
        }
        if (users.length !== 1 || !users[0]) return fail(users.length === 0 ? 'users_list_not_supplied' : 'not_enough_users');
        if (!this.users.has(users[0])) return fail('user_not_found');
        const dm = this.dmWith(users[0]);
        return { ok: true, no_op: false, already_open: false, channel: { id: dm.id } };
      },

      'conversations.history': (args, auth) => {
        const resolved = this.resolveChannel(str(args, 'channel'));
        if ('error' in resolved) return fail(resolved.error);
        const access = this.channelAccessError(resolved.channel, auth, false);
        if (access) return fail(access);
        const oldest = str(args, 'oldest');
        const latest = str(args, 'latest');
        const inclusive = bool(args, 'inclusive');
        const top = (this.store.get(resolved.channel.id) ?? [])
          .filter((m) => !m.thread_ts || m.thread_ts === m.ts || m.reply_broadcast)
          .filter((m) => (oldest === undefined ? true : inclusive ? compareTs(m.ts, oldest) >= 0 : compareTs(m.ts, oldest) > 0))
          .filter((m) => (latest === undefined ? true : inclusive ? compareTs(m.ts, latest) <= 0 : compareTs(m.ts, latest) < 0))
          .slice()
          .reverse();
        return this.page(top, args, { pin_count: 0, channel_actions_ts: null, channel_actions_count: 0 });
      },

      'conversations.replies': (args, auth) => {
        const resolved = this.resolveChannel(str(args, 'channel'));
        if ('error' in resolved) return fail(resolved.error);
        const access = this.channelAccessError(resolved.channel, auth, false);
        if (access) return fail(access);
        const ts = str(args, 'ts') ?? '';
        const target = this.findMessage(resolved.channel.id, ts);
        if (!target) return fail('thread_not_found');
        const list = (this.store.get(resolved.channel.id) ?? []).filter(
          target.thread_ts && target.thread_ts !== target.ts ? (m) => m.ts === target.ts : (m) => m.ts === ts || m.thread_ts === ts,
        );
        return this.page(list, args, {});
      },

      'views.open': (args, auth) => {
        const v = this.viewArg(args, 'modal');
        if ('error' in v) return v.error;
        const t = this.exchangeTrigger(str(args, 'trigger_id') ?? str(args, 'interactivity_pointer'));
        if ('error' in t) return t.error;
        const view = this.makeView(v.view, auth.teamId, auth.botId ?? '');
        view.root_view_id = view.id;
        this.viewStore.set(view.id, { view, userId: t.trigger.userId, via: 'views.open', at: Date.now() });
        this.rootStacks.set(view.id, [view.id]);
        return { ok: true, view: clone(view) };
      },

      'views.push': (args, auth) => {
        const v = this.viewArg(args, 'modal');
        if ('error' in v) return v.error;
        const t = this.exchangeTrigger(str(args, 'trigger_id') ?? str(args, 'interactivity_pointer'));
        if ('error' in t) return t.error;
        const from = t.trigger.viewId ? this.viewStore.get(t.trigger.viewId) : undefined;
        const rootId = from?.view.root_view_id ?? from?.view.id;
        const stack = rootId ? (this.rootStacks.get(rootId) ?? [rootId]) : [];
        if (stack.length >= 3) return fail('push_limit_reached');
        const view = this.makeView(v.view, auth.teamId, auth.botId ?? '');
        view.root_view_id = rootId ?? view.id;
        view.previous_view_id = stack.at(-1) ?? null;
        stack.push(view.id);
        this.rootStacks.set(view.root_view_id, stack);
        this.viewStore.set(view.id, { view, userId: t.trigger.userId, via: 'views.push', at: Date.now() });
        return { ok: true, view: clone(view) };
      },

      'views.update': (args, auth) => {
        const viewId = str(args, 'view_id');
        const externalId = str(args, 'external_id');
        if (!viewId && !externalId) return invalidArguments(['[ERROR] either view_id or external_id is required']);
        const stored = viewId
          ? this.viewStore.get(viewId)
          : [...this.viewStore.values()].find((s) => s.view.external_id === externalId);
        if (!stored) return fail('not_found');
        const input = args.view;
        if (!isObj(input)) return invalidArguments(['[ERROR] missing required field: view']);
        const errors = viewErrors(input, stored.view.type === 'home' ? 'home' : 'modal');
        if (errors.length > 0) return invalidArguments(errors);
        const hash = str(args, 'hash');
        if (hash !== undefined && hash !== stored.view.hash) return fail('hash_conflict');
        stored.view = this.makeView(input, auth.teamId, auth.botId ?? '', stored.view);
        stored.at = Date.now();
        return { ok: true, view: clone(stored.view) };
      },

      'views.publish': (args, auth) => {
        const userId = str(args, 'user_id');
        if (!userId) return invalidArguments(['[ERROR] missing required field: user_id']);
        if (!this.users.has(userId) && !/^[UW][A-Z0-9]{8,}$/.test(userId)) return fail('user_not_found');
        const v = this.viewArg(args, 'home');
        if ('error' in v) return v.error;
        const existing = [...this.viewStore.values()].find((s) => s.via === 'views.publish' && s.userId === userId);
        const hash = str(args, 'hash');
        if (existing && hash !== undefined && hash !== existing.view.hash) return fail('hash_conflict');
        const view = this.makeView(v.view, auth.teamId, auth.botId ?? '', existing?.view);
        this.viewStore.set(view.id, { view, userId, via: 'views.publish', at: Date.now() });
        return { ok: true, view: clone(view) };
      },

      'files.info': (args, auth) => {
        const id = str(args, 'file');
        const stored = id ? this.files.get(id) : undefined;
        if (!stored || stored.teamId !== auth.teamId) return fail('file_not_found');
        return { ok: true, file: clone(stored.file), comments: [], response_metadata: { next_cursor: '' } };
      },

      'files.getUploadURLExternal': (args, auth) => {
        const filename = str(args, 'filename');
        const length = int(args, 'length');
        const messages: string[] = [];
        if (!filename) messages.push('[ERROR] missing required field: filename');
        if (length === undefined) messages.push('[ERROR] missing required field: length');
        if (messages.length > 0 || filename === undefined || length === undefined) return invalidArguments(messages);
        if (length <= 0) return fail('invalid_arguments');
        const fileId = slackId('F');
        const key = `Cw${hex(24)}`;
        this.pendingUploads.set(fileId, { fileId, filename, length, altText: str(args, 'alt_txt') ?? str(args, 'alt_text'), userId: auth.userId, teamId: auth.teamId });
        this.uploadKeys.set(key, fileId);
        return { ok: true, upload_url: `${this.baseUrl}/upload/v1/${key}`, file_id: fileId };
      },

      'files.completeUploadExternal': (args, auth) => {
        const parsedFiles = z.array(z.object({ id: z.string(), title: z.string().optional() })).min(1).safeParse(args.files);
        if (!parsedFiles.success) return invalidArguments(['[ERROR] missing or invalid required field: files']);
        const channelArg = str(args, 'channel_id') ?? str(args, 'channels');
        const threadTs = str(args, 'thread_ts');
        const initialComment = str(args, 'initial_comment');
        let channel: SlackChannel | undefined;
        if (channelArg) {
          const resolved = this.resolveChannel(channelArg);
          if ('error' in resolved) return fail(resolved.error);
          const access = this.channelAccessError(resolved.channel, auth, true);
          if (access) return fail(access);
          channel = resolved.channel;
        }
        const pendings: PendingUpload[] = [];
        for (const f of parsedFiles.data) {
          const pending = this.pendingUploads.get(f.id);
          if (!pending || pending.teamId !== auth.teamId || pending.data === undefined) return fail('file_not_found');
          pendings.push(pending);
        }
        const done: SlackFile[] = [];
        const at = Date.now();
        parsedFiles.data.forEach((f, i) => {
          const pending = pendings[i];
          if (!pending?.data) return;
          const file = this.makeFile({
            id: pending.fileId,
            name: pending.filename,
            title: f.title ?? pending.filename,
            size: pending.data.length,
            user: auth.userId,
            teamId: auth.teamId,
            altText: pending.altText,
          });
          if (channel) {
            const list = channel.id.startsWith('D') ? file.ims : channel.id.startsWith('G') || channel.is_private ? file.groups : file.channels;
            list.push(channel.id);
          }
          this.files.set(file.id, { file, data: pending.data, teamId: auth.teamId });
          this.pendingUploads.delete(pending.fileId);
          const upload: SlackUpload = { file_id: file.id, filename: file.name, title: file.title, data: pending.data, at };
          if (channel) upload.channel_id = channel.id;
          if (threadTs) upload.thread_ts = threadTs;
          if (initialComment !== undefined) upload.initial_comment = initialComment;
          this.uploads.push(upload);
          done.push(file);
        });
        if (channel) {
          // Sharing files into a conversation shows up as one message carrying them (with the comment as text).
          const msg = this.botMessage(auth, channel.id, { text: initialComment ?? '', thread_ts: threadTs, blocks: args.blocks }, this.nextTs());
          msg.files = clone(done);
          msg.upload = true;
          this.insertMessage(msg);
        }
        return { ok: true, files: clone(done) };
      },
    };
  }

  private react(args: SlackArgs, auth: TokenInfo, add: boolean): Json {
    const channel = str(args, 'channel');
    const ts = str(args, 'timestamp');
    const name = (str(args, 'name') ?? '').replace(/^:|:$/g, '');
    if (!name) return fail('invalid_name');
    if (!channel || !ts) return fail('no_item_specified');
    const resolved = this.resolveChannel(channel);
    if ('error' in resolved) return fail(resolved.error);
    const access = this.channelAccessError(resolved.channel, auth, false);
    if (access) return fail(access);
    const msg = this.findMessage(resolved.channel.id, ts);
    if (!msg) return fail('message_not_found');
    const reactions = msg.reactions ?? [];
    const existing = reactions.find((r) => r.name === name);
    if (add) {
      if (existing?.users.includes(auth.userId)) return fail('already_reacted');
      if (existing) {
        existing.users.push(auth.userId);
        existing.count += 1;
      } else {
        reactions.push({ name, users: [auth.userId], count: 1 });
      }
      msg.reactions = reactions;
      return { ok: true };
    }
    if (!existing?.users.includes(auth.userId)) return fail('no_reaction');
    existing.users = existing.users.filter((u) => u !== auth.userId);
    existing.count -= 1;
    msg.reactions = reactions.filter((r) => r.count > 0);
    if (msg.reactions.length === 0) delete msg.reactions;
    return { ok: true };
  }

  private page(list: SlackMessage[], args: SlackArgs, extra: Json): Json {
    const limit = Math.min(Math.max(int(args, 'limit') ?? 100, 1), 999);
    const cursor = str(args, 'cursor');
    const offset = cursor ? Number.parseInt(Buffer.from(cursor, 'base64').toString('utf8').replace(/^offset:/, ''), 10) || 0 : 0;
    const slice = list.slice(offset, offset + limit);
    const hasMore = offset + limit < list.length;
    return {
      ok: true,
      messages: slice.map((m) => this.apiMessage(m)),
      has_more: hasMore,
      ...extra,
      response_metadata: { next_cursor: hasMore ? Buffer.from(`offset:${offset + limit}`).toString('base64') : '' },
    };
  }

  private userObject(u: SlackUser, teamId: string, includeLocale: boolean): Json {
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
        ...(u.is_bot ? { bot_id: this.botId, api_app_id: this.appId, always_active: true } : {}),
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
    if (includeLocale) user.locale = 'en-US';
    return user;
  }

  private channelObject(c: SlackChannel, auth: TokenInfo): Json {
    const created = 1600000000;
    if (c.id.startsWith('D')) {
      return { id: c.id, created, is_im: true, is_org_shared: false, user: c.user ?? '', is_user_deleted: false, priority: 0 };
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
      is_shared: false,
      is_org_shared: false,
      is_pending_ext_shared: false,
      pending_shared: [],
      context_team_id: auth.teamId,
      updated: created * 1000,
      parent_conversation: null,
      creator: 'U0SOMEUSER1',
      is_ext_shared: false,
      shared_team_ids: [auth.teamId],
      is_member: c.is_member ?? true,
      topic: { value: c.topic ?? '', creator: '', last_set: 0 },
      purpose: { value: c.purpose ?? '', creator: '', last_set: 0 },
      previous_names: [],
      ...(c.num_members !== undefined ? { num_members: c.num_members } : {}),
    };
  }
}

function loginPage(teamName: string): string {
  return (
    `<!DOCTYPE html><html lang="en-US"><head><meta charset="utf-8"><title>Slack</title></head>` +
    `<body><div id="page"><h1>Sign in to ${teamName}</h1><form id="signin_form" action="/signin" method="post">` +
    `<input type="email" name="email"><input type="password" name="password"><button type="submit">Sign in</button>` +
    `</form></div></body></html>`
  );
}

/** Start a fake Slack on 127.0.0.1 and a free port. Close it with `close()`. */
export async function startFakeSlack(opts: FakeSlackOptions = {}): Promise<FakeSlack> {
  const fake = new FakeSlackServer(opts);
  await fake.listen();
  return fake;
}
