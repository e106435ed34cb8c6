/**
 * The playground's workspace and what a person at the page can do in it. Every action goes through the bot's
 * real entry points: slash commands, button clicks, modal submissions, thread replies and home-tab opens are
 * signed like Slack signs them and POSTed to `/slack/events`; platform events are POSTed to `/hooks/<token>`
 * by the simulator. What the page shows is what the bot did to the Slack stand-in (messages, threads,
 * ephemerals, reactions, views) and to the platform simulator.
 */
import type { Logger } from '../src/logger.js';
import { emojiFor, messageToHtml, optionsOf, textToPlain, viewToHtml, type RenderContext } from './blockkit-html.js';
import type { FakePlatform } from '../fakes/platform/index.js';
import { SlackSigner, type SignedResult } from '../fakes/slack/signer.js';
import type {
  FakeSlack,
  SlackChannel,
  SlackEphemeral,
  SlackFile,
  SlackMessage,
  SlackUser,
} from '../fakes/slack/index.js';
import type { PlaygroundReports } from './reports.js';
import { SIMULATED_TRIGGERS, simulate, SimulatorMemory, type SimulateInput, type SimulateResult } from './simulate.js';
import { buildStateValues, type RawValues, type ServedOptions } from './view-state.js';
import type { ActionInput, Outcome, PageChannel, PageMessage, PageModal, PageState } from './page-api.js';

/** The person at the page: a workspace admin, so every subcommand can be tried. */
export const PLAYGROUND_USER: SlackUser = {
  id: 'U0PLAYYOU01',
  name: 'you',
  real_name: 'You (playground admin)',
  is_admin: true,
  tz: 'UTC',
};

export const PLAYGROUND_CHANNELS: ReadonlyArray<SlackChannel & { name: string }> = [
  { id: 'C0GENERAL01', name: 'general', purpose: 'Try /campaign here' },
  { id: 'C0CALLS0001', name: 'calls', purpose: 'Call events (call_started, call_completed)' },
  { id: 'C0SUPPORT01', name: 'support', purpose: 'Chat events and handoff threads' },
];

/** Routes made at start with the real `/campaign subscribe`, so notifications work at once. */
const SEED_SUBSCRIPTIONS: ReadonlyArray<{ channel: string; text: string }> = [
  { channel: 'C0CALLS0001', text: 'subscribe * call_started call_completed' },
  { channel: 'C0SUPPORT01', text: 'subscribe * message_received message_sent' },
];

/** The message shortcuts of manifest.yml (Slack lists them under a message's "More actions"). */
const MESSAGE_SHORTCUTS: ReadonlyArray<{ callbackId: string; name: string }> = [
  { callbackId: 'clone_voice_from_message', name: 'Clone voice from files' },
];

const ACK_DEADLINE_MS = 3000;

export class PlaygroundSession {
  readonly you = PLAYGROUND_USER;
  private signer: SlackSigner | undefined;
  private botUrl = '';
  /** Modal ids, bottom to top, as the person sees them stacked. */
  private stack: string[] = [];
  private readonly seenViews = new Set<string>();
  /** Field errors from a submission's `response_action: errors`, per view, until the view changes. */
  private readonly fieldErrors = new Map<string, { hash: string; errors: Record<string, string> }>();
  private readonly files = new Map<string, SlackFile>();
  private readonly memory = new SimulatorMemory();
  private lastSimulation: SimulateResult | undefined;
  private localChanges = 0;

  /** The bot's logger once connected (the bot is built after the routes that hold this session). */
  logger: Logger | undefined;
  /** The Simulate panel's digest and usage buttons, once the bot is built. */
  reports: PlaygroundReports | undefined;

  constructor(
    readonly slack: FakeSlack,
    readonly platform: FakePlatform,
  ) {}

  /** Called once the bot listens: where to send Slack's requests and the platform's webhooks. */
  connect(opts: { botUrl: string; signingSecret: string; logger: Logger; reports?: PlaygroundReports }): void {
    this.botUrl = opts.botUrl;
    this.logger = opts.logger;
    this.reports = opts.reports;
    this.signer = new SlackSigner({
      signingSecret: opts.signingSecret,
      url: `${opts.botUrl}/slack/events`,
      fake: this.slack,
    });
  }

  /** Subscribes the seed routes through the real command and waits for the bot to confirm them. */
  async seed(timeoutMs = 10_000): Promise<void> {
    const before = this.slack.responses.length;
    for (const { channel, text } of SEED_SUBSCRIPTIONS) {
      const outcome = await this.command(channel, text);
      if (!outcome.ok) throw new Error(`seeding "/campaign ${text}" failed: ${outcome.error ?? 'unknown error'}`);
    }
    await this.slack.waitFor(() => this.slack.responses.length >= before + SEED_SUBSCRIPTIONS.length, timeoutMs);
  }

  private get sign(): SlackSigner {
    if (!this.signer) throw new Error('the playground is not connected to the bot yet');
    return this.signer;
  }

  /** Changes whenever anything the page shows may have changed. */
  version(): string {
    return [
      this.slack.calls.length,
      this.slack.responses.length,
      this.platform.requests.length,
      this.localChanges,
    ].join('.');
  }

  private changed(): void {
    this.localChanges += 1;
  }

  // ---------------------------------------------------------------------------------------- actions

  /** `/campaign <text>` typed in a channel. */
  async command(channel: string, text: string): Promise<Outcome> {
    this.requireChannel(channel);
    const res = await this.sign.command({ text, channelId: channel, userId: this.you.id, userName: this.you.name });
    this.changed();
    const problem = this.ackProblem(res, '/campaign');
    if (problem) return { ok: false, error: problem };
    await this.showAckMessage(channel, res);
    return { ok: true };
  }

  /** A message the person posts (top level, or a reply in a thread), optionally with uploaded files. */
  async message(channel: string, text: string, threadTs?: string, fileIds: readonly string[] = []): Promise<Outcome> {
    this.requireChannel(channel);
    const files = fileIds.flatMap((id) => this.files.get(id) ?? []);
    if (text.trim() === '' && files.length === 0) return { ok: false, error: 'Type a message first.' };
    if (threadTs !== undefined && !this.slack.message(channel, threadTs))
      return { ok: false, error: 'That thread no longer exists.' };
    const res = await this.sign.event({
      type: 'message',
      channel,
      user: this.you.id,
      text,
      ...(threadTs !== undefined ? { thread_ts: threadTs } : {}),
      ...(files.length > 0 ? { subtype: 'file_share', files } : {}),
    });
    this.changed();
    const problem = this.ackProblem(res, 'the message event');
    return problem ? { ok: false, error: problem } : { ok: true };
  }

  /** A click on a button / choice in a select or overflow menu, in a message or a view. */
  async action(input: ActionInput): Promise<Outcome> {
    const override = this.actionOverride(input);
    const common = {
      actionId: input.actionId,
      userId: this.you.id,
      ...(input.blockId !== undefined ? { blockId: input.blockId } : {}),
      ...(input.value !== undefined ? { value: input.value } : {}),
      ...(override ? { action: override } : {}),
    };
    let res: SignedResult;
    if (input.container === 'view') {
      const stored = this.slack.view(input.viewId);
      if (!stored) return { ok: false, error: 'That view is gone.' };
      const { values } = buildStateValues(stored.view.blocks, input.values ?? {}, (id) => this.files.get(id));
      res = await this.sign.blockAction({ ...common, viewId: input.viewId, state: values });
    } else {
      this.requireChannel(input.channel);
      res = await this.sign.blockAction({
        ...common,
        channelId: input.channel,
        messageTs: input.ts,
        ephemeral: input.ephemeral,
        ...(input.threadTs !== undefined ? { threadTs: input.threadTs } : {}),
      });
    }
    this.changed();
    const problem = this.ackProblem(res, 'the button');
    return problem ? { ok: false, error: problem } : { ok: true };
  }

  /** The selected option(s) as Slack describes them, for selects and overflow menus. */
  private actionOverride(input: ActionInput): Record<string, unknown> | undefined {
    if (input.selected === undefined) return undefined;
    const chosen = input.selected[0];
    const blocks =
      input.container === 'view'
        ? this.slack.view(input.viewId)?.view.blocks
        : this.findMessageBlocks(input.channel, input.ts, input.ephemeral);
    const element = findElement(blocks, input.actionId);
    const options = element ? optionsOf(element) : [];
    const pick = (v: string) => options.find((o) => o.value === v);
    if (element?.type === 'multi_static_select' || element?.type === 'checkboxes') {
      return { selected_options: input.selected.flatMap((v) => pick(v) ?? []) };
    }
    return { selected_option: chosen === undefined ? null : (pick(chosen) ?? null) };
  }

  private findMessageBlocks(channel: string, ts: string, ephemeral: boolean): unknown {
    if (ephemeral) return this.slack.ephemerals(channel).find((e) => e.ts === ts)?.blocks;
    return this.slack.message(channel, ts)?.blocks;
  }

  /** The modal's Submit button. */
  async submitView(viewId: string, raw: RawValues): Promise<Outcome> {
    const stored = this.slack.view(viewId);
    if (!stored || !this.stack.includes(viewId)) return { ok: false, error: 'That window is no longer open.' };
    const served = await this.servedOptions(viewId, stored.view.blocks, raw);
    const { values, missing } = buildStateValues(stored.view.blocks, raw, (id) => this.files.get(id), served);
    if (Object.keys(missing).length > 0) {
      // Slack checks required fields in the client and sends nothing.
      this.fieldErrors.set(viewId, { hash: stored.view.hash, errors: missing });
      this.changed();
      return { ok: false, errors: missing };
    }
    this.fieldErrors.delete(viewId);
    const res = await this.sign.viewSubmission({
      callbackId: stored.view.callback_id,
      viewId,
      values,
      privateMetadata: stored.view.private_metadata,
      userId: this.you.id,
    });
    this.changed();
    const problem = this.ackProblem(res, 'the form');
    if (problem) return { ok: false, error: problem };
    return this.applySubmissionAck(viewId, res);
  }

  /**
   * The person typed into a menu with an external data source: Slack asks the app (a signed `block_suggestion`)
   * and shows its options. Fewer characters than the menu's `min_query_length`: Slack asks nothing yet.
   */
  async suggest(input: { viewId: string; blockId: string; actionId: string; value: string }): Promise<Outcome> {
    if (!this.slack.view(input.viewId) || !this.stack.includes(input.viewId))
      return { ok: false, error: 'That window is no longer open.' };
    const answer = await this.sign.blockSuggestion({ ...input, userId: this.you.id }).catch(() => undefined);
    if (!answer) return { ok: true, options: [] };
    if (answer.errors.length > 0)
      return { ok: false, error: `Slack would show no options: ${answer.errors.join('; ')}` };
    const options = (answer.options ?? []).flatMap((o) =>
      isObj(o) && typeof o.value === 'string' ? [{ text: textToPlain(o.text), value: o.value }] : [],
    );
    return { ok: true, options };
  }

  /**
   * For each menu with an external data source that holds a value: the options the app serves for it, as Slack
   * kept them from the person's last search (the chosen option is among them: its value is what was searched).
   */
  private async servedOptions(viewId: string, blocks: unknown, raw: RawValues): Promise<ServedOptions> {
    const served: ServedOptions = {};
    for (const block of Array.isArray(blocks) ? blocks : []) {
      if (!isObj(block) || !isObj(block.element) || block.element.type !== 'external_select') continue;
      const blockId = typeof block.block_id === 'string' ? block.block_id : '';
      const actionId = typeof block.element.action_id === 'string' ? block.element.action_id : '';
      const value = raw[blockId]?.[actionId];
      if (typeof value !== 'string' || value === '') continue;
      const answer = await this.sign
        .blockSuggestion({ viewId, blockId, actionId, value, userId: this.you.id })
        .catch(() => undefined);
      const options = (answer?.options ?? []).filter(
        (o): o is Json & { value: string } => isObj(o) && typeof o.value === 'string',
      );
      (served[blockId] ??= {})[actionId] = options;
    }
    return served;
  }

  /** What Slack does with the bot's answer to a submission: close, show field errors, update or push. */
  private applySubmissionAck(viewId: string, res: SignedResult): Outcome {
    const ack = isObj(res.json) ? res.json : {};
    const action = typeof ack.response_action === 'string' ? ack.response_action : undefined;
    if (action === 'errors') {
      const errors: Record<string, string> = {};
      if (isObj(ack.errors)) for (const [k, v] of Object.entries(ack.errors)) if (typeof v === 'string') errors[k] = v;
      const hash = this.slack.view(viewId)?.view.hash ?? '';
      this.fieldErrors.set(viewId, { hash, errors });
      return { ok: false, errors };
    }
    if ((action === 'update' || action === 'push') && isObj(ack.view)) {
      const done =
        action === 'update' ? this.slack.replaceView(viewId, ack.view) : this.slack.pushView(viewId, ack.view);
      if (!done.ok) return { ok: false, error: `Slack refused the bot's ${action}: ${done.errors.join('; ')}` };
      this.syncViews();
      return { ok: true };
    }
    if (action === 'clear') this.stack = [];
    else this.stack = this.stack.filter((id) => id !== viewId);
    return { ok: true };
  }

  /** The modal's Close/Cancel button (or ✕): back to the previous view, or closed. */
  async closeView(viewId: string): Promise<Outcome> {
    const stored = this.slack.view(viewId);
    this.stack = this.stack.filter((id) => id !== viewId);
    this.changed();
    if (stored?.view.notify_on_close) {
      const res = await this.sign.viewClosed({ viewId, userId: this.you.id });
      const problem = this.ackProblem(res, 'closing the window');
      if (problem) return { ok: false, error: problem };
    }
    return { ok: true };
  }

  /** Opening the app's Home tab (Slack sends `app_home_opened` every time). */
  async openHome(): Promise<Outcome> {
    const res = await this.sign.event({
      type: 'app_home_opened',
      user: this.you.id,
      channel: `D${this.you.id.slice(1)}`,
      tab: 'home',
    });
    this.changed();
    const problem = this.ackProblem(res, 'the Home tab');
    return problem ? { ok: false, error: problem } : { ok: true };
  }

  /** A message shortcut from a message's "More actions" menu. */
  async shortcut(channel: string, ts: string, callbackId: string): Promise<Outcome> {
    this.requireChannel(channel);
    if (!MESSAGE_SHORTCUTS.some((s) => s.callbackId === callbackId)) return { ok: false, error: 'No such shortcut.' };
    if (!this.slack.message(channel, ts)) return { ok: false, error: 'That message is gone.' };
    const res = await this.sign.shortcut({
      callbackId,
      type: 'message_action',
      message: { ts },
      channelId: channel,
      userId: this.you.id,
    });
    this.changed();
    const problem = this.ackProblem(res, 'the shortcut');
    return problem ? { ok: false, error: problem } : { ok: true };
  }

  /** A file picked in the page (for a modal's upload field or a message): stored in the Slack stand-in. */
  upload(name: string, mimetype: string, data: Buffer): Outcome {
    const file = this.slack.addFile({
      name,
      mimetype: mimetype || 'application/octet-stream',
      data,
      user: this.you.id,
    });
    this.files.set(file.id, file);
    this.changed();
    return { ok: true, file: { id: file.id, name: file.name, size: file.size } };
  }

  /** A file's bytes, for the page's download links. */
  download(id: string): { name: string; mimetype: string; data: Buffer } | undefined {
    const found = this.slack.file(id);
    return found ? { name: found.file.name, mimetype: found.file.mimetype, data: found.data } : undefined;
  }

  /** The Simulate panel: the platform fires an event at the bot's webhook route. */
  async simulate(input: SimulateInput): Promise<Outcome> {
    if (!this.botUrl) throw new Error('the playground is not connected to the bot yet');
    let result: SimulateResult;
    try {
      result = await simulate(this.platform.state, this.memory, input, this.botUrl, this.platform.recordingsUrl);
    } catch (err) {
      return { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
    this.lastSimulation = result;
    this.changed();
    this.logger?.info(
      { trigger: input.trigger, campaignId: input.campaignId, deliveries: result.deliveries.map((d) => d.status) },
      'playground: simulated a platform event',
    );
    const failed = result.deliveries.find((d) => d.status < 200 || d.status >= 300);
    if (result.problem) return { ok: false, error: result.problem, simulation: result };
    if (failed) return { ok: false, error: `The bot answered ${failed.status}: ${failed.body}`, simulation: result };
    return { ok: true, simulation: result };
  }

  /** Simulate › Reports: the scheduled digests now, or this month's usage moved (quota alerts checked at once). */
  async report(input: { digest: true } | { usagePercent: number }): Promise<Outcome> {
    if (!this.reports) throw new Error('the playground is not connected to the bot yet');
    const outcome =
      'digest' in input ? await this.reports.fireDigests() : await this.reports.setUsage(input.usagePercent);
    this.changed();
    return outcome;
  }

  // ---------------------------------------------------------------------------------------- state

  /** Everything the page shows. */
  snapshot(): PageState {
    this.syncViews();
    const ctx: RenderContext = {
      userName: (id) => this.slack.user(id)?.name,
      channelName: (id) => this.slack.channel(id)?.name,
    };
    const state = this.platform.state;
    return {
      version: this.version(),
      workspace: {
        name: this.slack.teamName,
        you: { id: this.you.id, name: this.you.name ?? 'you' },
        bot: { name: 'Campaign' },
      },
      channels: PLAYGROUND_CHANNELS.map((c) => this.pageChannel(c, ctx)),
      modal: this.pageModal(ctx),
      home: this.pageHome(ctx),
      shortcuts: MESSAGE_SHORTCUTS,
      simulator: {
        triggers: SIMULATED_TRIGGERS,
        campaigns: Object.values(state.campaigns).map((c) => ({ id: c.id, name: c.name, type: c.type })),
        sessions: Object.entries(state.sessions).map(([id, s]) => ({
          id,
          campaignId: s.campaignId,
          handoff: s.handoff,
        })),
        subscriptions: state.subscriptions.map((s) => ({ triggerName: s.triggerName, campaignId: s.campaignId })),
        humanResponses: state.humanResponses.slice(-10).map((r) => ({
          sessionId: r.sessionId,
          message: r.message,
          ...(r.agentId ? { agentId: r.agentId } : {}),
          // The links name PUBLIC_URL, which the playground can't have: the page opens them on its own origin.
          ...(r.attachments?.length ? { attachments: r.attachments.map((a) => new URL(a).pathname) } : {}),
        })),
        requests: this.platform.requests.slice(-12).map((r) => `${r.method} ${r.path}`),
        apiKey: this.platform.apiKey,
        ...(this.lastSimulation ? { last: this.lastSimulation } : {}),
      },
    };
  }

  private pageChannel(c: SlackChannel & { name: string }, ctx: RenderContext): PageChannel {
    const all: PageMessage[] = [
      ...this.slack.messages(c.id).map((m) => this.pageMessage(m, ctx)),
      ...this.slack
        .ephemerals(c.id)
        .filter((e) => e.user === this.you.id)
        .map((e) => this.pageEphemeral(e, ctx)),
    ].sort((a, b) => compareTs(a.ts, b.ts));
    const threads: Record<string, PageMessage[]> = {};
    const top: PageMessage[] = [];
    for (const m of all) {
      if (m.threadTs !== undefined && m.threadTs !== m.ts) (threads[m.threadTs] ??= []).push(m);
      else top.push(m);
    }
    return { id: c.id, name: c.name, purpose: c.purpose ?? '', messages: top, threads };
  }

  private pageMessage(m: SlackMessage, ctx: RenderContext): PageMessage {
    const isBot = m.bot_id !== undefined || m.user === this.slack.botUserId;
    return {
      ts: m.ts,
      ...(m.thread_ts !== undefined ? { threadTs: m.thread_ts } : {}),
      author: isBot ? 'Campaign' : (this.slack.user(m.user ?? '')?.name ?? m.user ?? 'someone'),
      authorKind: isBot ? 'bot' : 'user',
      html: messageToHtml(m, ctx),
      files: (m.files ?? []).map((f) => ({
        id: f.id,
        name: f.name,
        size: f.size,
        type: f.pretty_type,
        audio: f.mimetype.startsWith('audio/'),
      })),
      reactions: (m.reactions ?? []).map((r) => ({ name: r.name, emoji: emojiFor(r.name), count: r.count })),
      replyCount: m.reply_count ?? 0,
      ephemeral: false,
      edited: m.edited !== undefined,
    };
  }

  private pageEphemeral(e: SlackEphemeral, ctx: RenderContext): PageMessage {
    return {
      ts: e.ts,
      ...(e.thread_ts !== undefined ? { threadTs: e.thread_ts } : {}),
      author: 'Campaign',
      authorKind: 'bot',
      html: messageToHtml(e, ctx),
      files: [],
      reactions: [],
      replyCount: 0,
      ephemeral: true,
      edited: false,
    };
  }

  private pageModal(ctx: RenderContext): PageModal | null {
    const id = this.stack.at(-1);
    const stored = id ? this.slack.view(id) : undefined;
    if (!id || !stored) return null;
    const rendered = viewToHtml(stored.view, ctx);
    const errors = this.fieldErrors.get(id);
    return {
      id,
      ...rendered,
      depth: this.stack.length,
      errors: errors && errors.hash === stored.view.hash ? errors.errors : {},
    };
  }

  private pageHome(ctx: RenderContext): { id: string; html: string } | null {
    const home = this.slack
      .views()
      .filter((v) => v.via === 'views.publish' && v.userId === this.you.id)
      .at(-1);
    return home ? { id: home.view.id, html: viewToHtml(home.view, ctx).body } : null;
  }

  /** Picks up views the bot opened or pushed since last time (views.update keeps the id, so it needs nothing). */
  private syncViews(): void {
    for (const stored of this.slack.views()) {
      const id = stored.view.id;
      if (this.seenViews.has(id) || stored.via === 'views.publish') continue;
      this.seenViews.add(id);
      if (stored.userId !== undefined && stored.userId !== this.you.id) continue;
      if (stored.via === 'views.open') this.stack = [id];
      else if (stored.view.previous_view_id !== null && this.stack.includes(stored.view.previous_view_id)) {
        this.stack = [...this.stack.slice(0, this.stack.indexOf(stored.view.previous_view_id) + 1), id];
      } else this.stack.push(id);
    }
    this.stack = this.stack.filter((id) => this.slack.view(id) !== undefined);
  }

  // ---------------------------------------------------------------------------------------- helpers

  private requireChannel(channel: string): void {
    if (!PLAYGROUND_CHANNELS.some((c) => c.id === channel))
      throw new PlaygroundInputError(`unknown channel ${channel}`);
  }

  /** What Slack would show when the bot's answer to a request is not a timely 200. */
  private ackProblem(res: SignedResult, what: string): string | undefined {
    if (res.status !== 200) {
      this.logger?.warn({ status: res.status, body: res.body.slice(0, 200) }, `playground: the bot refused ${what}`);
      return `The bot answered ${what} with HTTP ${res.status} — Slack would show an error.`;
    }
    if (res.ms > ACK_DEADLINE_MS)
      return `The bot took ${Math.round(res.ms)} ms to acknowledge ${what}; Slack gives up after 3 s and shows an error.`;
    return undefined;
  }

  /** A command's ack may carry a message (`ack('text')` / `ack({ blocks })`): Slack shows it to the user only. */
  private async showAckMessage(channel: string, res: SignedResult): Promise<void> {
    const body = isObj(res.json) ? res.json : res.body.trim() !== '' ? { text: res.body } : undefined;
    if (!body || (typeof body.text !== 'string' && !Array.isArray(body.blocks))) return;
    const url = this.slack.responseUrl(undefined, { channelId: channel, userId: this.you.id });
    await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  }
}

/** A request from the page that names something that does not exist (answered 400). */
export class PlaygroundInputError extends Error {}

type Json = Record<string, unknown>;

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function findElement(blocks: unknown, actionId: string): Json | undefined {
  if (!Array.isArray(blocks)) return undefined;
  for (const block of blocks) {
    if (!isObj(block)) continue;
    const candidates: unknown[] = [
      ...(Array.isArray(block.elements) ? (block.elements as unknown[]) : []),
      block.accessory,
      block.element,
    ];
    for (const el of candidates) if (isObj(el) && el.action_id === actionId) return el;
  }
  return undefined;
}

function compareTs(a: string, b: string): number {
  const [as = '0', au = '0'] = a.split('.');
  const [bs = '0', bu = '0'] = b.split('.');
  return Number(as) - Number(bs) || Number(au.padEnd(6, '0')) - Number(bu.padEnd(6, '0'));
}
