/**
 * What every workflow step shares: its inputs checked with zod, the workspace's platform key (a workspace
 * without one is told to `/campaign connect`), and exactly one ending — functions.completeSuccess with the
 * declared outputs, or functions.completeError with one sentence (Slackbot shows it to the person running the
 * workflow). https://api.slack.com/automation/functions/custom-bolt,
 * https://docs.slack.dev/reference/methods/functions.completeError
 *
 * The ending is tried at once (the person running the workflow waits for it) and judged as every call is
 * (`SlackPace.judge`, src/delivery/slack-errors.ts): refused with a 429, an `ok:false` that time heals, or while
 * Slack is down, it waits in the workspace's outbox and is sent on the road (the workspace's bot token: these
 * methods take one) — never dropped, or the run would hang in Workflow Builder though its work was done.
 */
import type { WebClient } from '@slack/web-api';
import type { z } from 'zod';
import type { Deps } from '../app/deps.js';
import { failureOf, failureText, logFailure, type FailureWording } from '../app/failure.js';
import type { Workspace } from '../app/membership.js';
import type { CampaignClient } from '../api/index.js';
import type { Logger } from '../logger.js';
import { healsWithTime } from '../delivery/slack-errors.js';

export type Outputs = Record<string, string | number | boolean>;

/** Where a workspace's workflow endings wait for Slack: an outbox of their own, not any channel's. */
const ENDINGS = 'workflow-endings';
const ENDING = 'workflow-ending';

/** A step's ending waiting for Slack: its outputs, or the sentence the person reads. */
interface Ending {
  executionId: string;
  outputs?: Outputs;
  error?: string;
}

/** How a waiting ending is sent when its turn comes (registered once). */
export function registerEndings(deps: Deps): void {
  const logger = deps.logger.child({ component: 'workflows' });
  deps.bulk.on(ENDING, {
    post: async (_at, body, slack) => {
      const { executionId, outputs, error } = body as Ending;
      const args = { function_execution_id: executionId };
      try {
        await (outputs
          ? slack.client.functions.completeSuccess({ ...args, outputs })
          : slack.client.functions.completeError({ ...args, error: error ?? '' }));
        logger.info({ execution: executionId }, 'workflow step ended (its ending had waited for Slack)');
      } catch (err) {
        const verdict = deps.pace.judge(err).class;
        if (healsWithTime(verdict)) throw err; // its turn comes again
        // Refused: ended already (the first try's answer was lost) or timed out; Workflow Builder shows Slack's state.
        logger.warn({ err, execution: executionId }, 'Slack did not take the workflow step’s ending');
      }
    },
  });
}

export type StepResult =
  | { kind: 'done'; outputs: Outputs }
  /** What the person reads: one sentence, what happened and what to do. */
  | { kind: 'refused'; sentence: string }
  /** A Slack retry of a run another delivery is carrying out: it ends that run, this one does nothing. */
  | { kind: 'duplicate' };

export interface StepContext {
  deps: Deps;
  ws: Workspace;
  /** The platform client bound to the workspace's stored key. */
  platform: CampaignClient;
  /** Bolt's client for this run (its workflow token, through the paced fetch). */
  slack: WebClient;
  executionId: string;
  logger: Logger;
}

export interface WorkflowStep {
  callbackId: string;
  /** How the platform's refusals this step expects are worded (the others: `failureOf`'s sentences). */
  wording: FailureWording;
  run(ctx: StepContext, inputs: unknown): Promise<StepResult>;
}

/**
 * A step whose inputs must fit `schema`; `titles` names each input as Workflow Builder shows it, for the
 * sentence about a bad one; `wording` words the platform's refusals this step expects.
 */
export function defineStep<S extends z.ZodType>(spec: {
  callbackId: string;
  schema: S;
  titles: Record<string, string>;
  wording?: FailureWording;
  run(ctx: StepContext, inputs: z.infer<S>): Promise<StepResult>;
}): WorkflowStep {
  return {
    callbackId: spec.callbackId,
    wording: spec.wording ?? {},
    async run(ctx, raw) {
      const parsed = spec.schema.safeParse(raw);
      if (!parsed.success) return { kind: 'refused', sentence: inputProblem(parsed.error, spec.titles) };
      return spec.run(ctx, parsed.data);
    },
  };
}

function inputProblem(error: z.ZodError, titles: Record<string, string>): string {
  const issue = error.issues[0];
  const name = String(issue?.path[0] ?? '');
  const title = titles[name] ?? name;
  if (issue?.code === 'too_big')
    return `This step’s “${title}” is too long (at most ${String(issue.maximum)} characters) — shorten it in the workflow.`;
  return `This step’s “${title}” is missing or not valid — set it where the workflow sets up this step.`;
}

/** One run, start to end: the workspace's key, the step, then its one completion (never a throw into Bolt). */
export async function runStep(
  step: WorkflowStep,
  deps: Deps,
  run: {
    ws: Workspace;
    slack: WebClient;
    executionId: string;
    inputs: unknown;
    complete: (outputs: Outputs) => Promise<unknown>;
    fail: (error: string) => Promise<unknown>;
  },
): Promise<void> {
  const logger = deps.logger.child({ component: 'workflows', step: step.callbackId, execution: run.executionId });
  let result: StepResult;
  try {
    const platform = await deps.platform.clientFor(run.ws.teamId);
    result = await step.run(
      { deps, ws: run.ws, platform, slack: run.slack, executionId: run.executionId, logger },
      run.inputs,
    );
  } catch (err) {
    logFailure(logger, err, { team: run.ws.teamId }, 'workflow step failed');
    result = { kind: 'refused', sentence: failureText(failureOf(err, step.wording)) };
  }
  if (result.kind === 'duplicate') {
    logger.info('a repeated delivery of a step run already under way: left to the first');
    return;
  }
  try {
    await (result.kind === 'done' ? run.complete(result.outputs) : run.fail(result.sentence));
    return logger.info({ outcome: result.kind === 'done' ? 'completed' : 'failed' }, 'workflow step ended');
  } catch (err) {
    const verdict = deps.pace.judge(err).class;
    // Slack refused the ending (the run ended or timed out already): the workflow shows Slack's own error.
    if (!healsWithTime(verdict)) return logger.warn({ err }, 'Slack did not take the workflow step’s ending');
    // Nothing was done, or Slack may have done it (a second ending is refused, and logged).
    const ending: Ending =
      result.kind === 'done'
        ? { executionId: run.executionId, outputs: result.outputs }
        : { executionId: run.executionId, error: result.sentence };
    const report = { key: run.executionId, order: Date.now(), lane: 'urgent' as const };
    await deps.bulk
      .add({ teamId: run.ws.teamId, channelId: ENDINGS }, ENDING, report, ending)
      .then(() => logger.warn({ err }, 'the workflow step’s ending waits for Slack'))
      .catch((stored: unknown) => logger.error({ err, stored }, 'the workflow step’s ending could not be kept'));
  }
}
