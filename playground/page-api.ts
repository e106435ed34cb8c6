/**
 * The shapes of the playground's small JSON API: what the page sends for an action, what each request answers
 * (`Outcome`) and the state the page polls and draws (`PageState`). page/app.js mirrors them in JSDoc.
 */
import type { PlatformMode } from '../fakes/platform/index.js';
import type { BurstResult, SimulateResult } from './simulate.js';
import type { TryThese } from './try-these.js';
import type { ChannelState, SlackMode } from './slack-switch.js';
import type { Role } from './workspace.js';
import type { PageWorkflowRun, PageWorkflowStep } from './workflows.js';
import type { RawValues } from './view-state.js';

export interface Outcome {
  ok: boolean;
  /** What went wrong, in words for the page. */
  error?: string;
  /** Field errors to show on the open modal (block id → message). */
  errors?: Record<string, string>;
  simulation?: SimulateResult;
  burst?: BurstResult;
  file?: { id: string; name: string; size: number };
  /** What a menu with an external data source offers for the typed text (the app's answer). */
  options?: Array<{ text: string; value: string }>;
}

export type ActionInput =
  | {
      container: 'message';
      channel: string;
      ts: string;
      ephemeral: boolean;
      threadTs?: string;
      actionId: string;
      blockId?: string;
      value?: string;
      selected?: string[];
    }
  | {
      container: 'view';
      viewId: string;
      actionId: string;
      blockId?: string;
      value?: string;
      selected?: string[];
      values?: RawValues;
    };

interface PageFile {
  id: string;
  name: string;
  size: number;
  type: string;
  /** An audio file: the page shows a player, as Slack does. */
  audio: boolean;
}

export interface PageMessage {
  ts: string;
  threadTs?: string;
  author: string;
  authorKind: 'bot' | 'user';
  /** Rendered, escaped HTML of the message body. */
  html: string;
  files: PageFile[];
  reactions: Array<{ name: string; emoji: string; count: number }>;
  replyCount: number;
  ephemeral: boolean;
  edited: boolean;
}

export interface PageChannel {
  id: string;
  name: string;
  /** The app's direct messages with the person (its notices to admins land here). */
  dm: boolean;
  purpose: string;
  /** Who may read it besides full members, as Slack shows it (guests, another organisation); '' when nobody. */
  audience: string;
  messages: PageMessage[];
  /** Thread replies by parent ts. */
  threads: Record<string, PageMessage[]>;
}

export interface PageModal {
  id: string;
  title: string;
  submit?: string;
  close: string;
  body: string;
  depth: number;
  errors: Record<string, string>;
}

export interface PagePerson {
  id: string;
  name: string;
  realName: string;
  role: Role;
  about: string;
  /** On shift now (`/campaign shift on`): channels that assign hand new chats to them. */
  onShift: boolean;
}

export interface PageState {
  version: string;
  /** This run of the playground: a new one means the bot restarted and everything before it is gone. */
  instance: string;
  workspace: {
    name: string;
    you: PagePerson;
    people: PagePerson[];
    userGroups: Array<{ id: string; handle: string; name: string }>;
    bot: { name: string };
  };
  channels: PageChannel[];
  modal: PageModal | null;
  home: { id: string; html: string } | null;
  shortcuts: ReadonlyArray<{ callbackId: string; name: string }>;
  tryThese: TryThese;
  /** The app's Workflow Builder steps, and the runs started from the page (newest first). */
  workflows: { steps: PageWorkflowStep[]; runs: PageWorkflowRun[] };
  platform: { mode: PlatformMode; modes: readonly PlatformMode[]; slowMs: number };
  slack: {
    mode: SlackMode;
    modes: readonly SlackMode[];
    states: readonly ChannelState[];
    channels: Array<{ id: string; name: string; state: ChannelState }>;
  };
  simulator: {
    triggers: readonly string[];
    outcomes: ReadonlyArray<{ name: string; label: string }>;
    campaigns: Array<{ id: string; name: string; type: string }>;
    sessions: Array<{ id: string; campaignId: string; handoff: boolean }>;
    subscriptions: Array<{ triggerName: string; campaignId: string }>;
    /** `attachments`: the links' paths on this page's origin (the bot serves them on the same port). */
    humanResponses: Array<{ sessionId: string; message: string; agentId?: string; attachments?: string[] }>;
    requests: string[];
    apiKey: string;
    last?: SimulateResult;
  };
}
