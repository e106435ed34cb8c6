/**
 * A fake Slack (Web API + files + response_urls + OAuth + Socket Mode) on a real HTTP port, for driving the
 * bot end-to-end with the real `@slack/web-api` WebClient and `@slack/bolt` App.
 *
 * What it copies from Slack, because our bot (or the Slack SDKs) depend on it:
 * - Web API transport: POST/GET `/api/<method>`, form-encoded args (JSON-typed args such as `blocks`/`view`
 *   arrive as JSON strings and are decoded here), or a JSON body with the token *only* in
 *   `Authorization: Bearer` (a JSON body without it is `not_authed`, like Slack). HTTP 200 with
 *   `{ok:false,error}` for every platform error; 429 + `Retry-After` + `{ok:false,error:'ratelimited'}`.
 * - Rate limits, on by default (rate-limits.ts, https://docs.slack.dev/apis/web-api/rate-limits):
 *   chat.postMessage takes a burst of 4 per workspace and channel, then 1 a second; the Tier 3 methods
 *   chat.update, chat.delete, reactions.add and reactions.remove a burst of 10 per workspace and method, then
 *   50 a minute. Beyond that: 429, which the refusal check reports like any refusal. A test that drives the
 *   stand-in itself at speed opts out with `unlimitedBecause: '<why>'`; `rateLimits` changes the numbers.
 * - Tokens: missing → `not_authed`, unknown → `invalid_auth`, revoked (apps.uninstall / auth.revoke) →
 *   `token_revoked`, past its life with `tokenRotation` → `token_expired` (oauth.v2.access `grant_type=
 *   refresh_token` grants a new one). An org-wide install's token (authorize with `enterprise` and no `team`)
 *   acts in every workspace of its org. Scopes are enforced (`missing_scope` with `needed`/`provided`) against the `scopes`
 *   option, so a call the app's manifest would not allow fails here as it would in Slack.
 * - The API families live beside this file: chat, views, files, reactions, users (and conversations),
 *   oauth, response-url, socket-mode, functions (workflow steps); Block Kit limits in block-kit.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { parseApiArgs } from './api-args.js';
import { addMessage, chatHandlers } from './chat.js';
import { addFile, deleteFile, fileHandlers, handleDownload, handleUpload, loginPage } from './files.js';
import { handleAuthorize, oauthCode, oauthHandlers, oauthV2Access } from './oauth.js';
import { reactionHandlers } from './reactions.js';
import { functionHandlers } from './functions.js';
import { handleResponseUrl, responseUrl } from './response-url.js';
import { InjectedFaults } from './faults.js';
import { imageDownloadErrors, payloadImages } from './images.js';
import { DefaultRateLimits } from './rate-limits.js';
import { RefusalLedger } from './refusals.js';
import { SocketModeHub } from './socket-mode.js';
import { RESTRICTION_REFUSALS, SlackState, type Handler } from './state.js';
import { judgeSuggestion } from './suggestions.js';
import type {
  ChannelRestriction,
  FakeSlack,
  FakeSlackOptions,
  LostAnswer,
  OAuthGrant,
  ResponseUrlContext,
  SentEnvelope,
  SlackCall,
  SlackChannel,
  SlackEphemeral,
  SlackFile,
  SlackMessage,
  SlackUser,
  SlackUserGroup,
  SlackView,
  SocketModeAck,
  SocketModeConnection,
  SocketModeEnvelopeInput,
  StoredView,
  SuggestionAnswer,
  TriggerContext,
} from './types.js';
import { neededScope } from './scopes.js';
import { tzInfo, userHandlers } from './users.js';
import { clone, compareTs, fail, isObj, readBody, sleep, str, type Json } from './util.js';
import { issueTrigger, pushView, replaceView, viewHandlers } from './views.js';

class FakeSlackServer extends SlackState implements FakeSlack {
  private readonly server: Server;
  private readonly sockets: SocketModeHub;
  private readonly handlers: Record<string, Handler>;
  private readonly faults: InjectedFaults;
  private readonly refusals = new RefusalLedger(this.calls, this.responses, 'Slack stand-in', this.suggestions);
  private readonly limits: DefaultRateLimits;

  constructor(opts: FakeSlackOptions) {
    super(opts);
    this.limits = new DefaultRateLimits(opts);
    this.faults = new InjectedFaults(opts.rateLimitClock);
    this.sockets = new SocketModeHub(this);
    this.server = createServer((req, res) => {
      this.route(req, res).catch((err: unknown) => {
        const error = err instanceof Error ? err : new Error(String(err));
        this.serverErrors.push(error);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`fake slack error: ${error.message}`);
      });
    });
    this.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.sockets.handleUpgrade(req, socket, head),
    );
    this.handlers = {
      ...userHandlers(this),
      ...oauthHandlers(this),
      ...chatHandlers(this),
      ...reactionHandlers(this),
      ...viewHandlers(this),
      ...fileHandlers(this),
      ...functionHandlers(this),
    };
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = this.server.address() as AddressInfo;
    this.baseUrl = `http://127.0.0.1:${port}`;
    this.apiUrl = `${this.baseUrl}/api/`;
    this.refusals.open();
  }

  expectRefusal(method: string, error?: string): void {
    this.refusals.expect(method, error);
  }

  judgeSuggestion(
    request: { viewId?: string; blockId: string; actionId: string; value: string },
    answer: { status: number; json?: unknown; ms: number; timedOut: boolean },
  ): SuggestionAnswer {
    const judged = judgeSuggestion(request, answer);
    this.suggestions.push(judged);
    return judged;
  }

  // ------------------------------------------------------------------ public helpers

  get socketConnections(): SocketModeConnection[] {
    return this.sockets.connections;
  }

  get socketEnvelopes(): SentEnvelope[] {
    return this.sockets.envelopes;
  }

  get socketAcks(): SocketModeAck[] {
    return this.sockets.acks;
  }

  responseUrl(id?: string, ctx: ResponseUrlContext = {}): string {
    return responseUrl(this, id, ctx);
  }

  async waitFor<T>(
    pick: () => T | undefined | null | false | Promise<T | undefined | null | false>,
    timeoutMs = 15_000,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let lastError: unknown;
    for (;;) {
      let value: T | undefined | null | false;
      try {
        value = await pick();
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

  addUserGroup(group: SlackUserGroup): void {
    this.userGroups.set(group.id, clone(group));
  }

  userGroup(id: string): SlackUserGroup | undefined {
    const g = this.userGroups.get(id);
    return g ? clone(g) : undefined;
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

  replaceView(
    viewId: string,
    input: Record<string, unknown>,
  ): { ok: true; view: SlackView } | { ok: false; errors: string[] } {
    return replaceView(this, viewId, input);
  }

  pushView(
    fromViewId: string,
    input: Record<string, unknown>,
  ): { ok: true; view: SlackView } | { ok: false; errors: string[] } {
    return pushView(this, fromViewId, input);
  }

  addMessage(m: Parameters<FakeSlack['addMessage']>[0]): SlackMessage {
    return addMessage(this, m);
  }

  addFile(f: Parameters<FakeSlack['addFile']>[0]): SlackFile {
    return addFile(this, f);
  }

  deleteFile(id: string): boolean {
    return deleteFile(this, id);
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
    return issueTrigger(this, ctx);
  }

  oauthCode(grant: Partial<Omit<OAuthGrant, 'code'>> & { code?: string } = {}): OAuthGrant {
    return oauthCode(this, grant);
  }

  rateLimit(rule: { method?: string; times?: number; retryAfterSec: number; everyOther?: boolean }): void {
    this.faults.rateLimit(rule);
  }

  channelRateLimit(perSecond: number): void {
    this.faults.channelRateLimit(perSecond);
  }

  workspacePostLimit(perMinute: number): void {
    this.faults.workspacePostLimit(perMinute);
  }

  loseAnswer(method: string, times?: number, how?: LostAnswer): void {
    this.faults.loseAnswer(method, times, how);
  }

  loseAnswers(rule: { method?: string; share: number; seed?: number; how?: LostAnswer }): void {
    this.faults.loseAnswers(rule);
  }

  failMethod(method: string, error: string, times?: number): void {
    this.faults.failMethod(method, error, times);
  }

  failMethodFor(method: string, error: string, ms: number, teamId?: string): void {
    this.faults.failMethodFor(method, error, ms, teamId);
  }

  setDown(down: boolean): void {
    this.faults.down = down;
  }

  restrictChannel(channel: string, kind: ChannelRestriction): void {
    this.restrictions.set(this.knownChannel(channel).id, kind);
  }

  archiveChannel(channel: string): void {
    const known = this.knownChannel(channel);
    known.is_archived = true;
    this.restrictions.set(known.id, 'archived');
  }

  unrestrictChannel(channel: string): void {
    const id = this.channelKey(channel);
    if (this.restrictions.get(id) === 'archived') {
      const known = this.channels.get(id);
      if (known) known.is_archived = false;
    }
    this.restrictions.delete(id);
  }

  clearFaults(): void {
    this.faults.reset();
    for (const id of [...this.restrictions.keys()]) this.unrestrictChannel(id);
  }

  limitHistory(on: boolean): void {
    this.historyLimited = on;
  }

  onMetadataPosted(listener: (event: Record<string, unknown>) => void): void {
    this.metadataEvents.listen(listener);
  }

  waitForSocketConnection(timeoutMs = 5000): Promise<SocketModeConnection> {
    return this.sockets.waitForConnection(timeoutMs);
  }

  pushEnvelope(input: SocketModeEnvelopeInput, opts: { timeoutMs?: number } = {}): Promise<SocketModeAck> {
    return this.sockets.pushEnvelope(input, opts);
  }

  disconnectSockets(reason = 'refresh_requested', opts: { closeAfterMs?: number } = {}): number {
    return this.sockets.disconnect(reason, opts);
  }

  reset(): void {
    this.calls.length = 0;
    this.responses.length = 0;
    this.suggestions.length = 0;
    this.refusals.reset();
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
    this.functionRuns.clear();
    for (const id of [...this.files.keys()]) if (!this.seededFileIds.has(id)) this.files.delete(id);
    this.deletedFileIds.clear();
    this.clearFaults();
    this.limits.reset();
    this.historyLimited = this.opts.historyLimits2025 ?? false;
    this.sockets.reset();
  }

  async close(): Promise<void> {
    // Upgraded sockets are no longer the HTTP server's: the hub closes them with a proper handshake.
    // Stop the bot first: a running SDK would try to reconnect to a fake that is gone.
    this.refusals.close();
    await this.sockets.close();
    await this.fileCdn.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.baseUrl);
    const body = await readBody(req);
    const path = url.pathname;
    if (path.startsWith('/api/')) return this.handleApi(req, res, url, body);
    if (path.startsWith('/upload/v1/')) return handleUpload(this, req, res, path, body);
    if (path.startsWith('/files-pri/')) return handleDownload(this, req, res, url);
    if (path.startsWith('/commands/')) return handleResponseUrl(this, req, res, path, body);
    if (path === '/oauth/v2/authorize') return handleAuthorize(this, res, url);
    if (path === '/signin') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(loginPage(this.teamName));
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  }

  private async handleApi(req: IncomingMessage, res: ServerResponse, url: URL, body: Buffer): Promise<void> {
    const method = decodeURIComponent(url.pathname.slice('/api/'.length));
    const { args, encoding, invalidJson } = await parseApiArgs(req, url, body);
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
        // Slack's nudge for JSON bodies without a charset (beside any warning of the method's own).
        const meta = isObj(response.response_metadata) ? response.response_metadata : {};
        const warnings = ['missing_charset', ...(Array.isArray(meta.warnings) ? (meta.warnings as unknown[]) : [])];
        meta.warnings = warnings;
        response.warning = warnings.join(',');
        response.response_metadata = meta;
      }
      call.status = status;
      call.response = response;
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(JSON.stringify(response));
    };

    // Injected faults first: a test that asks for a 429 or an error gets it whatever the arguments.
    if (this.faults.down) {
      call.injected = true;
      call.status = 503;
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('Service Unavailable');
      return;
    }
    const rate = this.faults.rateLimited(method);
    if (rate) {
      call.injected = true;
      send(429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(rate.retryAfterSec) });
      return;
    }
    const failure = this.faults.failure(method, token === undefined ? undefined : this.tokens.get(token)?.teamId);
    if (failure) {
      call.injected = true;
      send(200, fail(failure));
      return;
    }
    if (invalidJson) {
      send(200, fail('invalid_json'));
      return;
    }

    if (method === 'oauth.v2.access') {
      send(200, oauthV2Access(this, args, req.headers.authorization));
      return;
    }
    if (method === 'apps.connections.open') {
      const opened = this.sockets.open(token);
      send(
        200,
        opened,
        opened.ok === true
          ? { 'x-oauth-scopes': 'connections:write', 'x-accepted-oauth-scopes': 'connections:write' }
          : {},
      );
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
    if (auth.expiresAt !== undefined && this.expiryNow() >= auth.expiresAt) {
      send(200, fail('token_expired'));
      return;
    }
    const needed = neededScope(method, args, auth.scopes);
    const scopeHeaders: Record<string, string> = { 'x-oauth-scopes': auth.scopes.join(',') };
    if (needed) scopeHeaders['x-accepted-oauth-scopes'] = needed;
    if (needed && !auth.scopes.includes(needed)) {
      send(200, fail('missing_scope', { needed, provided: auth.scopes.join(',') }), scopeHeaders);
      return;
    }
    if (method === 'chat.postMessage') {
      const retryAfter =
        this.faults.channelRetryAfter(str(args, 'channel') ?? '') ?? this.faults.workspaceRetryAfter(auth.teamId);
      if (retryAfter !== undefined) {
        call.injected = true;
        send(429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(retryAfter) });
        return;
      }
    }
    // Slack's own limits (not a fault: the refusal ledger reports these).
    const limited =
      this.limits.retryAfter(method, auth.teamId, () => this.channelKey(str(args, 'channel'))) ??
      (this.historyLimited ? this.limits.historyRetryAfter(method, auth.teamId) : undefined);
    if (limited !== undefined) {
      send(429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(limited) });
      return;
    }
    const images = IMAGE_CHECKED[method];
    if (images) {
      const errors = await imageDownloadErrors(payloadImages(args, images.kind));
      if (errors.length > 0) {
        send(200, fail(images.error, { response_metadata: { messages: errors } }), scopeHeaders);
        return;
      }
    }
    const response = handler(args, auth);
    if (method === 'chat.postMessage' && response.ok === true && typeof response.channel === 'string')
      this.faults.posted(response.channel, auth.teamId);
    // A channel the test restricted or archived refuses as Slack would: that refusal is the test's doing.
    if (response.ok === false && RESTRICTION_REFUSALS.has(String(response.error))) {
      const channel = this.channelKey(str(args, 'channel') ?? str(args, 'channel_id'));
      if (this.restrictions.has(channel)) call.injected = true;
    }
    const lost = this.faults.answerLost(method);
    if (lost) {
      // Carried out, but the answer never reaches the caller.
      call.injected = true;
      call.lost = lost;
      call.response = response;
      if (lost === 'connection-dropped') {
        call.status = 0;
        res.socket?.destroy();
        return;
      }
      call.status = 503;
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('upstream request timeout');
      return;
    }
    send(200, response, scopeHeaders);
  }

  /** The channel a test names for a fault, made known if it was not (as any well-formed id is to Slack calls). */
  private knownChannel(raw: string): SlackChannel {
    const resolved = this.resolveChannel(raw);
    if ('error' in resolved) throw new Error(`no channel ${raw} in the Slack stand-in (add it with addChannel)`);
    return resolved.channel;
  }

  /** The channel a `channel` argument names, without creating it: a user id is the DM with that user. */
  private channelKey(raw: string | undefined): string {
    if (!raw) return '';
    if (raw.startsWith('#')) return [...this.channels.values()].find((c) => c.name === raw.slice(1))?.id ?? raw;
    if (/^[UW][A-Z0-9]{2,}$/.test(raw)) return `D${raw.slice(1)}`;
    return raw;
  }
}

/** Methods whose image URLs Slack downloads before accepting the payload, and the error it answers. */
const IMAGE_CHECKED: Record<string, { kind: 'message' | 'view'; error: string }> = {
  'chat.postMessage': { kind: 'message', error: 'invalid_blocks' },
  'chat.postEphemeral': { kind: 'message', error: 'invalid_blocks' },
  'chat.update': { kind: 'message', error: 'invalid_blocks' },
  'views.open': { kind: 'view', error: 'invalid_arguments' },
  'views.push': { kind: 'view', error: 'invalid_arguments' },
  'views.update': { kind: 'view', error: 'invalid_arguments' },
  'views.publish': { kind: 'view', error: 'invalid_arguments' },
};

/** Start a fake Slack on 127.0.0.1 and a free port. Close it with `close()`. */
export async function startFakeSlack(opts: FakeSlackOptions): Promise<FakeSlack> {
  const fake = new FakeSlackServer(opts);
  await fake.listen();
  return fake;
}
