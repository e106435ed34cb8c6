/**
 * The playground's workspace and what a person at the page can do in it. Every action goes through the bot's
 * real entry points: slash commands, button clicks, modal submissions, thread replies and home-tab opens are
 * signed like Slack signs them and POSTed to `/slack/events`; platform events are POSTed to `/hooks/<token>`
 * by the simulator. What the page shows is what the bot did to the Slack stand-in (messages, threads,
 * ephemerals, reactions, views) and to the platform simulator.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from '../src/logger.js';
import { textToPlain } from './blockkit-html.js';
import { recordingOf, type FakePlatform, type PlatformMode } from '../fakes/platform/index.js';
import { SlackSigner, type SignedResult } from '../fakes/slack/signer.js';
import type { FakeSlack, FunctionDefinition, SlackFile } from '../fakes/slack/index.js';
import { localTargets, type LocalTargets, type MediaKind } from './local-links.js';
import type { PlaygroundReports } from './reports.js';
import { pageState } from './page-state.js';
import { selectedOptions } from './selected-options.js';
import { SlackSwitch, type ChannelState, type SlackMode } from './slack-switch.js';
import { simulate, simulateBurst, SimulatorMemory, type SimulateInput, type SimulateResult } from './simulate.js';
import { buildStateValues, type RawValues, type ServedOptions } from './view-state.js';
import type { ActionInput, Outcome, PageState } from './page-api.js';
import { WorkflowRuns } from './workflows.js';
import { HandOvers } from './hand-over.js';
import {
  MESSAGE_SHORTCUTS,
  PLAYGROUND_CHANNELS,
  PLAYGROUND_PEOPLE,
  SEED_SHIFTS,
  SEED_SUBSCRIPTIONS,
  type PlaygroundPerson,
} from './workspace.js';

const ACK_DEADLINE_MS = 3000;
/** How long each platform answer takes when the switch says `slow`. */
const SLOW_PLATFORM_MS = 3000;

export class PlaygroundSession {
  /** This run: the page compares it across polls to notice that the bot restarted (and everything went). */
  readonly instance = randomBytes(6).toString('hex');
  private youId = PLAYGROUND_PEOPLE[0]!.id;
  private signer: SlackSigner | undefined;
  private botUrl = '';
  /** Per person: modal ids, bottom to top, as they see them stacked. */
  private readonly stacks = new Map<string, string[]>();
  private readonly seenViews = new Set<string>();
  /** Field errors from a submission's `response_action: errors`, per view, until the view changes. */
  private readonly fieldErrors = new Map<string, { hash: string; errors: Record<string, string> }>();
  private readonly files = new Map<string, SlackFile>();
  private readonly memory = new SimulatorMemory();
  private readonly handOvers = new HandOvers();
  private lastSimulation: SimulateResult | undefined;
  private localChanges = 0;

  /** The bot's logger once connected (the bot is built after the routes that hold this session). */
  logger: Logger | undefined;
  /** The Simulate panel's digest and usage buttons, once the bot is built. */
  reports: PlaygroundReports | undefined;
  /** Who is on shift now (the bot's roster), once the bot is built. */
  private onShift: () => Promise<readonly string[]> = () => Promise.resolve([]);

  private readonly localTarget: LocalTargets;
  /** How Slack treats the bot now (the page's Slack switch). */
  readonly slackSwitch: SlackSwitch;
  /** The Workflows panel's steps and runs. */
  private readonly workflows: WorkflowRuns;

  constructor(
    readonly slack: FakeSlack,
    readonly platform: FakePlatform,
    steps: readonly FunctionDefinition[] = [],
  ) {
    this.slackSwitch = new SlackSwitch(slack);
    this.workflows = new WorkflowRuns(slack, steps);
    this.localTarget = localTargets({ slackDomain: slack.teamDomain, recordingsUrl: platform.recordingsUrl });
  }

  /** Who the person at the page is now (the switcher changes it): the user of every request they make. */
  get you(): PlaygroundPerson {
    return PLAYGROUND_PEOPLE.find((p) => p.id === this.youId) ?? PLAYGROUND_PEOPLE[0]!;
  }

  private get stack(): string[] {
    return this.stacks.get(this.youId) ?? [];
  }

  private set stack(ids: string[]) {
    this.stacks.set(this.youId, ids);
  }

  /** Called once the bot listens: where to send Slack's requests and the platform's webhooks. */
  connect(opts: {
    botUrl: string;
    signingSecret: string;
    logger: Logger;
    reports?: PlaygroundReports;
    onShift?: () => Promise<readonly string[]>;
  }): void {
    this.botUrl = opts.botUrl;
    this.logger = opts.logger;
    this.reports = opts.reports;
    if (opts.onShift) this.onShift = opts.onShift;
    this.signer = new SlackSigner({
      signingSecret: opts.signingSecret,
      url: `${opts.botUrl}/slack/events`,
      fake: this.slack,
    });
  }

  /**
   * Subscribes the seed routes and puts the seed agents on shift, through the real commands (as those agents),
   * and waits for the bot to confirm them.
   */
  async seed(timeoutMs = 10_000): Promise<void> {
    const before = this.slack.responses.length;
    const seeds = [
      ...SEED_SUBSCRIPTIONS.map((s) => ({ ...s, as: this.you })),
      ...SEED_SHIFTS.map((id) => ({
        channel: 'C0SUPPORT01',
        text: 'shift on',
        as: PLAYGROUND_PEOPLE.find((p) => p.id === id) ?? this.you,
      })),
    ];
    for (const { channel, text, as } of seeds) {
      const outcome = await this.command(channel, text, as);
      if (!outcome.ok) throw new Error(`seeding "/campaign ${text}" failed: ${outcome.error ?? 'unknown error'}`);
    }
    // Every route on the platform, not merely answered: a chat fired the moment the page opens finds its route.
    const triggers = SEED_SUBSCRIPTIONS.flatMap((s) => s.text.split(' ').slice(2));
    await this.slack.waitFor(
      () =>
        this.slack.responses.length >= before + seeds.length &&
        triggers.every((t) => this.platform.state.subscriptions.some((sub) => sub.triggerName === t)),
      timeoutMs,
    );
  }

  /** The playground stops: nothing it does on the person's behalf waits for the bot any more. */
  stop(): void {
    this.handOvers.stop();
  }

  private get sign(): SlackSigner {
    if (!this.signer) throw new Error('the playground is not connected to the bot yet');
    return this.signer;
  }

  /** Changes whenever anything the page shows may have changed. */
  version(): string {
    return [
      this.instance,
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

  /** `/campaign <text>` typed in a channel (by the person at the page, or at start by a seed agent). */
  async command(channel: string, text: string, as: PlaygroundPerson = this.you): Promise<Outcome> {
    this.requireChannel(channel);
    const refused = this.slackSwitch.refusal(channel);
    if (refused) return { ok: false, error: refused };
    const res = await this.sign.command({ text, channelId: channel, userId: as.id, userName: as.name });
    this.changed();
    const problem = this.ackProblem(res, '/campaign');
    if (problem) return { ok: false, error: problem };
    await this.showAckMessage(channel, res, as.id);
    return { ok: true };
  }

  /** A message the person posts (top level, or a reply in a thread), optionally with uploaded files. */
  async message(channel: string, text: string, threadTs?: string, fileIds: readonly string[] = []): Promise<Outcome> {
    this.requireChannel(channel);
    const refused = this.slackSwitch.refusal(channel);
    if (refused) return { ok: false, error: refused };
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
    const refused = this.slackSwitch.refusal(input.container === 'message' ? input.channel : '');
    if (refused) return { ok: false, error: refused };
    const override = selectedOptions(this.slack, input);
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

  /** The Workflows panel: a workflow reaches the app's step `callbackId` (Slack sends `function_executed`). */
  async runWorkflowStep(callbackId: string, inputs: Record<string, string>): Promise<Outcome> {
    const refused = this.slackSwitch.refusal('');
    if (refused) return { ok: false, error: refused };
    const sent = await this.workflows.run(this.sign, this.you, callbackId, inputs);
    this.changed();
    if ('problem' in sent) return { ok: false, error: sent.problem };
    const problem = this.ackProblem(sent, 'the workflow step');
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
    if (result.sessionId && input.trigger !== 'message_session_completed') {
      // The playground's platform hands the session over: Link session pressed as a full member would.
      const as = this.you.role === 'guest' ? PLAYGROUND_PEOPLE[0]! : this.you;
      const { slack, sign } = this;
      const chat = { campaignId: input.campaignId, customerNumber: String(result.event.customerNumber) };
      const handOver = await this.handOvers.handOver({ slack, sign, as, ...chat, sessionId: result.sessionId });
      if (handOver) result.handOver = handOver;
      this.changed();
    }
    return { ok: true, simulation: result };
  }

  /** Simulate › Burst: many calls of one campaign end at once. */
  async burst(campaignId: string, count: number): Promise<Outcome> {
    if (!this.botUrl) throw new Error('the playground is not connected to the bot yet');
    if (!this.platform.state.campaigns[campaignId])
      return { ok: false, error: `The simulator has no campaign ${campaignId}.` };
    const burst = await simulateBurst(
      this.platform.state,
      this.memory,
      campaignId,
      count,
      this.botUrl,
      this.platform.recordingsUrl,
    );
    this.changed();
    this.logger?.info({ campaignId, ...burst }, 'playground: simulated a burst of calls');
    if (burst.problem) return { ok: false, error: burst.problem, burst };
    const refused = Object.keys(burst.answers).filter((status) => !status.startsWith('2'));
    if (refused.length > 0)
      return { ok: false, error: `The bot answered some deliveries with HTTP ${refused.join(', ')}.`, burst };
    return { ok: true, burst };
  }

  /** The person at the page becomes someone else of the workspace (their ephemerals, modals and Home tab). */
  setYou(userId: string): Outcome {
    if (!PLAYGROUND_PEOPLE.some((p) => p.id === userId)) throw new PlaygroundInputError(`unknown person ${userId}`);
    this.youId = userId;
    this.changed();
    return { ok: true };
  }

  /** The platform switch: normal, slow, down or failing, for every request the bot makes from now on. */
  async setPlatformMode(mode: PlatformMode): Promise<Outcome> {
    await this.platform.setMode(mode, { slowMs: SLOW_PLATFORM_MS });
    this.changed();
    this.logger?.info({ mode }, 'playground: the platform simulator switched mode');
    return { ok: true };
  }

  /** The Slack switch: normal, rate-limited, down, failing or losing answers, from now on. */
  setSlackMode(mode: SlackMode): Outcome {
    this.slackSwitch.setMode(mode);
    this.changed();
    this.logger?.info({ mode }, 'playground: the Slack stand-in switched mode');
    return { ok: true };
  }

  /** One channel: the bot removed from it, archived, read-only, or back to normal. */
  setChannelState(channel: string, state: ChannelState): Outcome {
    this.requireChannel(channel);
    this.slackSwitch.setChannel(channel, state);
    this.changed();
    this.logger?.info({ channel, state }, 'playground: a channel changed in the Slack stand-in');
    return { ok: true };
  }

  /**
   * What the page's audio player plays for a link that stays on the page: the simulator's call recording (as long
   * as the call), or the first sample a cloned voice was made from (its "preview").
   */
  media(kind: MediaKind, name: string): { mimetype: string; data: Buffer } | undefined {
    if (kind === 'recording') return { mimetype: 'audio/wav', data: recordingOf(this.platform.state, name) };
    const samples = this.platform.state.voiceSamples;
    const sample = Object.hasOwn(samples, name) ? samples[name] : undefined;
    if (!sample) return undefined;
    const audio = /^audio\/[\w.+-]+$/.test(sample.contentType);
    return { mimetype: audio ? sample.contentType : 'application/octet-stream', data: sample.data };
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
  async snapshot(): Promise<PageState> {
    this.syncViews();
    const onShift = await this.onShift();
    return pageState({
      slack: this.slack,
      platform: this.platform,
      version: this.version(),
      instance: this.instance,
      you: this.you,
      stack: this.stack,
      fieldErrors: this.fieldErrors,
      lastSimulation: this.lastSimulation,
      localTarget: this.localTarget,
      slowMs: SLOW_PLATFORM_MS,
      slackSwitch: this.slackSwitch,
      onShift,
      workflows: { steps: this.workflows.steps(this.platform.state), runs: this.workflows.runs() },
    });
  }

  /**
   * Picks up views the bot opened or pushed since last time, onto the stack of the person they were opened for
   * (views.update keeps the id, so it needs nothing).
   */
  private syncViews(): void {
    for (const stored of this.slack.views()) {
      const id = stored.view.id;
      if (this.seenViews.has(id) || stored.via === 'views.publish' || this.handOvers.hides(stored)) continue;
      this.seenViews.add(id);
      const owner = stored.userId ?? this.youId;
      const stack = this.stacks.get(owner) ?? [];
      const previous = stored.view.previous_view_id;
      if (stored.via === 'views.open') this.stacks.set(owner, [id]);
      else if (previous !== null && stack.includes(previous))
        this.stacks.set(owner, [...stack.slice(0, stack.indexOf(previous) + 1), id]);
      else this.stacks.set(owner, [...stack, id]);
    }
    for (const [owner, stack] of this.stacks)
      this.stacks.set(
        owner,
        stack.filter((id) => this.slack.view(id) !== undefined),
      );
  }

  // ---------------------------------------------------------------------------------------- helpers

  private requireChannel(channel: string): void {
    if (channel.startsWith('D'))
      throw new PlaygroundInputError('The app’s direct messages are for reading here: type in a channel.');
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
  private async showAckMessage(channel: string, res: SignedResult, userId: string): Promise<void> {
    const body = isObj(res.json) ? res.json : res.body.trim() !== '' ? { text: res.body } : undefined;
    if (!body || (typeof body.text !== 'string' && !Array.isArray(body.blocks))) return;
    const url = this.slack.responseUrl(undefined, { channelId: channel, userId });
    await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  }
}

/** A request from the page that names something that does not exist (answered 400). */
export class PlaygroundInputError extends Error {}

type Json = Record<string, unknown>;

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
