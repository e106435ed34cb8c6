/**
 * Workflow Builder steps (Slack's custom functions, declared under `functions:` in manifest.yml): each acts as
 * the workspace's connection to the platform, with its stored key. Bolt acknowledges `function_executed` before
 * the listener runs (https://api.slack.com/automation/functions/custom-bolt) and hands it `complete` /
 * `fail`, which call functions.completeSuccess / completeError with the run's workflow token through the
 * app's paced client. What each step does and who may use it: docs/WORKFLOWS.md.
 */
import type { App } from '@slack/bolt';
import type { Deps } from '../app/deps.js';
import { listBookings } from './bookings-list.js';
import { getCampaignStats } from './campaign-stats.js';
import { sendCustomerReply } from './customer-reply.js';
import { registerEndings, runStep } from './step.js';

const STEPS = [sendCustomerReply, getCampaignStats, listBookings];

export function register(app: App, deps: Deps): void {
  registerEndings(deps);
  for (const step of STEPS) {
    app.function(step.callbackId, async ({ inputs, complete, fail, client, context, body, event }) => {
      await runStep(step, deps, {
        // An org-wide install names the workspace the workflow runs in only in the envelope.
        ws: { teamId: context.teamId ?? body.team_id, enterpriseId: context.enterpriseId },
        slack: client,
        executionId: event.function_execution_id,
        inputs,
        complete: (outputs) => complete({ outputs }),
        fail: (error) => fail({ error }),
      });
    });
  }
}
