/**
 * A form whose answer can't come within Slack's 3 s: its check waits out a rate-limited users.info
 * (https://api.slack.com/surfaces/modals#interactions: a view submission is answered "within 3 seconds").
 */
import { expect } from 'vitest';
import type { SlackCall } from '../fakes/slack.js';
import type { Harness } from './harness.js';

/**
 * Submits the form shown in `viewId`; the bot must answer in time by updating the view to “Working on it”
 * (shown in the stand-in as Slack would). Resolves with the views.update that follows once the check is over.
 */
export async function submitSlowForm(
  h: Harness,
  viewId: string,
  submission: { callbackId: string; userId: string; values: Record<string, Record<string, unknown>> },
): Promise<SlackCall> {
  const res = await h.signer.viewSubmission(submission);
  expect(res.status).toBe(200);
  expect(res.timedOut).toBe(false);
  const ack = res.json as { response_action: string; view: Record<string, unknown> };
  expect(ack.response_action).toBe('update');
  expect(JSON.stringify(ack.view)).toContain('Working on it');
  expect(h.slack.replaceView(viewId, ack.view).ok).toBe(true);
  const update = await h.slack.waitFor(
    () => h.slack.callsTo('views.update').find((c) => c.args.view_id === viewId),
    10_000,
  );
  expect(update.response.ok).toBe(true);
  return update;
}
