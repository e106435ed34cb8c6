/**
 * A call's recording where guests read: the card's ▶️ Recording button carries no address of the audio (which
 * may hold the customer's number or e-mail), a press is answered by the bot — the link, privately, for a full
 * member; one sentence for a guest — and the audio itself is copied into the card's thread only where the
 * channel shows customers in full. Webhooks, signed clicks and the Slack stand-in over real sockets.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORDING_ACTION } from '../../src/events/recording-button.js';
import type { SlackMessage } from '../fakes/slack.js';
import { findAction } from '../support/blocks.js';
import { MEMBER_ID, useHarness } from '../support/harness.js';
import { CALL_COMPLETED_FULL } from './fixtures.js';
import { deliver, posts, queueDrained, routeTo, startEventsHarness } from './support.js';

const GUESTS = 'C0RECGUEST1';
const PLAIN = 'C0RECPLAIN1';
const GUEST = 'U0GUEST001';
/** The platform's recording address, carrying the customer's number as some hosts' paths do. */
const AUDIO_URL = 'https://recordings.example.com/calls/+14155550123/call-0001.mp3';

const audio = randomBytes(64 * 1024);
let host: Server;
let hostOrigin = '';
const asked: string[] = [];

beforeAll(async () => {
  host = createServer((req, res) => {
    asked.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': String(audio.length) });
    res.end(audio);
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', () => resolve()));
  hostOrigin = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
});

afterAll(async () => {
  host.closeAllConnections();
  await new Promise<void>((resolve) => host.close(() => resolve()));
});

describe('a call’s recording where guests read', () => {
  const h = useHarness(async () => {
    const started = await startEventsHarness({
      env: { RECORDING_HOSTS: hostOrigin.replace('http://', '') },
      bot: { timers: { tickMs: 50 } },
      unlimitedSlackBecause: 'what each channel shows, not pace: cards, transcripts and answers in two channels',
    });
    started.slack.addUser({ id: GUEST, name: 'gus', is_restricted: true });
    started.slack.addChannel({ id: GUESTS, name: 'with-guest', members: [MEMBER_ID, GUEST] });
    started.slack.addChannel({ id: PLAIN, name: 'team', members: [MEMBER_ID] });
    return started;
  });

  let n = 0;
  /** Delivers a completed call; its card in `channel` once every channel's post is out. */
  async function deliverCall(hook: string, campaignId: string, audioUrl: string, channel: string) {
    const callId = `call-rec-${++n}`;
    expect((await deliver(hook, [{ ...CALL_COMPLETED_FULL, campaignId, callId, audioUrl }])).status).toBe(200);
    await queueDrained(h);
    const card = posts(h, channel).find((m) => JSON.stringify(m.blocks).includes(callId));
    expect(card, channel).toBeDefined();
    return card!;
  }
  const fileReplies = (channel: string, card: SlackMessage) =>
    h.slack.thread(channel, card.ts).filter((m) => (m.files?.length ?? 0) > 0);

  /** Presses the card's ▶️ Recording as `userId`: what the bot answered through the press's response_url. */
  async function press(card: SlackMessage, channel: string, userId: string, value?: string) {
    const id = `press-${++n}`;
    const button = findAction(card.blocks, RECORDING_ACTION);
    expect(button?.value).toBeDefined();
    const res = await h.signer.blockAction({
      actionId: RECORDING_ACTION,
      value: value ?? button!.value!,
      userId,
      channelId: channel,
      messageTs: card.ts,
      responseUrlId: id,
    });
    expect(res.status).toBe(200);
    const answer = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === id));
    expect(answer.status).toBe(200);
    return answer.body;
  }

  it('a card in a channel with a guest carries no recording address, and a guest pressing Recording gets one sentence', async () => {
    const hook = await routeTo(h, [{ campaignId: 'camp-guests', triggerName: 'call_completed', channelId: GUESTS }]);
    const card = await deliverCall(hook, 'camp-guests', AUDIO_URL, GUESTS);
    const shown = JSON.stringify(card);
    expect(shown).not.toContain('recordings.example.com');
    expect(shown).not.toContain('5550123');

    const before = h.slack.messages(GUESTS).length;
    const refused = await press(card, GUESTS, GUEST);
    expect(refused).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    expect(String(refused.text)).toBe(
      'This call’s recording shows customer details (names, numbers, e-mails, messages), so it is for full members of this workspace, and guests can’t see it. Ask a member or an admin.',
    );
    expect(JSON.stringify(refused)).not.toContain('recordings.example.com');

    const opened = await press(card, GUESTS, MEMBER_ID);
    expect(opened.response_type).toBe('ephemeral');
    expect(JSON.stringify(opened.blocks)).toContain(JSON.stringify(AUDIO_URL));
    // Privately: nothing new in the channel.
    expect(h.slack.messages(GUESTS)).toHaveLength(before);
  });

  it('a Recording value altered, or taken from another workspace’s card, opens nothing', async () => {
    const hook = await routeTo(h, [{ campaignId: 'camp-guests', triggerName: 'call_completed', channelId: GUESTS }]);
    const card = await deliverCall(hook, 'camp-guests', AUDIO_URL, GUESTS);
    const value = findAction(card.blocks, RECORDING_ACTION)!.value!;
    const forged = `${value.slice(0, -4)}${value.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    const elsewhere = h.bot.deps.store.secrets.seal(AUDIO_URL, 'call-recording:T0OTHERORG');
    for (const wrong of [forged, elsewhere]) {
      const answer = await press(card, GUESTS, MEMBER_ID, wrong);
      expect(String(answer.text)).toContain('This Recording button no longer opens');
      expect(JSON.stringify(answer)).not.toContain('recordings.example.com');
    }
  });

  it('the audio is copied into the thread of a channel of full members, never into one with a guest', async () => {
    const hook = await routeTo(h, [
      { campaignId: 'camp-both', triggerName: 'call_completed', channelId: GUESTS },
      { campaignId: 'camp-both', triggerName: 'call_completed', channelId: PLAIN },
    ]);
    const url = `${hostOrigin}/rec/both.mp3`;
    const guestCard = await deliverCall(hook, 'camp-both', url, GUESTS);
    const plainCard = posts(h, PLAIN).find((m) => m.text.startsWith('Call completed'))!;
    const [copied] = await h.slack.waitFor(() => {
      const files = fileReplies(PLAIN, plainCard);
      return files.length > 0 ? files : undefined;
    });
    expect(copied!.files?.[0]).toMatchObject({ size: audio.length });
    // Every card is out and the one copy is done: no other recording is waiting, none was fetched or shared.
    expect(await h.bot.deps.store.timers.due('call-recording', Date.now() + 86_400_000)).toEqual([]);
    expect(asked).toEqual(['/rec/both.mp3']);
    expect(fileReplies(GUESTS, guestCard)).toEqual([]);
    expect(JSON.stringify(guestCard)).not.toContain(hostOrigin);
  });
});
