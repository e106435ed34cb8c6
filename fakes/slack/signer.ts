/**
 * Sends requests to the bot the way Slack does: same content types (Bolt compares them exactly), same
 * payload shapes, signed with `v0=HMAC-SHA256(signingSecret, "v0:{timestamp}:{rawBody}")` in
 * `X-Slack-Signature` + `X-Slack-Request-Timestamp`, over real HTTP (undici).
 *
 * With `fake` given, payloads are tied to the fake Slack like the real thing ties them to the workspace:
 * response_urls and trigger_ids are issued by the fake (so views.open with them works for 3 s, once),
 * block actions carry the stored message / view the bot really posted (with the block_id and element the
 * action_id lives in), view submissions default to the latest view the bot opened with that callback_id,
 * and message events are stored so the bot can react / reply / read the thread.
 */
import { randomBytes } from 'node:crypto';
import { postAsSlack, SLACK_USER_AGENT, slackSignature, type SignedResult } from './signed-post.js';
import type { FakeSlack, SlackFile, SlackMessage, SlackView, SuggestionAnswer } from './types.js';
import { findAction, inputSlots } from './signer-blocks.js';

export { slackSignature, type SignedResult } from './signed-post.js';

export interface SlackSignerOptions {
  signingSecret: string;
  /** The bot's endpoint, e.g. `http://127.0.0.1:PORT/slack/events`. */
  url: string;
  teamId?: string;
  teamDomain?: string;
  apiAppId?: string;
  /** The (deprecated) verification token Slack still puts in payloads. */
  verificationToken?: string;
  fake?: FakeSlack;
}

type Json = Record<string, unknown>;

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function hex(n: number): string {
  return randomBytes(n).toString('hex');
}

export class SlackSigner {
  private readonly opts: SlackSignerOptions;
  readonly teamId: string;
  readonly teamDomain: string;
  readonly apiAppId: string;
  readonly verificationToken: string;

  constructor(opts: SlackSignerOptions) {
    this.opts = opts;
    this.teamId = opts.teamId ?? opts.fake?.teamId ?? 'T0CAMPAIGN1';
    this.teamDomain = opts.teamDomain ?? opts.fake?.teamDomain ?? 'campaign-test';
    this.apiAppId = opts.apiAppId ?? opts.fake?.appId ?? 'A0CAMPAIGN01';
    this.verificationToken = opts.verificationToken ?? 'gIkuvaNzQIHg97ATvDxqgjtO';
  }

  // ------------------------------------------------------------------ payloads

  /** A slash command, form-encoded like Slack (`command` defaults to `/campaign`). */
  command(p: {
    text: string;
    userId?: string;
    userName?: string;
    channelId?: string;
    channelName?: string;
    command?: string;
    triggerId?: string;
    responseUrlId?: string;
    teamId?: string;
    /** The workspace's Enterprise Grid org; `orgWide`: the app is installed for the whole org. */
    enterprise?: { id: string; orgWide: boolean };
  }): Promise<SignedResult> {
    const userId = p.userId ?? 'U0SOMEUSER1';
    const channelId = p.channelId ?? 'C0GENERAL01';
    const form = new URLSearchParams({
      token: this.verificationToken,
      team_id: p.teamId ?? this.teamId,
      team_domain: this.teamDomain,
      channel_id: channelId,
      channel_name: p.channelName ?? this.channelName(channelId),
      user_id: userId,
      user_name: p.userName ?? this.userName(userId),
      command: p.command ?? '/campaign',
      text: p.text,
      api_app_id: this.apiAppId,
      ...(p.enterprise ? { enterprise_id: p.enterprise.id, enterprise_name: `Enterprise ${p.enterprise.id}` } : {}),
      is_enterprise_install: p.enterprise?.orgWide ? 'true' : 'false',
      response_url: this.makeResponseUrl(p.responseUrlId, { channelId, userId }),
      trigger_id: this.makeTrigger({ userId, triggerId: p.triggerId }),
    });
    return this.sendForm(form.toString());
  }

  /**
   * A `block_actions` interaction. From a message (default: `channelId` + `messageTs`) or, with `view` /
   * `viewId`, from a modal or the home tab. The action's type/text/block_id come from the stored blocks
   * when the fake has them; `action` overrides fields (e.g. `{ type: 'static_select', selected_option }`).
   */
  blockAction(p: {
    actionId: string;
    value?: string;
    blockId?: string;
    userId?: string;
    channelId?: string;
    messageTs?: string;
    threadTs?: string;
    responseUrlId?: string;
    view?: object;
    viewId?: string;
    action?: Json;
    /** `state.values` (inputs' current values). */
    state?: Record<string, Record<string, unknown>>;
    /** The message is ephemeral (Slack then sends no `message`, only the container). */
    ephemeral?: boolean;
    triggerId?: string;
  }): Promise<SignedResult> {
    const userId = p.userId ?? 'U0SOMEUSER1';
    const fake = this.opts.fake;
    const viewId = p.viewId ?? (isObj(p.view) && typeof p.view.id === 'string' ? p.view.id : undefined);
    const storedView = viewId ? fake?.view(viewId)?.view : undefined;
    const fromView = p.view !== undefined || viewId !== undefined;
    const view: Json | undefined = fromView
      ? { ...(storedView ?? this.syntheticView(viewId)), ...(isObj(p.view) ? p.view : {}) }
      : undefined;
    if (view && p.state) view.state = { values: p.state };

    const channelId = p.channelId ?? (fromView ? undefined : 'C0GENERAL01');
    const messageTs = p.messageTs;
    const stored: SlackMessage | undefined = channelId && messageTs ? fake?.message(channelId, messageTs) : undefined;
    const blocks = view ? view.blocks : stored?.blocks;
    const found = findAction(blocks, p.actionId);
    const element = found?.element ?? {};
    const action: Json = {
      type: typeof element.type === 'string' ? element.type : 'button',
      action_id: p.actionId,
      block_id: p.blockId ?? found?.blockId ?? hex(3),
      action_ts: this.actionTs(),
    };
    if (element.text !== undefined) action.text = element.text;
    else if (action.type === 'button') action.text = { type: 'plain_text', text: p.actionId, emoji: true };
    const value = p.value ?? (typeof element.value === 'string' ? element.value : undefined);
    if (value !== undefined) action.value = value;
    if (element.style !== undefined) action.style = element.style;
    Object.assign(action, p.action ?? {});

    const payload: Json = {
      type: 'block_actions',
      user: { id: userId, username: this.userName(userId), name: this.userName(userId), team_id: this.teamId },
      api_app_id: this.apiAppId,
      token: this.verificationToken,
      trigger_id: this.makeTrigger({
        userId,
        viewId: typeof view?.id === 'string' ? view.id : undefined,
        triggerId: p.triggerId,
      }),
      team: { id: this.teamId, domain: this.teamDomain },
      enterprise: null,
      is_enterprise_install: false,
      actions: [action],
    };
    if (view) {
      payload.container = { type: 'view', view_id: view.id };
      payload.view = view;
      payload.state = view.state ?? { values: {} };
    } else if (channelId) {
      const ts = messageTs ?? this.actionTs();
      payload.container = {
        type: 'message',
        message_ts: ts,
        channel_id: channelId,
        is_ephemeral: p.ephemeral ?? false,
        ...(p.threadTs ? { thread_ts: p.threadTs } : {}),
      };
      payload.channel = { id: channelId, name: this.channelName(channelId) };
      if (!p.ephemeral) {
        const message: Json = stored
          ? (({ channel: _c, ...rest }) => rest)(stored)
          : { type: 'message', ts, text: '', user: fake?.botUserId ?? 'U0CAMPAIGNBOT', team: this.teamId };
        if (p.threadTs && message.thread_ts === undefined) message.thread_ts = p.threadTs;
        payload.message = message;
      }
      payload.state = { values: p.state ?? {} };
      payload.response_url = this.makeResponseUrl(p.responseUrlId, {
        channelId,
        ...(p.ephemeral ? (messageTs ? { ephemeralTs: messageTs } : {}) : { messageTs: ts }),
        userId,
      });
    }
    return this.sendPayload(payload);
  }

  /**
   * A `view_submission`. `values` is Slack's `state.values` (`{ [block_id]: { [action_id]: { type, value… } } }`).
   * Without `viewId`, the latest view the bot opened with `callbackId` (when the fake has one). Throws if a
   * value names an input the stored view does not have — Slack can only submit what the modal shows.
   */
  async viewSubmission(p: {
    callbackId: string;
    values: Record<string, Record<string, unknown>>;
    privateMetadata?: string;
    userId?: string;
    viewId?: string;
    responseUrls?: { block_id: string; action_id: string; channel_id: string; response_url: string }[];
  }): Promise<SignedResult> {
    const userId = p.userId ?? 'U0SOMEUSER1';
    const fake = this.opts.fake;
    const stored = p.viewId ? fake?.view(p.viewId)?.view : fake?.views(p.callbackId).at(-1)?.view;
    if (stored) {
      const slots = inputSlots(stored);
      for (const [blockId, actions] of Object.entries(p.values)) {
        for (const actionId of Object.keys(actions)) {
          if (!slots.has(`${blockId}/${actionId}`)) {
            throw new Error(
              `viewSubmission: view ${stored.id} (${stored.callback_id}) has no input ${blockId}/${actionId}; it has: ${[...slots].join(', ') || 'none'}`,
            );
          }
        }
      }
    }
    const base = stored ?? this.syntheticView(p.viewId);
    const view: Json = {
      ...base,
      callback_id: p.callbackId,
      private_metadata: p.privateMetadata ?? base.private_metadata,
      state: { values: p.values },
    };
    const payload: Json = {
      type: 'view_submission',
      team: { id: this.teamId, domain: this.teamDomain },
      user: { id: userId, username: this.userName(userId), name: this.userName(userId), team_id: this.teamId },
      api_app_id: this.apiAppId,
      token: this.verificationToken,
      trigger_id: this.makeTrigger({ userId, viewId: typeof view.id === 'string' ? view.id : undefined }),
      view,
      response_urls: p.responseUrls ?? [],
      is_enterprise_install: false,
      enterprise: null,
    };
    return this.sendPayload(payload);
  }

  /**
   * A `block_suggestion`: the user typed `value` into a menu with an external data source in a view the bot
   * opened (the latest with `callbackId`, or `viewId`). Like Slack, it asks only for an `external_select` that
   * view has at `blockId` (throws otherwise) and only once `min_query_length` characters are typed (default 3;
   * throws before). Resolves with how Slack took the answer (the fake's `judgeSuggestion`).
   */
  async blockSuggestion(p: {
    blockId: string;
    value: string;
    actionId?: string;
    callbackId?: string;
    viewId?: string;
    userId?: string;
  }): Promise<SuggestionAnswer & { raw: SignedResult }> {
    const fake = this.opts.fake;
    if (!fake) throw new Error('blockSuggestion needs the fake Slack (the views the bot opened)');
    const stored = p.viewId ? fake.view(p.viewId)?.view : fake.views(p.callbackId).at(-1)?.view;
    if (!stored) throw new Error(`blockSuggestion: no view ${p.viewId ?? `with callback_id ${p.callbackId}`}`);
    const block = stored.blocks.find((b) => isObj(b) && b.block_id === p.blockId);
    const element = isObj(block) && isObj(block.element) ? block.element : undefined;
    const type = typeof element?.type === 'string' ? element.type : '';
    const actionId = p.actionId ?? (typeof element?.action_id === 'string' ? element.action_id : '');
    if (!element || !type.endsWith('external_select') || element.action_id !== actionId) {
      throw new Error(`blockSuggestion: view ${stored.id} has no external select at ${p.blockId}/${actionId}`);
    }
    const least = typeof element.min_query_length === 'number' ? element.min_query_length : 3;
    if (p.value.length < least) {
      throw new Error(`blockSuggestion: Slack asks only once ${least} characters are typed (got "${p.value}")`);
    }
    const userId = p.userId ?? 'U0SOMEUSER1';
    const raw = await this.sendPayload({
      type: 'block_suggestion',
      user: { id: userId, username: this.userName(userId), name: this.userName(userId), team_id: this.teamId },
      container: { type: 'view', view_id: stored.id },
      api_app_id: this.apiAppId,
      token: this.verificationToken,
      action_id: actionId,
      block_id: p.blockId,
      value: p.value,
      team: { id: this.teamId, domain: this.teamDomain },
      enterprise: null,
      is_enterprise_install: false,
      view: stored,
    });
    const request = { viewId: stored.id, blockId: p.blockId, actionId, value: p.value };
    return { ...fake.judgeSuggestion(request, raw), raw };
  }

  /** A `view_closed` (sent only when the view had `notify_on_close: true`). */
  viewClosed(p: { viewId?: string; callbackId?: string; userId?: string; isCleared?: boolean }): Promise<SignedResult> {
    const userId = p.userId ?? 'U0SOMEUSER1';
    const fake = this.opts.fake;
    const stored = p.viewId
      ? fake?.view(p.viewId)?.view
      : p.callbackId
        ? fake?.views(p.callbackId).at(-1)?.view
        : undefined;
    const view = stored ?? { ...this.syntheticView(p.viewId), callback_id: p.callbackId ?? '' };
    return this.sendPayload({
      type: 'view_closed',
      team: { id: this.teamId, domain: this.teamDomain },
      user: { id: userId, username: this.userName(userId), name: this.userName(userId), team_id: this.teamId },
      api_app_id: this.apiAppId,
      token: this.verificationToken,
      view,
      is_cleared: p.isCleared ?? false,
      is_enterprise_install: false,
      enterprise: null,
    });
  }

  /** A global (`shortcut`) or message (`message_action`) shortcut. */
  shortcut(p: {
    callbackId: string;
    type: 'message_action' | 'shortcut';
    message?: object;
    channelId?: string;
    userId?: string;
    responseUrlId?: string;
    triggerId?: string;
  }): Promise<SignedResult> {
    const userId = p.userId ?? 'U0SOMEUSER1';
    const base: Json = {
      type: p.type,
      token: this.verificationToken,
      action_ts: this.actionTs(),
      team: { id: this.teamId, domain: this.teamDomain },
      user: { id: userId, username: this.userName(userId), name: this.userName(userId), team_id: this.teamId },
      is_enterprise_install: false,
      enterprise: null,
      callback_id: p.callbackId,
      trigger_id: this.makeTrigger({ userId, triggerId: p.triggerId }),
    };
    if (p.type === 'message_action') {
      const channelId = p.channelId ?? 'C0GENERAL01';
      const given = isObj(p.message) ? p.message : {};
      const ts = typeof given.ts === 'string' ? given.ts : undefined;
      const stored = ts ? this.opts.fake?.message(channelId, ts) : undefined;
      const storedJson: Json = stored ? (({ channel: _c, ...rest }) => rest)(stored) : {};
      const message: Json = {
        type: 'message',
        text: '',
        user: 'U0SOMEUSER1',
        ts: ts ?? this.actionTs(),
        ...storedJson,
        ...given,
      };
      Object.assign(base, {
        channel: { id: channelId, name: this.channelName(channelId) },
        message_ts: message.ts,
        message,
        response_url: this.makeResponseUrl(p.responseUrlId, {
          channelId,
          userId,
          messageTs: typeof message.ts === 'string' ? message.ts : undefined,
        }),
      });
    }
    return this.sendPayload(base);
  }

  /**
   * An Events API `event_callback` (JSON). Missing `event_ts` (and `ts` for message-like events) are
   * filled in; with a fake, message/app_mention events are stored there (the message now exists in Slack).
   * Retries add `X-Slack-Retry-Num` / `X-Slack-Retry-Reason`; reuse `eventId` to make them the same event.
   */
  event(
    event: Record<string, unknown>,
    opts: {
      eventId?: string;
      retryNum?: number;
      retryReason?: string;
      teamId?: string;
      /** The workspace's Enterprise Grid org (Slack then names it in the envelope and its authorizations). */
      enterpriseId?: string;
      /** The app is installed for the whole org: the authorization names no team. */
      orgWide?: boolean;
    } = {},
  ): Promise<SignedResult> {
    const fake = this.opts.fake;
    const ev: Json = { ...event };
    const messageLike = ev.type === 'message' || ev.type === 'app_mention';
    if (messageLike && typeof ev.ts !== 'string') ev.ts = fake?.nextTs() ?? this.actionTs();
    if (typeof ev.event_ts !== 'string')
      ev.event_ts = typeof ev.ts === 'string' ? ev.ts : (fake?.nextTs() ?? this.actionTs());
    if (messageLike) {
      if (ev.team === undefined && ev.bot_id === undefined) ev.team = opts.teamId ?? this.teamId;
      if (ev.type === 'message' && ev.channel_type === undefined && typeof ev.channel === 'string') {
        ev.channel_type = ev.channel.startsWith('D') ? 'im' : ev.channel.startsWith('G') ? 'group' : 'channel';
      }
      if (
        fake &&
        typeof ev.channel === 'string' &&
        typeof ev.thread_ts === 'string' &&
        ev.thread_ts !== ev.ts &&
        ev.parent_user_id === undefined
      ) {
        const parentUser = fake.message(ev.channel, ev.thread_ts)?.user;
        if (parentUser) ev.parent_user_id = parentUser;
      }
      if (
        fake &&
        typeof ev.channel === 'string' &&
        typeof ev.ts === 'string' &&
        (ev.subtype === undefined || ev.subtype === 'file_share' || ev.subtype === 'thread_broadcast')
      ) {
        fake.addMessage({
          channel: ev.channel,
          ts: ev.ts,
          text: typeof ev.text === 'string' ? ev.text : '',
          user: typeof ev.user === 'string' ? ev.user : undefined,
          thread_ts: typeof ev.thread_ts === 'string' ? ev.thread_ts : undefined,
          blocks: Array.isArray(ev.blocks) ? (ev.blocks as unknown[]) : undefined,
          bot_id: typeof ev.bot_id === 'string' ? ev.bot_id : undefined,
          subtype: typeof ev.subtype === 'string' ? ev.subtype : undefined,
          files: Array.isArray(ev.files) ? (ev.files as SlackFile[]) : undefined,
        });
      }
    }
    const teamId = opts.teamId ?? this.teamId;
    const envelope: Json = {
      token: this.verificationToken,
      team_id: teamId,
      context_team_id: teamId,
      ...(opts.enterpriseId ? { enterprise_id: opts.enterpriseId } : {}),
      context_enterprise_id: opts.enterpriseId ?? null,
      api_app_id: this.apiAppId,
      event: ev,
      type: 'event_callback',
      event_id: opts.eventId ?? `Ev${randomBytes(5).toString('hex').toUpperCase()}`,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [
        {
          enterprise_id: opts.enterpriseId ?? null,
          team_id: opts.orgWide ? null : teamId,
          user_id: fake?.botUserId ?? 'U0CAMPAIGNBOT',
          is_bot: true,
          is_enterprise_install: opts.orgWide === true,
        },
      ],
      is_ext_shared_channel: false,
      event_context: `4-${Buffer.from(JSON.stringify({ t: teamId })).toString('base64url')}`,
    };
    const headers: Record<string, string> = {};
    if (opts.retryNum !== undefined) headers['X-Slack-Retry-Num'] = String(opts.retryNum);
    if (opts.retryReason !== undefined) headers['X-Slack-Retry-Reason'] = opts.retryReason;
    // A retry is a request of its own, signed when Slack sends it — seconds to minutes after the first try.
    // Sent at once here, it is signed `retryNum` seconds on, so that its signature differs as a real one's does.
    const signedAt = opts.retryNum === undefined ? undefined : Math.floor(Date.now() / 1000) + opts.retryNum;
    return this.send(JSON.stringify(envelope), 'application/json', headers, signedAt);
  }

  /**
   * Slack running the app's workflow step `callbackId` with `inputs`, used by `user` (the person Slack names in
   * `user_context` inputs): a run starts in the fake (`executeFunction`)
   * and its signed `function_executed` event is sent. The result names the run (`fake.functionExecution(id)`).
   */
  async functionExecuted(
    p: { callbackId: string; inputs: Record<string, unknown>; teamId?: string; user?: string },
    opts: { eventId?: string; retryNum?: number; retryReason?: string } = {},
  ): Promise<SignedResult & { executionId: string }> {
    const fake = this.opts.fake;
    if (!fake) throw new Error('functionExecuted needs the Slack stand-in (`fake`): the run lives there');
    const { execution, event } = fake.executeFunction(p);
    const sent = await this.event(event, { ...opts, ...(p.teamId ? { teamId: p.teamId } : {}) });
    return { ...sent, executionId: execution.id };
  }

  /**
   * Slack telling the app it went over the Events API's limit (30 000 events per workspace an hour) and that
   * events from `minuteRateLimited` on (epoch seconds rounded to the minute; default now's) are dropped; signed like any event
   * (https://docs.slack.dev/reference/events/app_rate_limited). The result has the status and `ms` it took.
   */
  appRateLimited(opts: { minuteRateLimited?: number; teamId?: string } = {}): Promise<SignedResult> {
    const minute = opts.minuteRateLimited ?? Math.floor(Date.now() / 60_000) * 60;
    return this.send(
      JSON.stringify({
        token: this.verificationToken,
        type: 'app_rate_limited',
        team_id: opts.teamId ?? this.teamId,
        minute_rate_limited: minute,
        api_app_id: this.apiAppId,
      }),
      'application/json',
    );
  }

  /** Slack's Request URL check (signed JSON `url_verification`); the bot must echo `challenge`. */
  urlVerification(challenge = hex(20)): Promise<SignedResult> {
    return this.send(
      JSON.stringify({ token: this.verificationToken, challenge, type: 'url_verification' }),
      'application/json',
    );
  }

  /** Slack's SSL check for slash commands: form `ssl_check=1`, *unsigned* (Slack sends it without a signature). */
  async sslCheck(): Promise<SignedResult> {
    const body = new URLSearchParams({ ssl_check: '1', token: this.verificationToken }).toString();
    return postAsSlack(this.opts.url, body, {
      'Content-Type': 'application/x-www-form-urlencoded',
      'User-Agent': SLACK_USER_AGENT,
    });
  }

  /**
   * Anything, for forged / stale / future-dated signature tests. Signed with the real secret at
   * `timestamp` (default now) unless `signature` is given; `headers` are added last (and can override).
   */
  raw(
    body: string,
    headers: Record<string, string> = {},
    opts: { timestamp?: number; signature?: string; contentType?: string } = {},
  ): Promise<SignedResult> {
    const contentType =
      opts.contentType ?? (/^\s*[[{]/.test(body) ? 'application/json' : 'application/x-www-form-urlencoded');
    return this.send(body, contentType, headers, opts.timestamp, opts.signature);
  }

  // ------------------------------------------------------------------ plumbing

  private sendPayload(payload: Json): Promise<SignedResult> {
    return this.sendForm(new URLSearchParams({ payload: JSON.stringify(payload) }).toString());
  }

  private sendForm(body: string): Promise<SignedResult> {
    return this.send(body, 'application/x-www-form-urlencoded');
  }

  private send(
    body: string,
    contentType: string,
    extraHeaders: Record<string, string> = {},
    timestamp = Math.floor(Date.now() / 1000),
    signature?: string,
  ): Promise<SignedResult> {
    return postAsSlack(this.opts.url, body, {
      'Content-Type': contentType,
      'User-Agent': SLACK_USER_AGENT,
      Accept: '*/*',
      'X-Slack-Request-Timestamp': String(timestamp),
      'X-Slack-Signature': signature ?? slackSignature(this.opts.signingSecret, timestamp, body),
      ...extraHeaders,
    });
  }

  private makeResponseUrl(
    id: string | undefined,
    ctx: { channelId?: string; messageTs?: string; ephemeralTs?: string; userId?: string },
  ): string {
    const fake = this.opts.fake;
    if (fake) return fake.responseUrl(id, ctx);
    return `https://hooks.slack.com/commands/${this.teamId}/${Date.now()}/${id ?? hex(12)}`;
  }

  private makeTrigger(ctx: { userId?: string; viewId?: string; triggerId?: string }): string {
    const fake = this.opts.fake;
    if (fake) return fake.issueTrigger(ctx);
    return ctx.triggerId ?? `${Math.floor(Date.now() / 1000)}.${Math.floor(Math.random() * 1e12)}.${hex(16)}`;
  }

  private actionTs(): string {
    const now = Date.now();
    return `${Math.floor(now / 1000)}.${String((now % 1000) * 1000 + Math.floor(Math.random() * 1000)).padStart(6, '0')}`;
  }

  private syntheticView(id?: string): SlackView {
    return {
      id: id ?? `V${randomBytes(5).toString('hex').toUpperCase()}`,
      team_id: this.teamId,
      type: 'modal',
      title: { type: 'plain_text', text: 'Campaign' },
      blocks: [],
      private_metadata: '',
      callback_id: '',
      state: { values: {} },
      hash: `${Math.floor(Date.now() / 1000)}.${hex(4)}`,
      clear_on_close: false,
      notify_on_close: false,
      root_view_id: null,
      previous_view_id: null,
      app_id: this.apiAppId,
      external_id: '',
      app_installed_team_id: this.teamId,
      bot_id: this.opts.fake?.botId ?? 'B0CAMPAIGNBOT',
    };
  }

  private channelName(channelId: string): string {
    const known = this.opts.fake?.channel(channelId);
    if (known?.name) return known.name;
    if (channelId.startsWith('D')) return 'directmessage';
    if (channelId.startsWith('G')) return 'privategroup';
    return `channel-${channelId.toLowerCase()}`;
  }

  private userName(userId: string): string {
    return this.opts.fake?.user(userId)?.name ?? userId.toLowerCase();
  }
}
