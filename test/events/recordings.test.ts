/**
 * Call recordings copied into the card's thread, through the real routes: a webhook with an `audioUrl` → the
 * card (and transcript) → the bot fetches the recording from a recording host (a local HTTP server here, listed
 * in RECORDING_HOSTS) → Slack's external upload into the card's thread, as the Slack stand-in accepted it.
 * What may not be fetched (a private host not listed, too large, not audio, a redirect to a private host) leaves
 * the card's link and one log line, and never reaches the host it names.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SlackMessage } from '../fakes/slack.js';
import { startFakePlatform } from '../fakes/platform.js';
import { startFakeSlack } from '../fakes/slack.js';
import { TEAM_ID, type Harness } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { waitFor } from '../support/wait.js';
import { CALL_COMPLETED_FULL } from './fixtures.js';
import { RECORDING_ACTION } from '../../src/events/recording-button.js';
import { findAction } from '../support/blocks.js';
import { deliver, posts, queueDrained, routeTo, startEventsHarness } from './support.js';

const redis = await requireRedis();

interface Seen {
  path: string;
  authorization: string | undefined;
  /** chat.postMessage calls Slack had accepted when the request arrived. */
  postsBefore: number;
}

/** A local HTTP server: `routes` by path, the requests it saw, and how many connections were opened to it. */
async function startHost(
  routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void>,
): Promise<{ server: Server; origin: string; port: number; seen: Seen[]; connections: () => number }> {
  const seen: Seen[] = [];
  let connections = 0;
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://host').pathname;
    seen.push({ path, authorization: req.headers.authorization, postsBefore: acceptedPosts() });
    const route = routes[path];
    if (route) route(req, res);
    else res.writeHead(404).end();
  });
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return { server, origin: `http://127.0.0.1:${port}`, port, seen, connections: () => connections };
}

const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/** chat.postMessage calls the Slack stand-in accepted so far (set once the harness runs). */
let acceptedPosts = () => 0;
const MB = 1024 * 1024;
const audio = randomBytes(300 * 1024);
const unannounced = randomBytes(200 * 1024);
/** Released by the restart test: the recording's response waits for it. */
let releaseSlow: () => void = () => undefined;
let lateAsked = 0;

const hostRoutes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  '/rec/call.mp3': (_req, res) => {
    res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': String(audio.length) });
    res.end(audio);
  },
  // No Content-Length: sent in chunks.
  '/rec/chunked.wav': (_req, res) => {
    res.writeHead(200, { 'content-type': 'audio/wav' });
    for (let i = 0; i < unannounced.length; i += 16 * 1024) res.write(unannounced.subarray(i, i + 16 * 1024));
    res.end();
  },
  '/rec/big.mp3': (_req, res) => {
    res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': String(2 * MB) });
    res.end(Buffer.alloc(2 * MB));
  },
  '/rec/big-chunked.mp3': (_req, res) => {
    res.writeHead(200, { 'content-type': 'audio/mpeg' });
    res.end(Buffer.alloc(2 * MB));
  },
  '/rec/page.mp3': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<html>Sign in to listen</html>');
  },
  '/rec/late.mp3': (_req, res) => {
    lateAsked += 1;
    if (lateAsked === 1) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': String(audio.length) });
    res.end(audio);
  },
  '/rec/slow.mp3': (_req, res) => {
    const previous = releaseSlow;
    releaseSlow = () => {
      previous();
      if (res.writableEnded || res.destroyed) return;
      res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': String(audio.length) });
      res.end(audio);
    };
  },
};

let host: Awaited<ReturnType<typeof startHost>>;
/** Not listed: the bot may never connect to it. */
let privateHost: Awaited<ReturnType<typeof startHost>>;
let h: Harness;
let hook: string;
let skewMs = 0;
const CHANNEL = 'C0RECORDS1';

beforeAll(async () => {
  privateHost = await startHost({
    '/secret.mp3': (_req, res) => {
      res.writeHead(200, { 'content-type': 'audio/mpeg' });
      res.end('ID3');
    },
  });
  host = await startHost({
    ...hostRoutes,
    // Redirects to the private host: by name over https (refused when it resolves), by address over http.
    '/rec/to-private.mp3': (_req, res) => {
      res.writeHead(302, { location: `https://localhost:${privateHost.port}/secret.mp3` }).end();
    },
    '/rec/to-private-ip.mp3': (_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${privateHost.port}/secret.mp3` }).end();
    },
  });
  h = await startEventsHarness({
    redisUrl: redis.url,
    keyPrefix: `${redis.prefix}recordings:`,
    env: { RECORDING_HOSTS: `127.0.0.1:${host.port}`, RECORDING_MAX_MB: '1' },
    bot: { timers: { tickMs: 50 }, now: () => Date.now() + skewMs },
  });
  hook = await routeTo(h, [{ campaignId: '*', triggerName: 'call_completed', channelId: CHANNEL }]);
  acceptedPosts = () => h.slack.callsTo('chat.postMessage').filter((c) => c.status === 200).length;
});

afterAll(async () => {
  await h?.close();
  await Promise.all([host && closeServer(host.server), privateHost && closeServer(privateHost.server)]);
});

beforeEach(() => {
  h.slack.reset();
  host.seen.length = 0;
});

const uid = () => randomBytes(4).toString('hex');
/** Calls without a transcript: one post each, so several go out quickly at Slack's pace. */
const NO_TRANSCRIPT = { callTranscript: '' };

/** Delivers a completed call with this recording URL and returns its card once Slack has it. */
async function callWith(audioUrl: string, extra: Record<string, unknown> = {}) {
  const callId = `call-${uid()}`;
  const event = { ...CALL_COMPLETED_FULL, callId, audioUrl, ...extra };
  expect((await deliver(hook, [event])).status).toBe(200);
  const card = await h.slack.waitFor(() =>
    posts(h, CHANNEL).find((m) => JSON.stringify(m.blocks).includes(callId) && m.text.startsWith('Call completed')),
  );
  return { callId, event, card };
}

/** The thread's replies that carry files. */
function fileReplies(card: SlackMessage): SlackMessage[] {
  return h.slack.thread(CHANNEL, card.ts).filter((m) => m.ts !== card.ts && (m.files?.length ?? 0) > 0);
}

/** Log lines (JSON) of the bot that say a recording was given up, for one call's card entry. */
function givenUp(): Array<Record<string, unknown>> {
  return h
    .logs()
    .split('\n')
    .filter((line) => line.includes('call recording not copied into Slack'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function waitForGiveUps(count: number): Promise<Array<Record<string, unknown>>> {
  await waitFor(() => givenUp().length >= count, `${count} recordings given up`, 10_000);
  return givenUp();
}

/** The card's ▶️ Recording button: its value the address sealed, opened by the bot for full members. */
function recordingButton(card: SlackMessage) {
  return findAction(card.blocks, RECORDING_ACTION);
}

describe('a completed call with a recording', () => {
  it('gets the recording in its card’s thread, byte for byte, after the card and its transcript', async () => {
    const { callId, card } = await callWith(`${host.origin}/rec/call.mp3`);

    const [reply] = await h.slack.waitFor(() => {
      const replies = fileReplies(card);
      return replies.length > 0 ? replies : undefined;
    });
    // What Slack accepted: the exact bytes the recording host served, shared in the card's thread.
    expect(h.slack.uploads).toHaveLength(1);
    const upload = h.slack.uploads[0]!;
    expect(upload.data.equals(audio)).toBe(true);
    expect(upload).toMatchObject({
      filename: `recording-${callId}.mp3`,
      title: 'Call recording',
      channel_id: CHANNEL,
      thread_ts: card.ts,
      initial_comment: '🎧 Recording of this call (02:34)',
    });
    expect(h.slack.callsTo('files.getUploadURLExternal').map((c) => c.args)).toEqual([
      { filename: `recording-${callId}.mp3`, length: String(audio.length) },
    ]);
    // Slack shows an audio file (its player) in the thread, after the transcript.
    expect(reply!.files?.[0]).toMatchObject({ mimetype: 'audio/mpeg', filetype: 'mp3', size: audio.length });
    const thread = h.slack.thread(CHANNEL, card.ts);
    expect(thread.map((m) => (m.files?.length ? 'recording' : m.ts === card.ts ? 'card' : 'transcript'))).toEqual([
      'card',
      'transcript',
      'recording',
    ]);
    // The card was out before the recording was asked for, and the recording host never saw a Slack token.
    expect(host.seen).toEqual([{ path: '/rec/call.mp3', authorization: undefined, postsBefore: 2 }]);
    // The card keeps its button for whoever prefers the platform's page (here http: not shown, links are https only).
    expect(recordingButton(card)).toBeUndefined();
  });

  it('streams a recording sent without Content-Length (its length counted before Slack is asked)', async () => {
    const { card } = await callWith(`${host.origin}/rec/chunked.wav`);
    await h.slack.waitFor(() => fileReplies(card)[0]);
    expect(h.slack.uploads[0]?.data.equals(unannounced)).toBe(true);
    expect(h.slack.callsTo('files.getUploadURLExternal')[0]?.args.length).toBe(String(unannounced.length));
  });

  it('shares it once when Slack made the share wait (429), without downloading or uploading again', async () => {
    h.slack.rateLimit({ method: 'files.completeUploadExternal', times: 1, retryAfterSec: 1 });
    const { event, card } = await callWith(`${host.origin}/rec/call.mp3`);
    await h.slack.waitFor(() => fileReplies(card)[0], 8_000);
    // The platform delivers the same call again: nothing more.
    expect((await deliver(hook, [event])).status).toBe(200);
    await queueDrained(h);

    expect(h.slack.callsTo('files.completeUploadExternal').map((c) => c.status)).toEqual([429, 200]);
    expect(h.slack.callsTo('files.getUploadURLExternal')).toHaveLength(1);
    // Slack's 429 said the share did not happen: no need to ask whether it did.
    expect(h.slack.callsTo('files.info')).toEqual([]);
    expect(host.seen.map((s) => s.path)).toEqual(['/rec/call.mp3']);
    expect(h.slack.uploads).toHaveLength(1);
    expect(fileReplies(card)).toHaveLength(1);
  });

  it('shares it once when Slack shared it but its answer was lost: the next try asks Slack first', async () => {
    h.slack.loseAnswer('files.completeUploadExternal');
    const { card } = await callWith(`${host.origin}/rec/call.mp3`);
    await h.slack.waitFor(() => fileReplies(card)[0]);
    await waitFor(
      () => h.logs().includes("call recording found shared in its card's thread by an earlier try"),
      'the next try found it shared',
      8_000,
    );
    // The connection dropped after Slack shared it: no HTTP answer at all.
    expect(h.slack.callsTo('files.completeUploadExternal').map((c) => [c.status, c.lost])).toEqual([
      [0, 'connection-dropped'],
    ]);
    expect(h.slack.callsTo('files.info')[0]?.response).toMatchObject({ ok: true, file: { channels: [CHANNEL] } });
    expect(h.slack.uploads).toHaveLength(1);
    expect(fileReplies(card)).toHaveLength(1);
    expect(host.seen.map((s) => s.path)).toEqual(['/rec/call.mp3']);
  });

  it('tries a recording that is not there yet (404) again later', async () => {
    lateAsked = 0;
    const { card } = await callWith(`${host.origin}/rec/late.mp3`);
    await waitFor(() => h.logs().includes('call recording not copied yet; trying again'), 'the retry scheduled');
    expect(lateAsked).toBe(1);
    // The next try is due 15 s later on the bot's clock: move it there instead of waiting.
    skewMs += 15_000;
    await h.slack.waitFor(() => fileReplies(card)[0]);
    expect(lateAsked).toBe(2);
    expect(h.slack.uploads.map((u) => u.data.equals(audio))).toEqual([true]);
  });
});

describe('what is not fetched: the card keeps its link, one log line, nothing uploaded', () => {
  it('never connects to a private host that is not listed (an address, a name, plain http)', async () => {
    const before = givenUp().length;
    const urls = [
      `https://127.0.0.1:${privateHost.port}/secret.mp3`,
      `https://localhost:${privateHost.port}/secret.mp3`,
      `https://[::ffff:127.0.0.1]:${privateHost.port}/secret.mp3`,
      `http://127.0.0.1:${privateHost.port}/secret.mp3`,
    ];
    const cards = [];
    for (const url of urls) cards.push((await callWith(url, NO_TRANSCRIPT)).card);
    const lines = (await waitForGiveUps(before + urls.length)).slice(before);

    expect(lines.map((l) => l.problem).sort()).toEqual(['not_https', 'not_public', 'not_public', 'not_public']);
    expect(lines.map((l) => l.level)).toEqual(['warn', 'warn', 'warn', 'warn']);
    expect(privateHost.connections()).toBe(0);
    expect(h.slack.callsTo('files.getUploadURLExternal')).toEqual([]);
    // The https ones keep their Recording button on the card; nothing was added to any thread.
    expect(recordingButton(cards[0]!)?.value).toBeDefined();
    expect(JSON.stringify(cards[0])).not.toContain(urls[0]);
    for (const card of cards) expect(fileReplies(card)).toEqual([]);
    // The log names the host, never the whole URL (it may carry a signature).
    expect(lines.map((l) => JSON.stringify(l)).join('\n')).not.toContain('/secret.mp3');
  });

  it('refuses too large (declared or counted), not audio, and a redirect to a private host', async () => {
    const before = givenUp().length;
    const paths = [
      '/rec/big.mp3',
      '/rec/big-chunked.mp3',
      '/rec/page.mp3',
      '/rec/to-private.mp3',
      '/rec/to-private-ip.mp3',
    ];
    const cards = [];
    for (const path of paths) cards.push((await callWith(`${host.origin}${path}`, NO_TRANSCRIPT)).card);
    const lines = (await waitForGiveUps(before + paths.length)).slice(before);

    expect(lines.map((l) => l.problem).sort()).toEqual(['not_public', 'redirect', 'too_large', 'too_large', 'type']);
    expect(lines.find((l) => l.problem === 'not_public')).toMatchObject({ host: 'localhost' });
    expect(lines.find((l) => l.problem === 'type')).toMatchObject({ contentType: 'text/html' });
    expect(lines.filter((l) => l.problem === 'too_large').map((l) => l.maxBytes)).toEqual([MB, MB]);
    // Each call's recording given up once, by one line.
    expect(new Set(lines.map((l) => l.entry)).size).toBe(paths.length);
    expect(privateHost.connections()).toBe(0);
    expect(h.slack.callsTo('files.getUploadURLExternal')).toEqual([]);
    expect(h.slack.uploads).toEqual([]);
    for (const card of cards) expect(fileReplies(card)).toEqual([]);
    expect(h.slack.callsTo('chat.update')).toEqual([]);
  });
});

describe('across a restart', () => {
  it('a transfer cut short by a stop is finished by the next bot, once', async () => {
    const slack = await startFakeSlack({ teamId: TEAM_ID });
    const platform = await startFakePlatform();
    const keyPrefix = `${redis.prefix}recordings:restart:`;
    const secretsKey = randomBytes(32).toString('base64');
    const start = () =>
      startEventsHarness({
        redisUrl: redis.url,
        keyPrefix,
        env: { SECRETS_KEY: secretsKey, RECORDING_HOSTS: `127.0.0.1:${host.port}` },
        bot: { timers: { tickMs: 50 } },
        fakes: { slack, platform },
      });
    try {
      const first = await start();
      const restartHook = await routeTo(first, [
        { campaignId: '*', triggerName: 'call_completed', channelId: CHANNEL },
      ]);
      const callId = `call-${uid()}`;
      await deliver(restartHook, [{ ...CALL_COMPLETED_FULL, callId, audioUrl: `${host.origin}/rec/slow.mp3` }]);
      await waitFor(() => host.seen.some((s) => s.path === '/rec/slow.mp3'), 'the recording asked for');
      await first.close();

      const second = await start();
      try {
        await waitFor(() => host.seen.filter((s) => s.path === '/rec/slow.mp3').length === 2, 'asked again');
        releaseSlow();
        const card = await slack.waitFor(() =>
          slack.messages(CHANNEL).find((m) => m.text.startsWith('Call completed')),
        );
        await slack.waitFor(() => slack.thread(CHANNEL, card.ts).find((m) => m.files?.length));
        expect(slack.uploads.map((u) => [u.thread_ts, u.data.equals(audio)])).toEqual([[card.ts, true]]);
        expect(slack.messages(CHANNEL).filter((m) => m.text.startsWith('Call completed'))).toHaveLength(1);
      } finally {
        await second.close();
      }
    } finally {
      await Promise.all([slack.close(), platform.close()]);
    }
  });
});
