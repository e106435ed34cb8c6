/**
 * A roll-up: the calls that waited for a channel that could not keep up with Slack's posting limit, in one
 * post. Per call: customer, outcome, duration, one summary line, the recording link; the transcripts go into
 * the roll-up's thread together (one message, or one text file when they do not fit a message).
 */
import { LIMITS, message, section, type KnownBlock, type MessagePayload } from '../../slack/blocks.js';
import type { CallCompleted, CallStarted } from '../events.js';
import { code, customerLabel, customerPlain, escapeWithin, inline } from '../../slack/text.js';
import { callOutcomeIcon, callPlace, callSection, type ShownCall, type TranscriptReply } from './call-completed.js';

export type RolledCall =
  { trigger: 'call_started'; data: CallStarted } | { trigger: 'call_completed'; data: ShownCall };

/** Calls in one roll-up post: a block each, plus the heading, within Slack's 50 blocks (with room to spare). */
export const ROLLUP_MAX_CALLS = 45;
/**
 * Text one roll-up (or its transcripts message) carries at most. Slack refuses a message whose blocks hold too
 * much text altogether (`msg_blocks_too_long`) at a limit it does not publish; reports put it near 12,000.
 */
const MAX_MESSAGE_TEXT = 11_000;
const TRANSCRIPT_LABEL = '*Transcripts*';

/**
 * The calls to show: a call that both started and completed while waiting shows once, as completed.
 * Order is kept (oldest first).
 */
export function callsToShow(calls: readonly RolledCall[]): RolledCall[] {
  const completed = new Set(
    calls.flatMap((c) => (c.trigger === 'call_completed' && c.data.callId ? [c.data.callId] : [])),
  );
  return calls.filter((c) => c.trigger === 'call_completed' || !c.data.callId || !completed.has(c.data.callId));
}

/** One section per call: a completed one as `callSection` shows it, one still going as in progress. */
function callBlock(call: RolledCall): KnownBlock {
  if (call.trigger === 'call_completed') return callSection(call.data);
  return section([`📞 ${customerLabel(call.data)} · in progress`, callPlace(call.data)].filter(Boolean).join('\n'));
}

/** How many of the oldest `calls` one roll-up post can carry (at least 2, at most ROLLUP_MAX_CALLS). */
export function rollupFits(calls: readonly RolledCall[]): number {
  let text = 200;
  let n = 0;
  for (const call of calls.slice(0, ROLLUP_MAX_CALLS)) {
    const block = callBlock(call);
    text += block.type === 'section' ? (block.text?.text.length ?? 0) : 0;
    if (n >= 2 && text > MAX_MESSAGE_TEXT) break;
    n++;
  }
  return n;
}

/** How many outcomes a heading names, `other` included. */
const HEADING_OUTCOMES = 6;

/**
 * The calls counted by how they went, as their lines name it: a completed call by its status — `completed` for
 * one the card marks ✅ (`callOutcomeIcon`), otherwise its own words (`failed`, `busy`, `no answer`) — and a call
 * still going as `in progress`. Completed first, then the most frequent; in progress last.
 */
function outcomeCounts(calls: readonly RolledCall[]): Array<{ outcome: string; count: number }> {
  const counts = new Map<string, number>();
  let inProgress = 0;
  for (const call of calls) {
    if (call.trigger === 'call_started') {
      inProgress++;
      continue;
    }
    const status = call.data.status;
    const outcome =
      callOutcomeIcon(status) === '✅'
        ? 'completed'
        : (inline(status?.replace(/[-_\s]+/g, ' ').toLowerCase(), 40) ?? 'other');
    counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
  }
  const ended = [...counts]
    .map(([outcome, count]) => ({ outcome, count }))
    .sort((a, b) => Number(b.outcome === 'completed') - Number(a.outcome === 'completed') || b.count - a.count);
  // Platform statuses are open-ended: past a few, the rest (and calls with no words for it) are `other`.
  const shown = ended.filter((o) => o.outcome !== 'other').slice(0, HEADING_OUTCOMES - 1);
  const others = ended.reduce((n, o) => n + o.count, 0) - shown.reduce((n, o) => n + o.count, 0);
  return [
    ...shown,
    ...(others > 0 ? [{ outcome: 'other', count: others }] : []),
    ...(inProgress > 0 ? [{ outcome: 'in progress', count: inProgress }] : []),
  ];
}

/** One roll-up post of at most ROLLUP_MAX_CALLS calls (a longer backlog takes the next post too). */
export function renderRollup(calls: readonly RolledCall[]): MessagePayload {
  const counts = outcomeCounts(calls)
    .map(({ outcome, count }) => `${count} ${outcome}`)
    .join(', ');
  const total = `${calls.length} call${calls.length === 1 ? '' : 's'}`;
  const blocks: KnownBlock[] = [
    section(`🗂️ *${total}: ${counts}* — they came in faster than Slack lets this channel show them one by one`),
  ];
  for (const call of calls.slice(0, ROLLUP_MAX_CALLS)) blocks.push(callBlock(call));
  const names = calls
    .slice(0, 5)
    .map((c) => customerPlain(c.data))
    .join(', ');
  return message(
    `${total} (${counts}): ${names}${calls.length > 5 ? ', …' : ''}`,
    blocks.slice(0, LIMITS.blocksPerMessage),
  );
}

/** The transcripts of a roll-up's completed calls, for its thread; undefined when none has one. */
export function renderRollupTranscripts(calls: readonly RolledCall[]): TranscriptReply | undefined {
  const withText = calls.flatMap((c) =>
    c.trigger === 'call_completed' && c.data.callTranscript?.trim() ? [c.data] : [],
  );
  if (withText.length === 0) return undefined;
  // customerPlain and code() escape already; the file below is plain text and gets the values as sent.
  const heading = (e: CallCompleted) => `*${customerPlain(e)}*${e.callId ? ` (call ${code(e.callId)})` : ''}`;
  const title = (e: CallCompleted) => {
    const who =
      e.customerName && e.customerNumber
        ? `${e.customerName} (${e.customerNumber})`
        : (e.customerName ?? e.customerNumber ?? 'unknown customer');
    return `${who}${e.callId ? ` (call ${e.callId})` : ''}`;
  };
  const sections = withText.map(
    (e) => `${heading(e)}\n${escapeWithin(e.callTranscript!.trim(), Number.MAX_SAFE_INTEGER)}`,
  );
  const fits =
    sections.every((s) => s.length <= LIMITS.sectionText) &&
    sections.length + 1 <= LIMITS.blocksPerMessage &&
    sections.reduce((n, s) => n + s.length, 0) <= MAX_MESSAGE_TEXT;
  if (fits) {
    return {
      kind: 'message',
      payload: message('Call transcripts', [section(TRANSCRIPT_LABEL), ...sections.map((s) => section(s))]),
    };
  }
  // A file holds the transcripts verbatim: file contents are not mrkdwn, so nothing needs escaping.
  const content = withText.map((e) => `== ${title(e)} ==\n${e.callTranscript!.trim()}\n`).join('\n');
  return {
    kind: 'file',
    filename: 'transcripts.txt',
    title: 'Call transcripts',
    content,
    comment: `Transcripts of the ${withText.length} calls above, as a file (too long for a message).`,
  };
}
