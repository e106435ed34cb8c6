/**
 * The roll-up post a channel gets when its calls came in faster than Slack lets it show them one by one:
 * golden Block Kit JSON, what a manager reads per call, Slack's message limits at the largest roll-up, and the
 * transcripts for its thread.
 */
import { describe, expect, it } from 'vitest';
import { parseEvent } from '../../src/events/events.js';
import {
  ROLLUP_MAX_CALLS,
  callsToShow,
  rollupFits,
  renderRollup,
  renderRollupTranscripts,
  type RolledCall,
} from '../../src/events/render/call-rollup.js';
import { LIMITS } from '../../src/slack/blocks.js';
import { messageErrors } from '../../fakes/slack/block-kit.js';
import { textOf } from '../support/blocks.js';
import { CALL_COMPLETED_FULL, CALL_COMPLETED_MINIMAL, CALL_STARTED_FULL, injectedMarkup } from './fixtures.js';

function call(trigger: 'call_started' | 'call_completed', data: object): RolledCall {
  const parsed = parseEvent(data, trigger);
  if (!parsed.ok || !parsed.event.known) throw new Error('fixture does not parse');
  // A card's Recording button carries its address sealed (call-outbox.ts): any value stands for it here.
  const shown = parsed.event.data;
  return {
    trigger,
    data: 'audioUrl' in shown && shown.audioUrl ? { ...shown, recording: SEALED } : shown,
  };
}

const SEALED = 'v1.sealed-recording';

const completed = (i: number, extra: object = {}) =>
  call('call_completed', { ...CALL_COMPLETED_FULL, callId: `call-${i}`, customerName: `Customer ${i}`, ...extra });

describe('a roll-up of waiting calls', () => {
  const calls = [
    call('call_completed', CALL_COMPLETED_FULL),
    call('call_completed', CALL_COMPLETED_MINIMAL),
    completed(3, { status: 'failed', endedReason: 'pipeline-error' }),
    completed(4, { status: 'busy' }),
    call('call_started', { ...CALL_STARTED_FULL, callId: 'call-live' }),
  ];

  it('matches its golden Block Kit JSON', async () => {
    await expect(`${JSON.stringify(renderRollup(calls), null, 2)}\n`).toMatchFileSnapshot('./golden/call_rollup.json');
  });

  it('marks each call by how it ended: only a completed one reads ✅', () => {
    const lines = (status: string) => textOf(renderRollup([completed(1, { status }), completed(2)]).blocks);
    expect(lines('failed')).toContain('❌ *Customer 1*');
    expect(lines('no-answer')).toContain('📵 *Customer 1*');
    expect(lines('busy')).toContain('📵 *Customer 1*');
    expect(lines('completed')).toContain('✅ *Customer 1*');
  });

  it('counts its calls by how they went in the heading, as the lines name them, and links every recording', () => {
    const mixed = [
      ...Array.from({ length: 11 }, (_, i) => completed(i, { status: i % 2 ? 'completed' : 'success' })),
      ...Array.from({ length: 3 }, (_, i) => completed(20 + i, { status: 'failed' })),
      ...Array.from({ length: 3 }, (_, i) => completed(30 + i, { status: 'busy' })),
      completed(40, { status: 'no-answer' }),
    ];
    const payload = renderRollup(mixed);
    const heading = textOf(payload.blocks.slice(0, 1));
    expect(heading).toContain('*18 calls: 11 completed, 3 failed, 3 busy, 1 no answer*');
    expect(payload.text).toMatch(/^18 calls \(11 completed, 3 failed, 3 busy, 1 no answer\): Customer 0 /);
    // What the heading counts is what the lines say.
    const lines = payload.blocks.slice(1).map((b) => textOf([b]));
    expect(lines.filter((l) => l.includes(' · failed · '))).toHaveLength(3);
    expect(lines.filter((l) => l.includes(' · busy · '))).toHaveLength(3);
    expect(lines.filter((l) => l.startsWith('📵') && l.includes(' · no-answer · '))).toHaveLength(1);
    expect(payload.blocks.slice(1).every((b) => JSON.stringify(b).includes('"▶️ Recording"'))).toBe(true);

    // A call still going counts as in progress, after the ended ones; many kinds of outcome end in `other`.
    const started = call('call_started', { ...CALL_STARTED_FULL, callId: 'call-live' });
    const odd = ['voicemail', 'canceled', 'rejected', 'timeout', 'silence', 'hung-up'].map((status, i) =>
      completed(50 + i, { status }),
    );
    expect(textOf(renderRollup([started, completed(1), ...odd]).blocks.slice(0, 1))).toContain(
      '*8 calls: 1 completed, 1 voicemail, 1 canceled, 1 rejected, 1 timeout, 2 other, 1 in progress*',
    );
    expect(textOf(renderRollup([completed(1, { status: 'failed' })]).blocks.slice(0, 1))).toContain(
      '*1 call: 1 failed*',
    );
  });

  it('says how many calls it covers, and per call the customer, outcome, duration, summary line and recording', () => {
    const json = JSON.stringify(renderRollup(calls));
    expect(json).toContain('*5 calls: 2 completed, 1 failed, 1 busy, 1 in progress*');
    for (const text of ['Olivia', 'completed', '02:34', 'Customer confirmed the check-up', 'call-live', 'in progress'])
      expect(json).toContain(text);
    expect(json).toContain(SEALED);
    expect(json).not.toContain(CALL_COMPLETED_FULL.audioUrl);
    expect(json).toContain('transcript in the thread');
    // Platform text cannot mention, link or break out of its formatting.
    expect(injectedMarkup(json)).toEqual([]);
  });

  it('fits Slack’s message limits with the most calls one roll-up carries, each call with a long summary', () => {
    const many = Array.from({ length: ROLLUP_MAX_CALLS }, (_, i) =>
      completed(i, { callSummary: `${'a very long summary '.repeat(400)}\nsecond line` }),
    );
    const payload = renderRollup(many);
    expect(messageErrors({ text: payload.text, blocks: payload.blocks })).toEqual([]);
    expect(payload.blocks.length).toBeLessThanOrEqual(LIMITS.blocksPerMessage);
    expect(JSON.stringify(payload)).not.toContain('second line');
    expect(payload.blocks.filter((b) => JSON.stringify(b).includes('Customer ')).length).toBe(ROLLUP_MAX_CALLS);
    // Slack also refuses a message whose blocks hold too much text altogether: long calls take fewer a post.
    const fit = rollupFits(many);
    expect(fit).toBeGreaterThanOrEqual(2);
    expect(fit).toBeLessThan(ROLLUP_MAX_CALLS);
    const text = renderRollup(many.slice(0, fit)).blocks.reduce(
      (n, b) => n + (b.type === 'section' ? (b.text?.text.length ?? 0) : 0),
      0,
    );
    expect(text).toBeLessThanOrEqual(11_000);
    expect(rollupFits(many.slice(0, 3).map((c) => ({ ...c, data: { ...c.data, callSummary: 'short' } })))).toBe(3);
  });

  it('shows a call that started and completed while waiting once, as completed', () => {
    const shown = callsToShow([
      call('call_started', { ...CALL_STARTED_FULL, callId: 'call-9' }),
      call('call_started', { ...CALL_STARTED_FULL, callId: 'call-10' }),
      completed(9),
    ]);
    expect(shown.map((c) => `${c.trigger}:${c.data.callId}`)).toEqual([
      'call_started:call-10',
      'call_completed:call-9',
    ]);
  });

  it('puts the transcripts in its thread: one message when they fit, otherwise one text file', () => {
    const short = renderRollupTranscripts([completed(1), completed(2), call('call_started', CALL_STARTED_FULL)]);
    expect(short?.kind).toBe('message');
    const text = JSON.stringify(short);
    expect(text).toContain('Customer 1');
    expect(text).toContain('Customer 2');
    expect(injectedMarkup(text)).toEqual([]);

    const long = renderRollupTranscripts([completed(1, { callTranscript: 'x'.repeat(4_000) }), completed(2)]);
    expect(long).toMatchObject({ kind: 'file', filename: 'transcripts.txt' });
    expect(long?.kind === 'file' && long.content).toContain('== Customer 1 (+14155550123) (call call-1) ==');

    expect(renderRollupTranscripts([completed(3, { callTranscript: '' })])).toBeUndefined();
  });
});
