/**
 * A short call card's **Details** button: the full card, in a modal. The button carries the call's fields as its
 * channel may see them (masked where guests or another organisation read along), sealed like the Recording
 * button (AES-256-GCM with the store's secrets key, bound to the workspace: a card's blocks are readable through
 * Slack's API by anyone in the channel). A press needs nothing but its own value — no memory, no store, no
 * platform call (the platform has no call to read back) — so it works after a restart, on any replica, and
 * answers within the 3 s a trigger_id lasts (https://docs.slack.dev/reference/methods/views.open).
 */
import type { App } from '@slack/bolt';
import type { KnownBlock as ModalBlock } from '@slack/types';
import type { Deps } from '../app/deps.js';
import { LIMITS, context as contextLine, section, truncate } from '../slack/blocks.js';
import { modal } from '../slack/modals.js';
import { slackErrorCode } from '../slack/post.js';
import { code } from '../slack/text.js';
import type { SecretBox } from '../store/index.js';
import { parseEvent, type CallCompleted } from './events.js';
import { onSealedButton } from './sealed-button.js';
import { CALL_DETAILS_ACTION, callDurationMs, renderCallCompleted } from './render/call-completed.js';

const bound = (teamId: string) => `call-details:${teamId}`;
/** What the full card shows but the short one may not; the transcript stays in the thread. */
const FIELDS = [
  'customerName',
  'customerNumber',
  'customerEmail',
  'campaignName',
  'campaignId',
  'campaignType',
  'agentName',
  'status',
  'endedReason',
  'startedAt',
  'endedAt',
  'callId',
] as const;
/** Each field at most: more than any the full card shows (150). */
const FIELD_MAX = 200;

/**
 * The Details button's value for a call of `teamId`, its fields as the channel may see them: the summary is cut
 * to what fits Slack's 2,000 characters of a button value; undefined when the rest does not fit either.
 */
export function sealCallDetails(secrets: SecretBox, teamId: string, call: CallCompleted): string | undefined {
  const fields: Record<string, string | number> = {};
  for (const key of FIELDS) {
    const value = call[key];
    if (value) fields[key] = truncate(value, FIELD_MAX);
  }
  const ms = callDurationMs(call);
  if (ms !== undefined) fields.durationMs = ms;
  // That there is one, for the card's "transcript in the thread"; its words are in the thread.
  if (call.callTranscript?.trim()) fields.callTranscript = '…';
  let summary = call.callSummary?.trim();
  for (;;) {
    const sealed = secrets.seal(JSON.stringify(summary ? { ...fields, callSummary: summary } : fields), bound(teamId));
    if (sealed.length <= LIMITS.buttonValue) return sealed;
    if (!summary) return undefined;
    // A sealed value is about 4/3 of its bytes: the summary gives up the excess, and a little more.
    const keep = summary.length - Math.ceil(((sealed.length - LIMITS.buttonValue) * 3) / 4) - 8;
    summary = keep > 20 ? truncate(summary, keep) : undefined;
  }
}

function callOf(opened: string | undefined): CallCompleted | undefined {
  try {
    const parsed = parseEvent(JSON.parse(opened ?? ''), 'call_completed');
    return parsed.ok && parsed.event.known && parsed.event.trigger === 'call_completed' ? parsed.event.data : undefined;
  } catch {
    return undefined;
  }
}

export function registerCallDetails(app: App, deps: Pick<Deps, 'store' | 'logger'>): void {
  onSealedButton(app, deps, CALL_DETAILS_ACTION, bound, async ({ ws, body, client, opened, answer }) => {
    const call = callOf(opened);
    if (!call) {
      await answer(
        'This Details button no longer opens (it was sealed with a key the bot does not have any more); the call is still on the campaign platform.',
      );
      return;
    }
    // A call card has no chart block, the one kind a modal does not take.
    const blocks = renderCallCompleted(call).blocks as ModalBlock[];
    try {
      await client.views.open({
        trigger_id: body.trigger_id,
        view: modal({ callbackId: 'call_details', title: 'Call details', blocks }),
      });
    } catch (err) {
      const why = slackErrorCode(err) ?? 'no answer';
      deps.logger.info({ team: ws.teamId, user: body.user.id, code: why }, 'call details did not open');
      const text = 'Slack did not open the call’s details — press *Details* again.';
      await answer(text, [section(text), contextLine(`Slack answered ${code(why)}`)]);
    }
  });
}
