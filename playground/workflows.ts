/**
 * The page's Workflows panel: the Workflow Builder steps the app declares (manifest.yml › `functions:`), each with
 * its input fields, run as a workflow runs them — the Slack stand-in starts a run and sends the bot a signed
 * `function_executed` on its real event route — and each run's ending as Slack received it: the outputs of
 * functions.completeSuccess, or the message of functions.completeError that Slackbot shows the person.
 */
import type { FunctionDefinition, FakeSlack } from '../fakes/slack/index.js';
import type { SignedResult, SlackSigner } from '../fakes/slack/signer.js';
import type { PlatformState } from '../fakes/platform/seed.js';
import type { PlaygroundPerson } from './workspace.js';

/** Slack fills such an input with the person who used the workflow; Workflow Builder offers nothing else. */
const USER_CONTEXT_TYPE = 'slack#/types/user_context';
/** Runs the panel lists, newest first. */
const RUNS_SHOWN = 8;

export interface PageWorkflowInput {
  name: string;
  title: string;
  description: string;
  /** `text`, or `runner`: the person who used the workflow, whom Slack names (nobody can set it). */
  kind: 'text' | 'runner';
  required: boolean;
  /** What the field holds at first: a value of the simulator's seed that makes the step succeed. */
  example: string;
}

export interface PageWorkflowStep {
  callbackId: string;
  title: string;
  description: string;
  inputs: PageWorkflowInput[];
}

export interface PageWorkflowRun {
  id: string;
  title: string;
  /** Who ran it (the person at the page then). */
  by: string;
  inputs: Array<{ title: string; value: string }>;
  state: 'running' | 'completed' | 'failed';
  outputs?: Array<{ title: string; value: string }>;
  /** What completeError said: Slackbot's message to the person. */
  error?: string;
}

/** Values of the seed that make each step succeed, so the first click shows a real answer. */
function examples(state: PlatformState): Record<string, Record<string, string>> {
  const campaigns = Object.values(state.campaigns);
  const chat = campaigns.find((c) => c.type === 'messages') ?? campaigns[0];
  const outbound = campaigns.find((c) => c.type === 'outbound') ?? campaigns[0];
  const handoff = Object.entries(state.sessions).find(([, s]) => s.handoff && s.campaignId === chat?.id)?.[0] ?? '';
  return {
    send_customer_reply: {
      campaign: chat?.name ?? '',
      session_id: handoff,
      message: 'Your appointment is confirmed for Tuesday at 10:00.',
    },
    get_campaign_stats: { campaign: '' },
    list_bookings: { campaign: outbound?.name ?? '' },
  };
}

export class WorkflowRuns {
  /** Runs started from the page, oldest first, with who started them. */
  private readonly started: Array<{ id: string; by: string }> = [];

  constructor(
    private readonly slack: FakeSlack,
    private readonly definitions: readonly FunctionDefinition[],
  ) {}

  /** The declared steps with their fields, as Workflow Builder lists them. */
  steps(state: PlatformState): PageWorkflowStep[] {
    const seeded = examples(state);
    return this.definitions.map((d) => ({
      callbackId: d.callback_id,
      title: d.title,
      description: d.description ?? '',
      inputs: d.input_parameters.map((p) => ({
        name: p.name,
        title: p.title ?? p.name,
        description: p.description ?? '',
        kind: p.type === USER_CONTEXT_TYPE ? ('runner' as const) : ('text' as const),
        required: p.is_required === true,
        example: seeded[d.callback_id]?.[p.name] ?? '',
      })),
    }));
  }

  /**
   * Runs `callbackId` with the fields as the page filled them (empty ones left out), used by the person at the page
   * (Slack names them in the `user_context` inputs): a sentence when Workflow Builder would not have saved such a
   * workflow, else the signed event's answer.
   */
  async run(
    signer: SlackSigner,
    you: PlaygroundPerson,
    callbackId: string,
    fields: Record<string, string>,
  ): Promise<{ problem: string } | SignedResult> {
    const definition = this.definitions.find((d) => d.callback_id === callbackId);
    if (!definition) return { problem: `The app declares no workflow step ${callbackId}.` };
    const inputs: Record<string, string> = {};
    for (const p of definition.input_parameters) {
      if (p.type === USER_CONTEXT_TYPE) continue;
      const raw = (fields[p.name] ?? '').trim();
      if (raw !== '') inputs[p.name] = raw;
      else if (p.is_required)
        return { problem: `Workflow Builder saves this step only with its “${p.title ?? p.name}” set.` };
    }
    const sent = await signer.functionExecuted({ callbackId, inputs, user: you.id });
    this.started.push({ id: sent.executionId, by: you.name });
    return sent;
  }

  /** The latest runs, newest first, as the stand-in holds them now. */
  runs(): PageWorkflowRun[] {
    return this.started
      .slice(-RUNS_SHOWN)
      .reverse()
      .flatMap(({ id, by }) => {
        const run = this.slack.functionExecution(id);
        const definition = this.definitions.find((d) => d.callback_id === run?.callbackId);
        if (!run || !definition) return [];
        const titled = (params: FunctionDefinition['input_parameters'], values: Record<string, unknown>) =>
          params.flatMap((p) =>
            values[p.name] === undefined ? [] : [{ title: p.title ?? p.name, value: this.shown(values[p.name]) }],
          );
        return [
          {
            id: run.id,
            title: definition.title,
            by,
            inputs: titled(definition.input_parameters, run.inputs),
            state: run.state,
            ...(run.outputs ? { outputs: titled(definition.output_parameters, run.outputs) } : {}),
            ...(run.error !== undefined ? { error: run.error } : {}),
          },
        ];
      });
  }

  /** A value as the page shows it: a person (a user_context's id) as their @name, as Workflow Builder shows one. */
  private shown(value: unknown): string {
    if (typeof value === 'object' && value !== null && 'id' in value && typeof value.id === 'string') {
      const user = this.slack.user(value.id);
      return user?.name ? `@${user.name}` : value.id;
    }
    return typeof value === 'string' ? value : JSON.stringify(value);
  }
}
