/**
 * A recording host that drips its bytes (a byte now and then, to hold a transfer open) slows only its own
 * workspace's recordings: each workspace has transfer slots of its own in a process (2, of 8 in all), and a try
 * whose host sends too little while it is waited on fails as stalled and is tried again on the usual schedule.
 * Through the real routes: webhooks → cards → recordings fetched from local hosts listed in RECORDING_HOSTS →
 * Slack's external upload into the card's thread, as the Slack stand-in accepted it.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import type { SlackMessage } from '../fakes/slack.js';
import { TEAM_ID, useHarness, type Harness } from '../support/harness.js';
import { installApp } from '../support/oauth.js';
import { requireRedis } from '../support/redis.js';
import { waitFor } from '../support/wait.js';
import { CALL_COMPLETED_FULL } from './fixtures.js';
import { deliver, posts, startEventsHarness } from './support.js';

const redis = await requireRedis();
const OTHER_TEAM = 'T0OTHERREC';
const audio = randomBytes(300 * 1024);

interface DripHost {
  origin: string;
  port: number;
  server: Server;
  /** Paths asked for, in order. */
  asked: string[];
  /** Drip responses the bot still holds open. */
  open: () => number;
  /** How long each drip response the bot closed had been open (ms). */
  closedAfterMs: number[];
}

/**
 * A recording host: `/drip/…` answers 200 with the recording's length, then sends a byte every 50 ms (until the
 * bot hangs up); `/ok/…` sends the whole recording at once. `dripTimes` drip answers, then it serves whole ones.
 */
async function startHost(dripTimes = Number.POSITIVE_INFINITY): Promise<DripHost> {
  const asked: string[] = [];
  const closedAfterMs: number[] = [];
  const dripping = new Set<ServerResponse>();
  let drips = 0;
  const whole = (res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': String(audio.length) });
    res.end(audio);
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://host').pathname;
    asked.push(path);
    if (!path.startsWith('/drip/') || drips >= dripTimes) return whole(res);
    drips += 1;
    res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': String(audio.length) });
    dripping.add(res);
    const opened = performance.now();
    let at = 0;
    const drip = setInterval(() => res.write(audio.subarray(at, ++at)), 50);
    res.on('close', () => {
      clearInterval(drip);
      dripping.delete(res);
      closedAfterMs.push(performance.now() - opened);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return { origin: `http://127.0.0.1:${port}`, port, server, asked, open: () => dripping.size, closedAfterMs };
}

const closeHost = (host: DripHost | undefined) =>
  host &&
  new Promise<void>((resolve) => {
    host.server.closeAllConnections();
    host.server.close(() => resolve());
  });

/** Routes `teamId`'s completed calls of `campaignId` to `channelId`; returns the team's local hook URL. */
async function hookFor(h: Harness, teamId: string, campaignId: string, channelId: string): Promise<string> {
  const store = h.bot.deps.store;
  await store.routes.add({ teamId, campaignId, triggerName: 'call_completed', channelId });
  const token = (await store.workspaces.getHookToken(teamId)) ?? (await store.workspaces.createHookToken(teamId));
  return `${h.url}/hooks/${token}`;
}

/** Delivers a completed call (no transcript: the card is its only post) and returns its card once Slack has it. */
async function callWith(h: Harness, hook: string, channel: string, campaignId: string, audioUrl: string) {
  const callId = `call-${randomBytes(4).toString('hex')}`;
  const event = { ...CALL_COMPLETED_FULL, callId, campaignId, audioUrl, callTranscript: '' };
  expect((await deliver(hook, [event])).status).toBe(200);
  const card = await h.slack.waitFor(() =>
    posts(h, channel).find((m) => JSON.stringify(m.blocks).includes(callId) && m.text.startsWith('Call completed')),
  );
  return { callId, card };
}

const fileReplies = (h: Harness, channel: string, card: SlackMessage) =>
  h.slack.thread(channel, card.ts).filter((m) => m.ts !== card.ts && (m.files?.length ?? 0) > 0);

describe('one workspace’s recordings on a host that drips bytes', () => {
  let slow: DripHost | undefined;
  let fine: DripHost | undefined;
  const h = useHarness(async () => {
    slow = await startHost();
    fine = await startHost();
    // OAuth, no PUBLIC_URL: the install redirect stays on the local address the test uses. Default slots and
    // no-progress timeout (20 s): A's tries stay stalled for the whole test.
    const harness = await startEventsHarness({
      oauth: true,
      defaultApiKey: false,
      publicUrl: null,
      redisUrl: redis.url,
      keyPrefix: `${redis.prefix}recording-slots:${randomBytes(4).toString('hex')}:`,
      env: { RECORDING_HOSTS: `127.0.0.1:${slow.port},127.0.0.1:${fine.port}`, RECORDING_MAX_MB: '1' },
      bot: { timers: { tickMs: 50 } },
    });
    await installApp(harness, TEAM_ID);
    await installApp(harness, OTHER_TEAM);
    return harness;
  });
  afterAll(() => Promise.all([closeHost(slow), closeHost(fine)]));

  it('hold only that workspace’s slots: another workspace’s recording is in its thread, byte for byte, while they stall', async () => {
    // Workspace A: three calls whose recordings drip, each in a channel of its own (no card waits for another).
    const aChannels = ['C0SLOWA001', 'C0SLOWA002', 'C0SLOWA003'];
    for (const [i, channel] of aChannels.entries()) {
      const hook = await hookFor(h, TEAM_ID, `camp-a-${i}`, channel);
      await callWith(h, hook, channel, `camp-a-${i}`, `${slow!.origin}/drip/a-${i}.mp3`);
    }
    // A's share of the process: two of its recordings are being fetched (and held open); the third waits.
    await waitFor(() => slow!.open() === 2, 'two of A’s recordings dripping');

    const bHook = await hookFor(h, OTHER_TEAM, 'camp-b', 'C0FASTB001');
    const started = performance.now();
    const { card } = await callWith(h, bHook, 'C0FASTB001', 'camp-b', `${fine!.origin}/ok/b.mp3`);
    const [reply] = await h.slack.waitFor(() => {
      const replies = fileReplies(h, 'C0FASTB001', card);
      return replies.length > 0 ? replies : undefined;
    }, 10_000);
    const ms = performance.now() - started;

    // What Slack accepted for B: the host's exact bytes, in B's card's thread.
    const bUploads = h.slack.uploads.filter((u) => u.channel_id === 'C0FASTB001');
    expect(bUploads).toHaveLength(1);
    expect(bUploads[0]!.data.equals(audio)).toBe(true);
    expect(bUploads[0]!.thread_ts).toBe(card.ts);
    expect(reply!.files?.[0]).toMatchObject({ mimetype: 'audio/mpeg', size: audio.length });
    // …while A's two are still held open by their host, A's third not even asked for, and nothing of A's in Slack.
    expect(slow!.open()).toBe(2);
    expect(slow!.asked).toHaveLength(2);
    expect(h.slack.uploads.filter((u) => aChannels.includes(u.channel_id ?? ''))).toEqual([]);
    expect(ms).toBeLessThan(10_000);
    console.info(`recording-slots: B's recording in its thread ${Math.round(ms)} ms after its call arrived`);
  });
});

describe('a try whose host sends too little while it is waited on', () => {
  let slow: DripHost | undefined;
  let skewMs = 0;
  const h = useHarness(async () => {
    // The first two answers drip; the host serves whole recordings after that.
    slow = await startHost(2);
    const harness = await startEventsHarness({
      redisUrl: redis.url,
      keyPrefix: `${redis.prefix}recording-stall:${randomBytes(4).toString('hex')}:`,
      env: { RECORDING_HOSTS: `127.0.0.1:${slow.port}`, RECORDING_MAX_MB: '1' },
      // A short no-progress timeout stands in for the 20 s one.
      bot: { events: { recordings: { stallMs: 400 } }, timers: { tickMs: 50 }, now: () => Date.now() + skewMs },
    });
    return harness;
  });
  afterAll(() => closeHost(slow));

  it('is cut by the no-progress timeout, counted as a host not ready, and tried again on the usual schedule', async () => {
    const channels = ['C0STALL001', 'C0STALL002'];
    const cards: SlackMessage[] = [];
    for (const [i, channel] of channels.entries()) {
      const hook = await hookFor(h, TEAM_ID, `camp-stall-${i}`, channel);
      cards.push((await callWith(h, hook, channel, `camp-stall-${i}`, `${slow!.origin}/drip/s-${i}.mp3`)).card);
    }
    // Both drips cut by the bot — after the no-progress timeout, long before a transfer's 5 minutes.
    await waitFor(() => slow!.closedAfterMs.length === 2 && stalledLines(h).length === 2, 'both tries cut');
    for (const ms of slow!.closedAfterMs) {
      expect(ms).toBeGreaterThanOrEqual(350);
      expect(ms).toBeLessThan(5_000);
    }
    for (const line of stalledLines(h))
      expect(line).toMatchObject({
        problem: 'stalled',
        host: `127.0.0.1:${slow!.port}`,
        attempts: 1,
        retryInMs: 15_000,
      });
    expect(h.slack.uploads).toEqual([]);
    // What is stored: both due again in 15 s, not before.
    const { timers } = h.bot.deps.store;
    const now = Date.now() + skewMs;
    expect(await timers.due('call-recording', now)).toEqual([]);
    expect(await timers.due('call-recording', now + 16_000)).toHaveLength(2);

    // 15 s later (the bot's clock), the host is ready: both recordings land in their threads, byte for byte.
    skewMs += 16_000;
    await h.slack.waitFor(() => h.slack.uploads.length === 2, 10_000);
    for (const [i, channel] of channels.entries()) {
      const [upload] = h.slack.uploads.filter((u) => u.channel_id === channel);
      expect(upload?.thread_ts).toBe(cards[i]!.ts);
      expect(upload?.data.equals(audio)).toBe(true);
    }
  });
});

/** The bot's log lines saying a recording's try failed and will be tried again. */
function stalledLines(h: Harness): Array<Record<string, unknown>> {
  return h
    .logs()
    .split('\n')
    .filter((line) => line.includes('call recording not copied yet; trying again'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
