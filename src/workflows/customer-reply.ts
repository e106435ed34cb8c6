/**
 * `send_customer_reply`: a message to a customer in a handed-off chat session, sent with the workspace's platform
 * key through send-human-response (docs/PLATFORM-API.md), like a reply in a handoff thread. The platform refuses
 * a session that is stale, closed or not handed off (400): the run fails with the sentence saying so. The reply
 * goes as the person who used the workflow (Slack's `user_context`, never a person a builder picked), who must be
 * an active full member — as in handoff threads — and is signed with their `/campaign agent-link` agent.
 */
import { z } from 'zod';
import { chooseCampaign } from '../commands/campaign-ref.js';
import type { Refusal } from '../app/membership.js';
import { CAMPAIGN_MAX, RUN_BY, requiredText, userContext } from './inputs.js';
import { defineStep } from './step.js';

export const SEND_CUSTOMER_REPLY = 'send_customer_reply';

/** A Slack retry of the same run must not send the customer the message twice: one claim per run, kept a day. */
const RUN_CLAIM_MS = 24 * 60 * 60_000;

export const sendCustomerReply = defineStep({
  callbackId: SEND_CUSTOMER_REPLY,
  schema: z.object({
    campaign: requiredText(CAMPAIGN_MAX),
    session_id: requiredText(200),
    // Slack's own bound on a message's text; the platform documents none.
    message: requiredText(40_000),
    [RUN_BY]: userContext,
  }),
  titles: { campaign: 'Campaign', session_id: 'Session id', message: 'Message', [RUN_BY]: 'Sent by' },
  wording: {
    byStatus: {
      400: 'The platform refused the reply: this chat session is stale, closed or not handed off to a human agent — give the step the customer’s current handed-off session.',
    },
  },
  async run(ctx, inputs) {
    const { deps, ws } = ctx;
    // Replies reach customers from active full members only, as in handoff threads.
    const refusal = await deps.members.refusal(ctx.slack, ws, inputs.run_by.id);
    if (refusal !== undefined) return { kind: 'refused', sentence: senderRefusal(refusal) };
    const choice = await chooseCampaign(deps, ws.teamId, inputs.campaign);
    if (!choice.ok) return { kind: 'refused', sentence: choice.sentence };
    const agentId = await deps.store.agentLinks.get(ws.teamId, inputs.run_by.id);
    if (!(await deps.store.dedup.markOnce(ws.teamId, 'workflow-reply', ctx.executionId, RUN_CLAIM_MS)))
      return { kind: 'duplicate' };
    await ctx.platform.chat.sendHumanResponse(choice.target.id, {
      sessionId: inputs.session_id,
      message: inputs.message,
      ...(agentId !== undefined ? { agentId } : {}),
    });
    ctx.logger.info(
      { campaignId: choice.target.id, user: inputs.run_by.id, agentId },
      'customer reply sent from a workflow step',
    );
    return { kind: 'done', outputs: { sent: true } };
  },
});

/** Why the person who used the workflow can't send this reply, in one sentence Slackbot shows them. */
function senderRefusal(refusal: Refusal): string {
  return refusal === 'unknown'
    ? 'Slack could not confirm just now that you are a full member of this workspace, so the reply was not sent — run the workflow again in a minute.'
    : 'This step sends the reply as the person who used the workflow, and only active full members of this workspace can answer customers — ask a member to run it.';
}
