/**
 * A completed call as its channel reads it (docs/PRODUCT.md › Route filters, `cards:`): by default one short
 * section — outcome, customer, duration, the summary's first line, call, campaign and agent, the Recording button
 * — and a Details button that opens the full card in a modal; `cards:full` posts the full card. A channel with a
 * guest gets both masked alike, and a Details button still opens after the bot restarted. Admin commands,
 * webhooks and signed clicks over real sockets, against the Slack stand-in (which checks every block and view it
 * takes) and real Redis.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CALL_DETAILS_ACTION } from '../../src/events/render/call-completed.js';
import { RECORDING_ACTION } from '../../src/events/recording-button.js';
import type { SlackMessage } from '../fakes/slack.js';
import { findAction, textOf } from '../support/blocks.js';
import {
  ADMIN_ID,
  MEMBER_ID,
  TEAM_ID,
  harnessesPerTest,
  useHarness,
  type Harness,
  type HarnessOptions,
} from '../support/harness.js';
import { startFakePlatform } from '../fakes/platform.js';
import { startFakeSlack } from '../fakes/slack.js';
import { requireRedis } from '../support/redis.js';
import { deliver, posts, queueDrained, run, startEventsHarness } from './support.js';

const redis = await requireRedis();
const SECRETS_KEY = randomBytes(32).toString('base64');

const PLAIN = 'C0CARDSPLN1';
const GUESTS = 'C0CARDSGST1';
const GUEST = 'U0GUEST001';
const NUMBER = '+14155550123';
const EMAIL = 'olivia.brown@example.com';

let n = 0;
const call = (extra: object = {}) => ({
  triggerName: 'call_completed',
  campaignId: 'camp-1',
  campaignName: 'Spring Recall',
  callId: `call-card-${++n}`,
  customerName: 'Olivia Brown',
  customerNumber: NUMBER,
  customerEmail: EMAIL,
  agentName: 'Riley',
  status: 'completed',
  endedReason: 'customer-ended-call',
  durationMs: 154_250,
  startedAt: '2024-03-08T16:38:35Z',
  endedAt: '2024-03-08T16:41:09Z',
  callSummary: `Booked Tuesday 10:00; call back on ${NUMBER}.\nAsked about parking.`,
  callTranscript: `Customer: reach me at ${EMAIL}.`,
  audioUrl: 'https://recordings.example.com/calls/call-card.mp3',
  ...extra,
});

function startCardsHarness(opts: Pick<HarnessOptions, 'fakes'> = {}): Promise<Harness> {
  return startEventsHarness({
    redisUrl: redis.url,
    keyPrefix: `${redis.prefix}call-cards:`,
    env: { SECRETS_KEY },
    unlimitedSlackBecause: 'what a card shows, not pace: a few cards go into each channel',
    ...opts,
  });
}

/** The card of the call delivered last, once every channel's post is out. */
async function deliverCall(h: Harness, channel: string, extra: object = {}): Promise<SlackMessage> {
  const url = `${h.url}/hooks/${await h.bot.deps.store.workspaces.getHookToken(TEAM_ID)}`;
  const event = call(extra);
  expect((await deliver(url, [event])).status).toBe(200);
  await queueDrained(h);
  const card = posts(h, channel).find((m) => JSON.stringify(m.blocks ?? []).includes(event.callId));
  expect(card, channel).toBeDefined();
  return card!;
}

const blockTypes = (card: SlackMessage) => (card.blocks as Array<{ type: string }>).map((b) => b.type);

let press = 0;
/** Presses the card's Details as `userId`: the modal Slack then shows, or the bot's private answer. */
async function openDetails(h: Harness, card: SlackMessage, channel: string, userId: string, value?: string) {
  const id = `details-${++press}`;
  const opened = h.slack.callsTo('views.open').length;
  const button = findAction(card.blocks, CALL_DETAILS_ACTION);
  expect(button?.text?.text).toBe('Details');
  const res = await h.signer.blockAction({
    actionId: CALL_DETAILS_ACTION,
    value: value ?? button!.value!,
    userId,
    channelId: channel,
    messageTs: card.ts,
    responseUrlId: id,
  });
  expect(res.status).toBe(200);
  const done = await h.slack.waitFor(
    () => h.slack.callsTo('views.open')[opened] ?? h.slack.responses.find((r) => r.id === id),
  );
  if (!('response' in done)) return { answer: String(done.body.text) };
  expect(done.response.ok).toBe(true);
  return { view: h.slack.view((done.response.view as { id: string }).id)!.view };
}

describe('call cards', () => {
  const h = useHarness(startCardsHarness, ['platform', 'slack', 'routes']);

  function setUpChannels(): void {
    h.slack.addUser({ id: GUEST, name: 'gus', is_restricted: true });
    h.slack.addChannel({ id: PLAIN, name: 'calls', members: [ADMIN_ID, MEMBER_ID] });
    h.slack.addChannel({ id: GUESTS, name: 'calls-with-guest', members: [ADMIN_ID, MEMBER_ID, GUEST] });
  }

  it('posts a call as one short section with its Recording button, and Details opens the full card', async () => {
    setUpChannels();
    await run(h, 'subscribe * call_completed', { channelId: PLAIN });
    const card = await deliverCall(h, PLAIN);

    expect(blockTypes(card)).toEqual(['section', 'actions']);
    expect(textOf(card.blocks)).toBe(
      [
        `✅ *Olivia Brown* (${NUMBER}) · completed · 02:34`,
        `Booked Tuesday 10:00; call back on ${NUMBER}.`,
        `_call \`call-card-${n}\` · campaign \`camp-1\` · Riley · transcript in the thread_`,
        '▶️ Recording',
        'Details',
      ].join('\n'),
    );
    expect(findAction(card.blocks, RECORDING_ACTION)?.value).toMatch(/^v1\./);
    expect(card.text).toBe(`Call completed with Olivia Brown (${NUMBER}) — Spring Recall (02:34)`);
    // The transcript still goes into the card's thread.
    const thread = h.slack.messages(PLAIN).filter((m) => m.thread_ts === card.ts && m.ts !== card.ts);
    expect(textOf(thread[0]?.blocks)).toContain(`Customer: reach me at ${EMAIL}.`);

    const { view } = await openDetails(h, card, PLAIN, MEMBER_ID);
    expect(view?.title).toMatchObject({ text: 'Call details' });
    const shown = textOf(view?.blocks);
    for (const line of [
      `✅ *Call completed* with *Olivia Brown* (${NUMBER})`,
      `*Number*\n${NUMBER}`,
      `*Email*\n${EMAIL}`,
      '*Campaign*\nSpring Recall',
      '*Agent*\nRiley',
      '*Duration*\n02:34',
      '*Ended reason*\ncustomer-ended-call',
      '*Started*\n<!date^1709915915^',
      `*Summary*\nBooked Tuesday 10:00; call back on ${NUMBER}.\nAsked about parking.`,
      'transcript in the thread',
    ])
      expect(shown).toContain(line);
    // The recording opens from the card (a modal has no response_url for its private link).
    expect(findAction(view?.blocks, RECORDING_ACTION)).toBeUndefined();
    expect(JSON.stringify(view)).not.toContain('recordings.example.com');
  });

  it('`cards:full` posts the full card, `/campaign subscriptions` says so, and `cards:short` brings the short one back', async () => {
    setUpChannels();
    const full = await run(h, 'subscribe * call_completed cards:full', { channelId: PLAIN });
    expect(full.text).toContain('now receives `call_completed` (only `cards:full`) for every campaign');
    const listed = await run(h, 'subscriptions', { channelId: PLAIN });
    expect(listed.text).toContain('`cards:full`');

    const fullCard = await deliverCall(h, PLAIN);
    expect(findAction(fullCard.blocks, CALL_DETAILS_ACTION)).toBeUndefined();
    expect(textOf(fullCard.blocks)).toContain(`*Email*\n${EMAIL}`);
    expect(findAction(fullCard.blocks, RECORDING_ACTION)).toBeDefined();

    const short = await run(h, 'subscribe * call_completed cards:short', { channelId: PLAIN });
    expect(short.text).toContain('now receives `call_completed` for every campaign');
    const shortCard = await deliverCall(h, PLAIN);
    expect(blockTypes(shortCard)).toEqual(['section', 'actions']);
    expect(findAction(shortCard.blocks, CALL_DETAILS_ACTION)).toBeDefined();

    const wrong = await run(h, 'subscribe * call_completed cards:wide', { channelId: PLAIN });
    expect(wrong.text).toContain(
      '`cards:` takes `short` (a call as one section, its details a click away — the default) or `full` (every field on the card), not `wide`. Nothing was subscribed.',
    );
  });

  it('masks the short card and its details alike where a guest reads along, for the guest and a member', async () => {
    setUpChannels();
    await run(h, 'subscribe * call_completed', { channelId: GUESTS });
    const card = await deliverCall(h, GUESTS);
    expect(textOf(card.blocks)).toContain('✅ *Olivia Brown* (+1 ••• ••• 0123) · completed · 02:34');
    expect(textOf(card.blocks)).toContain('Booked Tuesday 10:00; call back on +1 ••• ••• 0123.');
    expect(JSON.stringify(card)).not.toContain('5550123');

    for (const who of [GUEST, MEMBER_ID]) {
      const { view } = await openDetails(h, card, GUESTS, who);
      expect(textOf(view?.blocks)).toContain('*Number*\n+1 ••• ••• 0123');
      expect(textOf(view?.blocks)).toContain('*Email*\n•••@example.com');
      expect(JSON.stringify(view)).not.toContain('5550123');
      expect(JSON.stringify(view)).not.toContain('olivia.brown');
    }
  });

  it('a Details value altered, or sealed for another workspace, opens nothing and says so', async () => {
    setUpChannels();
    await run(h, 'subscribe * call_completed', { channelId: PLAIN });
    const card = await deliverCall(h, PLAIN);
    const value = findAction(card.blocks, CALL_DETAILS_ACTION)!.value!;
    const forged = `${value.slice(0, -4)}${value.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    const elsewhere = h.bot.deps.store.secrets.seal('{"customerName":"Someone"}', 'call-details:T0OTHERORG');
    for (const wrong of [forged, elsewhere]) {
      const { answer } = await openDetails(h, card, PLAIN, MEMBER_ID, wrong);
      expect(answer).toBe(
        'This Details button no longer opens (it was sealed with a key the bot does not have any more); the call is still on the campaign platform.',
      );
    }
  });
});

describe('a short card after a restart', () => {
  const started = harnessesPerTest(startCardsHarness);

  it('opens its details from the button alone: nothing of it was kept by the process that posted it', async () => {
    const slack = await startFakeSlack({ teamId: TEAM_ID, unlimitedBecause: 'one card, then one press' });
    const platform = await startFakePlatform();
    try {
      const first = await started({ fakes: { slack, platform } });
      slack.addChannel({ id: PLAIN, name: 'calls', members: [ADMIN_ID, MEMBER_ID] });
      await run(first, 'subscribe * call_completed', { channelId: PLAIN });
      const card = await deliverCall(first, PLAIN, { customerName: 'Rita Restart' });
      await first.close();

      const second = await started({ fakes: { slack, platform } });
      const { view } = await openDetails(second, card, PLAIN, MEMBER_ID);
      expect(textOf(view?.blocks)).toContain('*Customer*\nRita Restart');
      await second.close();
    } finally {
      await Promise.all([slack.close(), platform.close()]);
    }
  });
});
