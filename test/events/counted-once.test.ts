/**
 * `campaign_events_posted_total`, read from /metrics as an operator's dashboard reads it: one count per event
 * posted, however many channels show it.
 */
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { useHarness } from '../support/harness.js';
import { CALL_COMPLETED_FULL } from './fixtures.js';
import { deliver, posts, queueDrained, routeTo, startEventsHarness } from './support.js';

const uid = () => randomBytes(4).toString('hex');

const h = useHarness(
  () =>
    startEventsHarness({
      unlimitedSlackBecause: 'counting, not pace: two calls into two channels',
    }),
  ['slack', 'platform'],
);

/** The counter's value for a trigger on the bot's /metrics (0 when it has no series yet). */
async function postedTotal(trigger: string): Promise<number> {
  const text = await (await fetch(`${h.url}/metrics`)).text();
  const line = new RegExp(`^campaign_events_posted_total\\{trigger="${trigger}"\\} (\\d+)$`, 'm').exec(text);
  return line ? Number(line[1]) : 0;
}

it('counts a call shown in two channels once', async () => {
  const campaignId = `camp-${uid()}`;
  const channels = [`C0ONE${uid().toUpperCase()}`, `C0TWO${uid().toUpperCase()}`];
  const hook = await routeTo(
    h,
    channels.map((channelId) => ({ campaignId, triggerName: 'call_completed', channelId })),
  );
  const before = await postedTotal('call_completed');
  const ids = [`call-${uid()}`, `call-${uid()}`];
  for (const callId of ids)
    expect((await deliver(hook, [{ ...CALL_COMPLETED_FULL, campaignId, callId }])).status).toBe(200);
  await queueDrained(h, 30_000);

  // Each channel shows each call (Slack took every card)…
  for (const channel of channels)
    expect(ids.map((id) => posts(h, channel).filter((m) => JSON.stringify(m.blocks).includes(id)).length)).toEqual([
      1, 1,
    ]);
  // …and the dashboard counts two events, not four.
  expect((await postedTotal('call_completed')) - before).toBe(2);
});
