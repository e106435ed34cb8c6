/**
 * `call_completed` → its card: the short one (one section — outcome, customer, duration, the summary's first
 * line, campaign and agent — with its Recording button, and a Details button that opens the full card) or the
 * full one (customer, number, email, campaign, agent, duration, status, ended reason, start/end as Slack dates,
 * the summary, a Recording button); separately, the transcript that goes into the card's thread: as a message
 * when it fits one section, as a text file when it does not — and what the recording says when the bot copies it
 * into that thread. A route's `notify:` puts a line mentioning them on top (a hot lead when its `summary:` words
 * were found).
 */
import { clockDuration } from '../../format/numbers.js';
import {
  LIMITS,
  actions,
  button,
  context,
  fields,
  message,
  section,
  type KnownBlock,
  type MessagePayload,
} from '../../slack/blocks.js';
import type { CallCompleted, CallStarted } from '../events.js';
import { mentionsOf } from '../mentions.js';
import { RECORDING_ACTION } from '../recording-button.js';
import {
  campaignLabel,
  code,
  customerLabel,
  customerPlain,
  dotted,
  escapeWithin,
  inline,
  orDash,
  when,
} from '../../slack/text.js';

/**
 * A completed call as a card shows it: `recording`, its Recording button's sealed value (`recording-button.ts`),
 * never the audio's own address; `details`, its Details button's sealed value (`call-details.ts`) — a call with
 * one gets the short card, whose button opens the full card.
 */
export type ShownCall = CallCompleted & { recording?: string | undefined; details?: string | undefined };

/** The short card's Details button (`call-details.ts` opens the full card). */
export const CALL_DETAILS_ACTION = 'call_details_open';

const SUMMARY_LABEL = '*Summary*\n';
const TRANSCRIPT_LABEL = '*Transcript*\n';
const SUMMARY_LINE_MAX = 200;

/** Duration in ms from whichever of durationMs / durationSeconds / durationMinutes was sent. */
export function callDurationMs(e: CallCompleted): number | undefined {
  if (e.durationMs !== undefined) return e.durationMs;
  if (e.durationSeconds !== undefined) return e.durationSeconds * 1000;
  if (e.durationMinutes !== undefined) return Math.round(e.durationMinutes * 60_000);
  return undefined;
}

/** Whom a call's post mentions (`notify:`), and the `summary:` words found in it (a hot lead). */
export interface PostMentions {
  notify: readonly string[];
  hot: readonly string[];
}

/**
 * The mark a finished call's post opens with, by its status: a failed call must not read as a success at a
 * glance. No status (the event says only that the call ended) reads as completed.
 */
export function callOutcomeIcon(status: string | undefined): string {
  const s = (status ?? 'completed').toLowerCase().replace(/[\s_]+/g, '-');
  if (/^(completed|success|successful|answered|ended)$/.test(s)) return '✅';
  if (/fail|error/.test(s)) return '❌';
  return '📵'; // no-answer, busy, voicemail, canceled…: the customer was not reached
}

/** The line on top of a call's post that mentions people, and the start of its fallback text (notifications). */
export function mentionLine(asks: PostMentions | undefined): { block: KnownBlock; text: string } | undefined {
  const who = mentionsOf(asks?.notify);
  if (!asks || !who) return undefined;
  const words = asks.hot.map((w) => `“${escapeWithin(w.replace(/[-_]+/g, ' '), 100)}”`).join(', ');
  const line = words ? `🔥 *Hot lead* for ${who} — the summary mentions ${words}` : `📣 For ${who}`;
  return { block: section(line), text: `${who} ${words ? '🔥 Hot lead: ' : ''}` };
}

export function renderCallCompleted(e: ShownCall, asks?: PostMentions): MessagePayload {
  const ms = callDurationMs(e);
  const duration = ms === undefined ? '—' : clockDuration(ms);
  const blocks = e.details
    ? [callSection(e), actions([button('Details', CALL_DETAILS_ACTION, { value: e.details })])]
    : fullCard(e, duration);
  const campaign = inline(e.campaignName, 60) ?? inline(e.campaignId, 60);
  const fallback = `Call completed with ${customerPlain(e)}${campaign ? ` — ${campaign}` : ''}${ms === undefined ? '' : ` (${duration})`}`;
  const mention = mentionLine(asks);
  return mention ? message(`${mention.text}${fallback}`, [mention.block, ...blocks]) : message(fallback, blocks);
}

function fullCard(e: ShownCall, duration: string): KnownBlock[] {
  const blocks: KnownBlock[] = [
    section(`${callOutcomeIcon(e.status)} *Call completed* with ${customerLabel(e)}`),
    fields([
      ['Customer', orDash(inline(e.customerName, 150))],
      ['Number', orDash(inline(e.customerNumber, 60))],
      ['Email', orDash(inline(e.customerEmail, 150))],
      ['Campaign', orDash(campaignLabel(e))],
      ['Agent', orDash(inline(e.agentName, 150))],
      ['Duration', duration],
      ['Status', orDash(inline(e.status, 100))],
      ['Ended reason', orDash(inline(e.endedReason, 150))],
      ['Started', orDash(when(e.startedAt))],
      ['Ended', orDash(when(e.endedAt))],
    ]),
  ];
  const summary = e.callSummary?.trim();
  if (summary)
    blocks.push(section(`${SUMMARY_LABEL}${escapeWithin(summary, LIMITS.sectionText - SUMMARY_LABEL.length)}`));
  if (e.recording) blocks.push(actions([button('▶️ Recording', RECORDING_ACTION, { value: e.recording })]));
  const transcript = e.callTranscript?.trim() ? 'transcript in the thread' : undefined;
  const meta = dotted(
    e.callId ? `call ${code(e.callId)}` : undefined,
    e.campaignId ? `campaign ${code(e.campaignId)}` : undefined,
    inline(e.campaignType, 40),
    transcript,
  );
  if (meta) blocks.push(context(meta));
  return blocks;
}

/** Where a call belongs, as its one-section forms say it: its id, its campaign's, its agent. */
export function callPlace(e: CallStarted | CallCompleted): string {
  return dotted(
    e.callId ? `call ${code(e.callId)}` : undefined,
    e.campaignId ? `campaign ${code(e.campaignId)}` : undefined,
    inline(e.agentName, 100),
  );
}

/**
 * A completed call as one section — a roll-up's line, and the short card: who and how it went, the summary's
 * first line, then where it belongs (in italics), with its Recording button.
 */
export function callSection(c: ShownCall): KnownBlock {
  const ms = callDurationMs(c);
  const outcome = inline(c.status, 100) ?? inline(c.endedReason, 100) ?? 'completed';
  const head = dotted(
    `${callOutcomeIcon(c.status)} ${customerLabel(c)}`,
    outcome,
    ms === undefined ? undefined : clockDuration(ms),
  );
  const meta = dotted(callPlace(c) || undefined, c.callTranscript?.trim() ? 'transcript in the thread' : undefined);
  return section(
    [head, firstLine(c.callSummary), meta ? `_${meta}_` : undefined].filter(Boolean).join('\n'),
    c.recording ? { accessory: button('▶️ Recording', RECORDING_ACTION, { value: c.recording }) } : {},
  );
}

function firstLine(text: string | undefined): string | undefined {
  const line = text
    ?.trim()
    .split(/\r?\n/)
    .find((l) => l.trim() !== '');
  return line === undefined ? undefined : escapeWithin(line.trim(), SUMMARY_LINE_MAX);
}

/** What the call's recording says when it is shared in the card's thread (Slack shows its player under it). */
export function renderRecordingShare(e: CallCompleted): { name: string; title: string; comment: string } {
  const ms = callDurationMs(e);
  return {
    // The file's name without its extension, which the recording's audio type decides.
    name: `recording-${fileId(e)}`,
    title: 'Call recording',
    comment: `🎧 Recording of this call${ms === undefined ? '' : ` (${clockDuration(ms)})`}`,
  };
}

function fileId(e: CallCompleted): string {
  return (e.callId ?? 'call').replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80);
}

export type TranscriptReply =
  | { kind: 'message'; payload: MessagePayload }
  | { kind: 'file'; filename: string; title: string; content: string; comment: string };

/** The transcript for the card's thread, or undefined when the call has none. */
export function renderTranscript(e: CallCompleted): TranscriptReply | undefined {
  const raw = e.callTranscript?.trim();
  if (!raw) return undefined;
  const escaped = escapeWithin(raw, Number.MAX_SAFE_INTEGER);
  if (TRANSCRIPT_LABEL.length + escaped.length <= LIMITS.sectionText) {
    return { kind: 'message', payload: message('Call transcript', [section(`${TRANSCRIPT_LABEL}${escaped}`)]) };
  }
  // A file holds the transcript verbatim: file contents are not mrkdwn, so nothing needs escaping.
  return {
    kind: 'file',
    filename: `transcript-${fileId(e)}.txt`,
    title: 'Call transcript',
    content: `${raw}\n`,
    comment: `Transcript of this call (${raw.length.toLocaleString('en-US')} characters — too long for a message, so here it is as a file).`,
  };
}
