/**
 * Every renderer against a full and a minimal payload, compared with golden Block Kit JSON
 * (test/events/golden/; `npx vitest run -u test/events/render.test.ts` rewrites them after a deliberate change).
 */
import { describe, expect, it } from 'vitest';
import { parseEvent, type KnownEvent } from '../../src/events/events.js';
import {
  SAMPLE_MARKER_BLOCK,
  markAsSample,
  renderAgentLine,
  renderCustomerLine,
  renderCallCompleted,
  renderEvent,
  renderTranscript,
} from '../../src/events/render/index.js';
import { renderEndReply, renderEndedIncident, renderIncident } from '../../src/events/render/outcome-alert.js';
import {
  LINK_SESSION_ACTION,
  SWITCH_SESSION_ACTION,
  REPORTED_SESSION_BLOCK,
  renderConversationCard,
  renderReopenedLine,
  renderSessionClosedLine,
  type ConversationCard,
} from '../../src/handoff/card.js';
import { LIMITS } from '../../src/slack/blocks.js';
import { RECORDING_ACTION, sealRecording } from '../../src/events/recording-button.js';
import { sealCallDetails } from '../../src/events/call-details.js';
import { CALL_DETAILS_ACTION } from '../../src/events/render/call-completed.js';
import { SecretBox } from '../../src/store/index.js';
import { findAction, findBlock, textOf } from '../support/blocks.js';
import {
  CALL_COMPLETED_FULL,
  CALL_COMPLETED_MINIMAL,
  CALL_STARTED_FULL,
  CALL_STARTED_MINIMAL,
  INJECTION,
  MESSAGE_RECEIVED_FULL,
  MESSAGE_RECEIVED_MINIMAL,
  MESSAGE_SENT_FULL,
  MESSAGE_SENT_MINIMAL,
  SESSION_COMPLETED_FULL,
  SESSION_COMPLETED_MINIMAL,
  FORMATTING_NAME,
  injectedMarkup,
} from './fixtures.js';

function known(payload: unknown, expected: KnownEvent['trigger']): KnownEvent {
  const parsed = parseEvent(JSON.parse(JSON.stringify(payload)));
  if (!parsed.ok) throw new Error(parsed.problem);
  if (!parsed.event.known) throw new Error(`not a known event: ${parsed.event.trigger}`);
  expect(parsed.event.trigger).toBe(expected);
  return parsed.event;
}

const cases = [
  ['call_started', 'full', CALL_STARTED_FULL],
  ['call_started', 'minimal', CALL_STARTED_MINIMAL],
  ['call_completed', 'full', CALL_COMPLETED_FULL],
  ['call_completed', 'minimal', CALL_COMPLETED_MINIMAL],
  ['message_received', 'full', MESSAGE_RECEIVED_FULL],
  ['message_received', 'minimal', MESSAGE_RECEIVED_MINIMAL],
  ['message_sent', 'full', MESSAGE_SENT_FULL],
  ['message_sent', 'minimal', MESSAGE_SENT_MINIMAL],
  ['message_session_completed', 'full', SESSION_COMPLETED_FULL],
  ['message_session_completed', 'minimal', SESSION_COMPLETED_MINIMAL],
] as const;

describe.each(cases)('%s (%s payload)', (trigger, kind, payload) => {
  const event = known(payload, trigger);
  const rendered = renderEvent(event);
  const json = JSON.stringify(rendered, null, 2);

  it('matches its golden Block Kit JSON', async () => {
    await expect(`${json}\n`).toMatchFileSnapshot(`./golden/${trigger}.${kind}.json`);
  });

  it('escapes platform text: no injected mention or link survives', () => {
    expect(injectedMarkup(json)).toEqual([]);
    if (kind === 'full' && JSON.stringify(payload).includes('<!channel>')) expect(json).toContain('&lt;!channel&gt;');
  });

  it('stays within Slack limits and has fallback text', () => {
    expect(rendered.text.length).toBeGreaterThan(0);
    expect(rendered.text.length).toBeLessThanOrEqual(LIMITS.fallbackText);
    expect(rendered.blocks.length).toBeLessThanOrEqual(LIMITS.blocksPerMessage);
    for (const b of rendered.blocks) {
      if (b.type === 'section' && b.text) expect(b.text.text.length).toBeLessThanOrEqual(LIMITS.sectionText);
    }
  });
});

describe('reading a delivery’s fields', () => {
  it('reads null as missing, numeric strings as numbers, and refuses a documented field of the wrong type', () => {
    const withNulls = parseEvent({
      ...CALL_COMPLETED_MINIMAL,
      customerName: null,
      durationMs: '154250',
      audioUrl: null,
    });
    expect(withNulls).toMatchObject({ ok: true, event: { known: true, trigger: 'call_completed' } });
    if (!withNulls.ok) throw new Error(withNulls.problem);
    expect(withNulls.event.data).not.toHaveProperty('customerName');
    expect(withNulls.event.data).not.toHaveProperty('audioUrl');
    expect(withNulls.event.data).toMatchObject({ durationMs: 154_250 });
    // The same as leaving the fields out: the card renders the same.
    const without = known({ ...CALL_COMPLETED_MINIMAL, durationMs: 154_250 }, 'call_completed');
    expect(renderEvent(withNulls.event as KnownEvent)).toEqual(renderEvent(without));

    expect(parseEvent({ ...CALL_COMPLETED_MINIMAL, durationMs: 'two minutes' })).toEqual({
      ok: false,
      problem: expect.stringContaining('durationMs') as string,
    });
    expect(parseEvent({ ...CALL_COMPLETED_MINIMAL, callId: 42 })).toEqual({
      ok: false,
      problem: expect.stringContaining('callId') as string,
    });
  });
});

describe('call_completed details', () => {
  const full = known(CALL_COMPLETED_FULL, 'call_completed');

  it('shows mm:ss from durationMs, Slack dates, and a Recording button that carries no address', () => {
    const rendered = renderEvent(full, undefined, { recording: 'v1.sealed' });
    const json = JSON.stringify(rendered);
    expect(textOf(rendered.blocks)).toContain('02:34');
    expect(textOf(rendered.blocks)).toContain('<!date^1709915915^');
    expect(findAction(rendered.blocks, RECORDING_ACTION)).toMatchObject({ value: 'v1.sealed' });
    expect(findAction(rendered.blocks, RECORDING_ACTION)?.url).toBeUndefined();
    expect(json).not.toContain('recordings.example.com');
    expect(json).not.toContain('somethingNew');
  });

  it('is one short section and a Details button when it carries one, the full card behind it', async () => {
    const short = renderEvent(full, undefined, { recording: 'v1.sealed-recording', details: 'v1.sealed-details' });
    const json = JSON.stringify(short, null, 2);
    await expect(`${json}\n`).toMatchFileSnapshot('./golden/call_completed.short.json');
    expect(injectedMarkup(json)).toEqual([]);
    expect(short.blocks.map((b) => b.type)).toEqual(['section', 'actions']);
    expect(findAction(short.blocks, RECORDING_ACTION)).toMatchObject({ value: 'v1.sealed-recording' });
    expect(findAction(short.blocks, CALL_DETAILS_ACTION)).toMatchObject({ value: 'v1.sealed-details' });
    // The same notification as the full card's.
    expect(short.text).toBe(renderEvent(full).text);
    const minimal = renderEvent(known(CALL_COMPLETED_MINIMAL, 'call_completed'), undefined, { details: 'v1.d' });
    await expect(`${JSON.stringify(minimal, null, 2)}\n`).toMatchFileSnapshot(
      './golden/call_completed.short_minimal.json',
    );
  });

  it('seals the full card into the Details button within Slack’s 2,000 characters, for its workspace alone', () => {
    const box = SecretBox.ephemeral();
    const long = known(
      { ...CALL_COMPLETED_FULL, callSummary: `${'A long summary. '.repeat(300)}😀` },
      'call_completed',
    );
    if (long.trigger !== 'call_completed') throw new Error('not a completed call');
    const sealed = sealCallDetails(box, 'T0ONE', long.data)!;
    expect(sealed.length).toBeLessThanOrEqual(LIMITS.buttonValue);
    const opened = JSON.parse(box.open(sealed, 'call-details:T0ONE')) as Record<string, unknown>;
    expect(opened).toMatchObject({ customerEmail: CALL_COMPLETED_FULL.customerEmail, durationMs: 154_250 });
    expect(String(opened.callSummary)).toMatch(/^A long summary\. .*…$/);
    // The transcript's words stay in the thread; the recording's address never goes into a button.
    expect(opened.callTranscript).toBe('…');
    expect(JSON.stringify(opened)).not.toContain('recordings.example.com');
    expect(() => box.open(sealed, 'call-details:T0TWO')).toThrow();
    // A call whose fields alone would not fit gets no Details button (so its full card is posted).
    const huge = Object.fromEntries(
      ['customerName', 'customerEmail', 'campaignName', 'agentName', 'status', 'endedReason', 'callId'].map((k) => [
        k,
        '😀'.repeat(200),
      ]),
    );
    expect(sealCallDetails(box, 'T0ONE', { ...long.data, ...huge })).toBeUndefined();
  });

  it('opens with ❌ for a failed call and 📵 for one that did not reach the customer, ✅ only when completed', () => {
    const head = (status: string) =>
      textOf(renderEvent(known({ ...CALL_COMPLETED_FULL, status }, 'call_completed')).blocks);
    expect(head('failed')).toContain('❌ *Call completed*');
    expect(head('no_answer')).toContain('📵 *Call completed*');
    expect(head('completed')).toContain('✅ *Call completed*');
  });

  it('seals an https audioUrl for its workspace alone, and leaves the Recording button out for any other', () => {
    const box = SecretBox.ephemeral();
    const sealed = sealRecording(box, 'T0ONE', CALL_COMPLETED_FULL.audioUrl)!;
    expect(sealed).not.toContain('recordings');
    expect(box.open(sealed, 'call-recording:T0ONE')).toBe(CALL_COMPLETED_FULL.audioUrl);
    expect(() => box.open(sealed, 'call-recording:T0TWO')).toThrow();
    for (const audioUrl of ['http://recordings.example.com/a.mp3', 'javascript:alert(1)', 'not a url'])
      expect(sealRecording(box, 'T0ONE', audioUrl)).toBeUndefined();
  });

  it('falls back to durationSeconds when durationMs is missing', () => {
    const { durationMs: _ms, ...rest } = CALL_COMPLETED_FULL;
    expect(JSON.stringify(renderEvent(known(rest, 'call_completed')))).toContain('02:34');
  });

  it('puts a short transcript in a thread message, escaped', async () => {
    const reply = renderTranscript(full.trigger === 'call_completed' ? full.data : (undefined as never));
    expect(reply?.kind).toBe('message');
    const json = JSON.stringify(reply, null, 2);
    expect(injectedMarkup(json)).toEqual([]);
    await expect(`${json}\n`).toMatchFileSnapshot('./golden/call_completed.transcript.json');
  });

  it('turns a transcript over the section limit into a verbatim file', () => {
    const long = `${'Customer: I have a question about my bill. '.repeat(100)}${INJECTION}`;
    const event = known({ ...CALL_COMPLETED_FULL, callTranscript: long }, 'call_completed');
    const reply = event.trigger === 'call_completed' ? renderTranscript(event.data) : undefined;
    expect(reply).toMatchObject({ kind: 'file', filename: 'transcript-call-0001.txt' });
    if (reply?.kind === 'file') {
      expect(reply.content).toBe(`${long.trim()}\n`); // files are not mrkdwn: kept verbatim
      expect(injectedMarkup(reply.comment)).toEqual([]);
    }
  });

  it('has no transcript reply when the call has none', () => {
    const minimal = known(CALL_COMPLETED_MINIMAL, 'call_completed');
    expect(minimal.trigger === 'call_completed' && renderTranscript(minimal.data)).toBeUndefined();
  });
});

describe('samples', () => {
  it('are the real rendering plus a sample marker', () => {
    const real = renderEvent(known(CALL_COMPLETED_FULL, 'call_completed'));
    const marked = markAsSample(real, 'call_completed');
    expect(marked.blocks.slice(1)).toEqual(real.blocks);
    expect(marked.blocks[0]).toBe(findBlock(marked.blocks, SAMPLE_MARKER_BLOCK));
    expect(textOf(marked.blocks[0])).toContain('Sample');
    expect(marked.text).toBe(`[Sample] ${real.text}`);
  });
});

describe('handoff threads', () => {
  const received = known(MESSAGE_RECEIVED_FULL, 'message_received');
  const sent = known(MESSAGE_SENT_FULL, 'message_sent');
  const closing = known(SESSION_COMPLETED_FULL, 'message_session_completed');
  const card = (over: Partial<ConversationCard> = {}): ConversationCard => ({
    campaignId: 'camp-chat',
    customerNumber: '+14155550199',
    facts: {
      customerName: `Noah ${INJECTION}`,
      campaignName: 'Chat Support',
      agentName: 'Sam',
      campaignType: 'messages',
    },
    state: 'open',
    ...over,
  });

  const goldens = [
    ['conversation_card.open', () => renderConversationCard(card())],
    ['conversation_card.linked', () => renderConversationCard(card({ sessionId: 'sess-handoff-1' }))],
    ['conversation_card.closed', () => renderConversationCard(card({ state: 'closed' }))],
    ['conversation_card.minimal', () => renderConversationCard(card({ facts: {} }))],
    [
      'conversation_card.claimed',
      () =>
        renderConversationCard(
          card({
            sessionId: 'sess-handoff-1',
            owner: 'U0AGENT001',
            answeredBy: { user: 'U0AGENT002' },
            waitingSince: Date.UTC(2024, 2, 8, 16, 5),
          }),
        ),
    ],
    [
      'conversation_card.overdue',
      () =>
        renderConversationCard(
          card({
            answeredBy: { platformAgent: `Sam ${INJECTION}` },
            waitingSince: Date.UTC(2024, 2, 8, 16, 5),
            overdue: true,
          }),
        ),
    ],
    [
      'conversation_card.resolved',
      () =>
        renderConversationCard(
          card({
            sessionId: 'sess-handoff-1',
            owner: 'U0AGENT001',
            answeredBy: { user: 'U0AGENT001' },
            resolvedBy: 'U0AGENT001',
            resolvedAt: Date.UTC(2024, 2, 8, 16, 20),
          }),
        ),
    ],
    [
      'conversation_card.paged',
      () =>
        renderConversationCard(
          card({
            latestWords: `Where is *my* order?\n${INJECTION}`,
            pagedGroup: 'S0SUPPORT1',
            waitingSince: Date.UTC(2024, 2, 8, 16, 5),
          }),
        ),
    ],
    [
      'conversation_card.assigned',
      () =>
        renderConversationCard(
          card({ owner: 'U0AGENT001', assignment: { to: 'U0AGENT001' }, waitingSince: Date.UTC(2024, 2, 8, 16, 5) }),
        ),
    ],
    [
      'conversation_card.nobody_on_shift',
      () =>
        renderConversationCard(
          card({
            pagedGroup: 'S0SUPPORT1',
            assignment: { nobodyOnShift: true },
            waitingSince: Date.UTC(2024, 2, 8, 16, 5),
          }),
        ),
    ],
    ['thread_line.reopened', () => renderReopenedLine('U0AGENT001', Date.UTC(2024, 2, 8, 16, 20))],
    [
      'conversation_card.formatting',
      () =>
        renderConversationCard(
          card({ facts: { customerName: FORMATTING_NAME, campaignName: 'Chat Support', agentName: 'Sam_Bot' } }),
        ),
    ],
    [
      'thread_line.customer',
      () => renderCustomerLine(received.trigger === 'message_received' ? received.data : (undefined as never)),
    ],
    ['thread_line.agent', () => renderAgentLine(sent.trigger === 'message_sent' ? sent.data : (undefined as never))],
    [
      'thread_line.closed',
      () =>
        renderSessionClosedLine(closing.trigger === 'message_session_completed' ? closing.data : (undefined as never)),
    ],
  ] as const;

  it.each(goldens)('%s matches its golden Block Kit JSON and escapes platform text', async (name, render) => {
    const json = JSON.stringify(render(), null, 2);
    expect(injectedMarkup(json)).toEqual([]);
    await expect(`${json}\n`).toMatchFileSnapshot(`./golden/${name}.json`);
  });

  it('keeps a customer name with mrkdwn formatting characters inside the card’s bold header', () => {
    const header = renderConversationCard(card({ facts: { customerName: FORMATTING_NAME } })).blocks[0];
    // Look-alikes where a character could open or close formatting; `snake_case` inside a word stays.
    expect(header).toEqual({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: '💬 Chat with *Ann ∗VIP∗ ˍMarieˍ ∼x∼ ˋyˋ snake_case* (+14155550199)',
        verbatim: true,
      },
    });
  });

  it('tells the customer from the agent at a glance', () => {
    const customer = JSON.stringify(
      renderCustomerLine(received.trigger === 'message_received' ? received.data : (undefined as never)).blocks,
    );
    const agent = JSON.stringify(
      renderAgentLine(sent.trigger === 'message_sent' ? sent.data : (undefined as never)).blocks,
    );
    expect(customer).toContain('💬 *Noah Wilson*');
    expect(agent).toContain('🤖 *Sam*');
  });

  it('offers Link session only while the conversation is open, and shows the linked session', () => {
    expect(findAction(renderConversationCard(card()).blocks, LINK_SESSION_ACTION)?.text?.text).toBe('🔗 Link session');
    const linked = renderConversationCard(card({ sessionId: 'sess-9' })).blocks;
    expect(textOf(linked)).toContain('`sess-9`');
    expect(findAction(linked, LINK_SESSION_ACTION)?.text?.text).toBe('🔗 Change session');
    const closed = renderConversationCard(card({ state: 'closed', sessionId: 'sess-9' })).blocks;
    expect(findAction(closed, LINK_SESSION_ACTION)).toBeUndefined();
    expect(textOf(closed)).toContain('Closed');
  });

  it('warns of a session the platform reports and offers to switch to it, while open', () => {
    const reported = renderConversationCard(card({ sessionId: 'sess-9', reportedSessionId: 'sess-10' })).blocks;
    expect(textOf(findBlock(reported, REPORTED_SESSION_BLOCK))).toContain('The platform reports session `sess-10`');
    expect(findAction(reported, SWITCH_SESSION_ACTION)?.value).toBe('sess-10');
    const same = renderConversationCard(card({ sessionId: 'sess-9', reportedSessionId: 'sess-9' })).blocks;
    expect(findBlock(same, REPORTED_SESSION_BLOCK)).toBeUndefined();
    expect(findAction(same, SWITCH_SESSION_ACTION)).toBeUndefined();
  });
});

describe('hot leads and outcome alerts', () => {
  const call = known(CALL_COMPLETED_FULL, 'call_completed');
  const alert = {
    campaignId: 'camp-1',
    channelId: 'C0ALERTS01',
    filters: { status: ['busy', 'failed'], minMs: 90_000 },
    abovePercent: 50,
    windowMs: 15 * 60_000,
    minCalls: 10,
    notify: ['S0SALES01'],
    setBy: 'U0ADMIN01',
    setAt: Date.UTC(2024, 2, 8, 11, 0),
  };
  const incident = {
    alert,
    ts: '1709899200.000100',
    openedAt: Date.UTC(2024, 2, 8, 12, 0),
    shown: { calls: 14, matched: 8 },
    updatedAt: Date.UTC(2024, 2, 8, 12, 1),
    peakPercent: 57,
  };
  const ended = {
    ...incident,
    ending: { end: 'resolved' as const, figures: { calls: 24, matched: 8 }, at: Date.UTC(2024, 2, 8, 12, 17) },
  };
  const goldens = [
    [
      'call_completed.hot_lead',
      () =>
        renderCallCompleted(call.trigger === 'call_completed' ? call.data : (undefined as never), {
          notify: ['S0SALES01', 'U0REP00001'],
          hot: ['booked-a-demo', 'interested'],
        }),
    ],
    ['outcome_alert.open', () => renderIncident(incident, Date.UTC(2024, 2, 8, 12, 1))],
    ['outcome_alert.resolved', () => renderEndedIncident(ended)],
    ['outcome_alert.resolved_reply', () => renderEndReply(ended)],
    [
      'outcome_alert.removed_reply',
      () => renderEndReply({ ...ended, ending: { ...ended.ending, end: 'removed' as const, by: 'U0REP00001' } }),
    ],
  ] as const;

  it.each(goldens)('%s matches its golden Block Kit JSON', async (name, render) => {
    const json = JSON.stringify(render(), null, 2);
    expect(injectedMarkup(json)).toEqual([]);
    await expect(`${json}\n`).toMatchFileSnapshot(`./golden/${name}.json`);
  });

  it('says what matching calls did in words, and mentions the group first in the notification text', () => {
    expect(renderIncident(incident, incident.updatedAt).text).toBe(
      '<!subteam^S0SALES01> 🚨 8 of 14 calls were busy or failed and lasted at least 1m30s (57 %) in the last 15 min — campaign `camp-1`',
    );
    // Ended: nobody is called again.
    expect(JSON.stringify(renderEndedIncident(ended))).not.toContain('subteam');
    // Its terms changed, or calls slowed down: the incident holds and says why.
    expect(renderIncident({ ...incident, shown: { calls: 3, matched: 2 } }, incident.updatedAt).text).toContain(
      '2 of 3 calls were busy or failed and lasted at least 1m30s (67 %) in the last 15 min — too few calls to judge (it takes 10)',
    );
  });
});
