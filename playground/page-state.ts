/**
 * What the page draws, built from what the bot did to the Slack stand-in and the platform simulator: the
 * channels with their threads (and the ephemerals of whoever the person is now), the open modal, the Home tab,
 * the "Try these" panel, the platform switch and the Simulate panel's lists.
 */
import { emojiFor, messageToHtml, viewToHtml, type RenderContext } from './blockkit-html.js';
import type { FakePlatform } from '../fakes/platform/index.js';
import { PLATFORM_MODES } from '../fakes/platform/index.js';
import type { FakeSlack, SlackChannel, SlackEphemeral, SlackMessage } from '../fakes/slack/index.js';
import { CALL_OUTCOME_CHOICES, CALL_OUTCOMES } from './call-outcomes.js';
import type { LocalTargets } from './local-links.js';
import type { PageChannel, PageMessage, PageModal, PageState } from './page-api.js';
import { SIMULATED_TRIGGERS, type SimulateResult } from './simulate.js';
import { CHANNEL_STATES, SLACK_MODES, type SlackSwitch } from './slack-switch.js';
import { people, tryThese } from './try-these.js';
import type { PageWorkflowRun, PageWorkflowStep } from './workflows.js';
import {
  CONNECTED_ORG,
  MESSAGE_SHORTCUTS,
  PLAYGROUND_CHANNELS,
  PLAYGROUND_USER_GROUPS,
  type PlaygroundPerson,
} from './workspace.js';

export interface PageStateSource {
  slack: FakeSlack;
  platform: FakePlatform;
  version: string;
  instance: string;
  you: PlaygroundPerson;
  /** The person's open modals, bottom to top. */
  stack: readonly string[];
  fieldErrors: ReadonlyMap<string, { hash: string; errors: Record<string, string> }>;
  lastSimulation: SimulateResult | undefined;
  localTarget: LocalTargets;
  slowMs: number;
  slackSwitch: SlackSwitch;
  /** User ids of the agents on shift now. */
  onShift: readonly string[];
  workflows: { steps: PageWorkflowStep[]; runs: PageWorkflowRun[] };
}

export function pageState(src: PageStateSource): PageState {
  const { slack, platform } = src;
  const ctx: RenderContext = {
    userName: (id) => slack.user(id)?.name,
    channelName: (id) => slack.channel(id)?.name,
    userGroupHandle: (id) => slack.userGroup(id)?.handle,
    localTarget: src.localTarget,
  };
  const state = platform.state;
  const everyone = people().map((p) => ({ ...p, onShift: src.onShift.includes(p.id) }));
  return {
    version: src.version,
    instance: src.instance,
    workspace: {
      name: slack.teamName,
      you: everyone.find((p) => p.id === src.you.id) ?? everyone[0]!,
      people: everyone,
      userGroups: PLAYGROUND_USER_GROUPS.map((g) => ({ id: g.id, handle: g.handle, name: g.name })),
      bot: { name: 'Campaign' },
    },
    channels: [
      ...PLAYGROUND_CHANNELS.map((c) => pageChannel(src, c, ctx)),
      // The app's DM with the person: where it tells an admin that a channel refused its posts.
      pageChannel(
        src,
        { id: `D${src.you.id.slice(1)}`, name: 'Campaign', purpose: 'The app’s direct messages to you' },
        ctx,
        true,
      ),
    ],
    modal: pageModal(src, ctx),
    home: pageHome(src, ctx),
    shortcuts: MESSAGE_SHORTCUTS,
    tryThese: tryThese(state),
    workflows: src.workflows,
    platform: { mode: platform.mode(), modes: PLATFORM_MODES, slowMs: src.slowMs },
    slack: {
      mode: src.slackSwitch.mode,
      modes: SLACK_MODES,
      states: CHANNEL_STATES,
      channels: PLAYGROUND_CHANNELS.map((c) => ({ id: c.id, name: c.name, state: src.slackSwitch.channelState(c.id) })),
    },
    simulator: {
      triggers: SIMULATED_TRIGGERS,
      outcomes: CALL_OUTCOME_CHOICES.map((name) => ({
        name,
        label: name === 'random' ? 'Any (at random)' : CALL_OUTCOMES[name].label,
      })),
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
      requests: platform.requests.slice(-12).map((r) => `${r.method} ${r.path}`),
      apiKey: platform.apiKey,
      ...(src.lastSimulation ? { last: src.lastSimulation } : {}),
    },
  };
}

function pageChannel(
  src: PageStateSource,
  c: Pick<SlackChannel, 'id' | 'purpose'> & { name: string },
  ctx: RenderContext,
  dm = false,
): PageChannel {
  const all: PageMessage[] = [
    ...src.slack.messages(c.id).map((m) => pageMessage(src, m, ctx)),
    ...src.slack
      .ephemerals(c.id)
      .filter((e) => e.user === src.you.id)
      .map((e) => pageEphemeral(e, ctx)),
  ].sort((a, b) => compareTs(a.ts, b.ts));
  const threads: Record<string, PageMessage[]> = {};
  const top: PageMessage[] = [];
  for (const m of all) {
    if (m.threadTs !== undefined && m.threadTs !== m.ts) (threads[m.threadTs] ??= []).push(m);
    else top.push(m);
  }
  return {
    id: c.id,
    name: c.name,
    dm,
    purpose: c.purpose ?? '',
    audience: audience(src, c.id),
    messages: top,
    threads,
  };
}

/** Who besides full members is in a channel, as the stand-in holds it now (what the bot learns from Slack). */
function audience(src: PageStateSource, channelId: string): string {
  const known = src.slack.channel(channelId);
  const users = (known?.members ?? []).map((id) => src.slack.user(id)).filter((u) => u !== undefined);
  const names = (list: typeof users) => list.map((u) => `@${u.name ?? u.id}`).join(', ');
  const guests = users.filter((u) => u.is_restricted || u.is_ultra_restricted);
  const outside = users.filter((u) => u.team_id !== undefined && u.team_id !== src.slack.teamId);
  const parts: string[] = [];
  if (guests.length > 0)
    parts.push(`👤 ${guests.length === 1 ? 'a guest' : `${guests.length} guests`}: ${names(guests)}`);
  if (known?.is_ext_shared)
    parts.push(
      `🔗 Slack Connect with ${outside.some((u) => u.team_id === CONNECTED_ORG.id) ? CONNECTED_ORG.name : 'another organisation'}` +
        (outside.length > 0 ? `: ${names(outside)}` : ''),
    );
  return parts.join(' · ');
}

function pageMessage(src: PageStateSource, m: SlackMessage, ctx: RenderContext): PageMessage {
  const isBot = m.bot_id !== undefined || m.user === src.slack.botUserId;
  return {
    ts: m.ts,
    ...(m.thread_ts !== undefined ? { threadTs: m.thread_ts } : {}),
    author: isBot ? 'Campaign' : (src.slack.user(m.user ?? '')?.name ?? m.user ?? 'someone'),
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

function pageEphemeral(e: SlackEphemeral, ctx: RenderContext): PageMessage {
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

function pageModal(src: PageStateSource, ctx: RenderContext): PageModal | null {
  const id = src.stack.at(-1);
  const stored = id ? src.slack.view(id) : undefined;
  if (!id || !stored) return null;
  const rendered = viewToHtml(stored.view, ctx);
  const errors = src.fieldErrors.get(id);
  return {
    id,
    ...rendered,
    depth: src.stack.length,
    errors: errors && errors.hash === stored.view.hash ? errors.errors : {},
  };
}

function pageHome(src: PageStateSource, ctx: RenderContext): { id: string; html: string } | null {
  const home = src.slack
    .views()
    .filter((v) => v.via === 'views.publish' && v.userId === src.you.id)
    .at(-1);
  return home ? { id: home.view.id, html: viewToHtml(home.view, ctx).body } : null;
}

function compareTs(a: string, b: string): number {
  const [as = '0', au = '0'] = a.split('.');
  const [bs = '0', bu = '0'] = b.split('.');
  return Number(as) - Number(bs) || Number(au.padEnd(6, '0')) - Number(bu.padEnd(6, '0'));
}
