/**
 * Recordings into Slack: a bot process copies large call recordings from a recording host (a local HTTP server,
 * listed in RECORDING_HOSTS) into their cards' threads. What is measured: that every recording arrives byte for
 * byte, how long the lot takes, and how far the bot's RSS rises above its idle level while they stream —
 * against the same run with a host that sends no Content-Length (those the bot must read whole before Slack
 * takes them: the baseline of what buffering would cost). And, with two workspaces installed, how long one
 * workspace's recording takes while another's two recordings are held open by a host that drips a byte every 10 s.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { callCompleted, deliveryBody, postJson } from './lib/events.js';
import { until } from './lib/net.js';
import type { Stack } from './lib/stack.js';
import { installWorkspace, provisionWorkspace } from './lib/workspace.js';

export interface RecordingFigures {
  recordings: number;
  bytesEach: number;
  /** Shared in their card's thread with exactly the host's bytes. */
  intact: number;
  seconds: number;
  idleRss: number;
  peakRss: number;
}

/** One recording's bytes (not zeros: nothing on the way may compress them away). */
function recordingBytes(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i += 4) bytes.writeUInt32LE((i * 2654435761) >>> 0, i);
  return bytes;
}

async function startRecordingHost(bytes: Buffer): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const announced = req.url?.startsWith('/streamed/') ?? false;
    res.writeHead(200, {
      'content-type': 'audio/mpeg',
      ...(announced ? { 'content-length': String(bytes.length) } : {}),
    });
    // Written in 64 KB pieces, as a file server would.
    let at = 0;
    const next = () => {
      while (at < bytes.length) {
        const piece = bytes.subarray(at, at + 64 * 1024);
        at += piece.length;
        if (!res.write(piece)) return void res.once('drain', next);
      }
      res.end();
    };
    next();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, port: (server.address() as AddressInfo).port };
}

export async function runRecordings(
  stack: Stack,
  opts: { recordings: number; megabytes: number; announced: boolean },
): Promise<RecordingFigures> {
  const bytes = recordingBytes(opts.megabytes * 1024 * 1024);
  const host = await startRecordingHost(bytes);
  const bot = await stack.startBot({
    env: { RECORDING_HOSTS: `127.0.0.1:${host.port}`, RECORDING_MAX_MB: String(opts.megabytes + 1) },
  });
  try {
    stack.slack.reset();
    // A channel per call: Slack's pace per channel is not what is measured here.
    const channels = Array.from({ length: opts.recordings }, (_, i) => `C0RECBENCH${String(i).padStart(2, '0')}`);
    const hook = `${bot.url}${await stack.route(channels.map((channelId, i) => ({ campaignId: `camp-rec-${i}`, triggerName: 'call_completed', channelId })))}`;
    await sleep(1_000);
    const idleRss = bot.rss();
    let peakRss = idleRss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, bot.rss())), 25);
    const run = Date.now().toString(36);
    const started = Date.now();
    try {
      await Promise.all(
        channels.map(async (_, i) => {
          const callId = `rec-${run}-${i}`;
          const path = opts.announced ? 'streamed' : 'unannounced';
          const event = callCompleted(callId, {
            campaignId: `camp-rec-${i}`,
            callTranscript: '',
            audioUrl: `http://127.0.0.1:${host.port}/${path}/${callId}.mp3`,
          });
          await (await postJson(hook, deliveryBody(event))).arrayBuffer();
        }),
      );
      await until(() => stack.slack.uploads.length >= opts.recordings, 'every recording shared', 180_000, 100);
    } finally {
      clearInterval(sampler);
    }
    const seconds = (Date.now() - started) / 1000;
    const intact = stack.slack.uploads.filter((u) => u.thread_ts !== undefined && u.data.equals(bytes)).length;
    return { recordings: opts.recordings, bytesEach: bytes.length, intact, seconds, idleRss, peakRss };
  } finally {
    stack.slack.reset();
    await bot.stop();
    await new Promise<void>((resolve) => host.server.close(() => resolve()));
  }
}

export interface DripFigures {
  /** From B's call arriving to its recording shared in its card's thread, byte for byte (NaN: not within 60 s). */
  seconds: number;
  /** A's recordings the drip host still held open when B's was shared. */
  heldOpen: number;
}

const TEAM_A = 'T0RECDRIPA';
const TEAM_B = 'T0RECDRIPB';

/**
 * A host that answers `/drip/…` with a length and then a byte every 10 s (the slowest a host can be without
 * stalling on a per-chunk timeout), and `/ok/…` with the whole recording.
 */
async function startDripHost(bytes: Buffer): Promise<{ server: Server; port: number; open: () => number }> {
  const dripping = new Set<unknown>();
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': String(bytes.length) });
    if (!req.url?.startsWith('/drip/')) return void res.end(bytes);
    dripping.add(res);
    let at = 0;
    const drip = setInterval(() => res.write(bytes.subarray(at, ++at)), 10_000);
    res.write(bytes.subarray(at, ++at));
    res.on('close', () => {
      clearInterval(drip);
      dripping.delete(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, port: (server.address() as AddressInfo).port, open: () => dripping.size };
}

export async function runRecordingDrip(stack: Stack): Promise<DripFigures> {
  const bytes = recordingBytes(4 * 1024 * 1024);
  const host = await startDripHost(bytes);
  const bot = await stack.startBot({
    oauth: true,
    env: { RECORDING_HOSTS: `127.0.0.1:${host.port}`, RECORDING_MAX_MB: '5', CAMPAIGN_API_KEY_TEAM: TEAM_A },
  });
  try {
    for (const team of [TEAM_A, TEAM_B]) await installWorkspace(bot.url, stack.slack, team);
    const aChannels = ['C0RECDRIPA1', 'C0RECDRIPA2'];
    const aHook = `${bot.url}/hooks/${await provisionWorkspace(
      stack.store,
      TEAM_A,
      aChannels.map((channelId, i) => ({ campaignId: `camp-drip-a${i}`, triggerName: 'call_completed', channelId })),
    )}`;
    const bHook = `${bot.url}/hooks/${await provisionWorkspace(stack.store, TEAM_B, [
      { campaignId: 'camp-drip-b', triggerName: 'call_completed', channelId: 'C0RECDRIPB1' },
    ])}`;
    stack.slack.reset();
    const run = Date.now().toString(36);
    const send = async (hook: string, campaignId: string, path: string) => {
      const event = callCompleted(`drip-${run}-${campaignId}`, {
        campaignId,
        callTranscript: '',
        audioUrl: `http://127.0.0.1:${host.port}/${path}/${campaignId}.mp3`,
      });
      await (await postJson(hook, deliveryBody(event))).arrayBuffer();
    };
    await Promise.all(aChannels.map((_, i) => send(aHook, `camp-drip-a${i}`, 'drip')));
    await until(() => host.open() === 2, 'both of A’s recordings dripping', 30_000, 20);

    const started = Date.now();
    await send(bHook, 'camp-drip-b', 'ok');
    const shared = await until(
      () => stack.slack.uploads.some((u) => u.channel_id === 'C0RECDRIPB1' && u.data.equals(bytes)),
      'B’s recording shared',
      60_000,
      20,
    ).then(
      () => true,
      () => false,
    );
    return { seconds: shared ? (Date.now() - started) / 1000 : NaN, heldOpen: host.open() };
  } finally {
    stack.slack.reset();
    await bot.stop();
    host.server.closeAllConnections();
    await new Promise<void>((resolve) => host.server.close(() => resolve()));
  }
}
