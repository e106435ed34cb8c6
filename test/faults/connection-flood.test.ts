/**
 * Fault: more connections than PORT's cap (2,000), in every state a client can leave one in — idle on
 * keep-alive after an answer, silent (connected, no request), a request whose body trickles in — against a real
 * bot process with its real limits. Must hold: the cap makes room by closing sockets (idle ones first) and never
 * spins on one it already closed, so `/healthz` and signed slash commands are answered all along, and at once
 * when the crowd leaves.
 */
import { connect, type Socket } from 'node:net';
import { beforeAll, expect, it } from 'vitest';
import type { BotProcess } from '../../bench/lib/bot-process.js';
import { figure, MEMBER_ID, stackForTests, until } from './support.js';

const stack = stackForTests();
let bot: BotProcess;
let hook: string;
beforeAll(async () => {
  bot = await stack.startBot();
  hook = await stack.route([{ campaignId: '*', triggerName: 'call_completed', channelId: 'C0CROWD001' }]);
});

const IDLE = 1_900;
const SILENT = 300;
const TRICKLING = 200;

interface Crowd {
  sockets: Socket[];
  /** Set before the test closes its own sockets: only the bot's closings are counted. */
  leaving: boolean;
  closedByBot: Record<'idle' | 'silent' | 'trickling', number>;
}

function open(crowd: Crowd, kind: keyof Crowd['closedByBot']): Promise<Socket> {
  const { port } = new URL(bot.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => undefined);
    socket.once('close', () => {
      if (!crowd.leaving) crowd.closedByBot[kind]++;
    });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
    crowd.sockets.push(socket);
  });
}

/** A client that asked /healthz once and keeps the connection (asking again every 3 s, within the 5 s keep-alive). */
async function idleClient(crowd: Crowd): Promise<void> {
  const socket = await open(crowd, 'idle');
  const ask = () => socket.writable && socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  ask();
  await new Promise((resolve) => socket.once('data', resolve));
  const again = setInterval(ask, 3_000);
  socket.once('close', () => clearInterval(again));
}

/** A webhook delivery whose body comes a byte a second. */
async function tricklingClient(crowd: Crowd): Promise<void> {
  const socket = await open(crowd, 'trickling');
  socket.write(
    `POST ${hook} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n`,
  );
  const drip = setInterval(() => socket.writable && socket.write('a'), 1_000);
  socket.once('close', () => clearInterval(drip));
}

/** In waves of 100, so the bot sees a crowd arrive rather than one burst its accept queue would drop. */
async function inWaves(count: number, each: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < count; i += 100) {
    await Promise.all(Array.from({ length: Math.min(100, count - i) }, () => each().catch(() => undefined)));
  }
}

async function healthz(): Promise<number> {
  try {
    return (await fetch(`${bot.url}/healthz`, { signal: AbortSignal.timeout(10_000) })).status;
  } catch {
    return 0;
  }
}

let commands = 0;
async function command(): Promise<number> {
  const id = `crowd-${++commands}`;
  try {
    const sent = stack.signer(bot).command({ text: 'help', userId: MEMBER_ID, responseUrlId: id });
    sent.catch(() => undefined);
    const res = await Promise.race([
      sent,
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 10_000)),
    ]);
    if (res?.status !== 200) return res?.status ?? 0;
    await until(() => stack.slack.responses.find((r) => r.id === id), `the answer to ${id}`, 10_000);
    return 200;
  } catch {
    return 0;
  }
}

it('idle, silent and trickling sockets past the cap never keep /healthz or a signed command out', async () => {
  const crowd: Crowd = { sockets: [], leaving: false, closedByBot: { idle: 0, silent: 0, trickling: 0 } };
  const answers = { healthz: [] as number[], commands: [] as number[] };
  try {
    await inWaves(IDLE, () => idleClient(crowd));
    // More kept-alive sockets than the room under the cap (1,875), then silent ones: the case that once spun forever.
    await inWaves(SILENT, () => open(crowd, 'silent'));
    await inWaves(TRICKLING, () => tricklingClient(crowd));
    for (let i = 0; i < 5; i++) {
      answers.healthz.push(await healthz());
      answers.commands.push(await command());
    }
    const held = crowd.sockets.filter((s) => !s.destroyed).length;
    figure(
      'connection flood',
      `${IDLE} idle kept-alive + ${SILENT} silent + ${TRICKLING} trickling sockets (cap 2,000): closed by the bot ` +
        `${crowd.closedByBot.idle} idle, ${crowd.closedByBot.silent} silent, ${crowd.closedByBot.trickling} trickling, ` +
        `${held} still open; /healthz ${answers.healthz.filter((s) => s === 200).length}/${answers.healthz.length} ` +
        `and signed commands ${answers.commands.filter((s) => s === 200).length}/${answers.commands.length} answered 200`,
    );
    expect(answers.healthz).toEqual([200, 200, 200, 200, 200]);
    expect(answers.commands).toEqual([200, 200, 200, 200, 200]);
    // Room was made by closing, idle sockets first: more idle ones than silent ones went.
    expect(crowd.closedByBot.idle).toBeGreaterThan(crowd.closedByBot.silent);
  } finally {
    crowd.leaving = true;
    for (const s of crowd.sockets) s.destroy();
  }
  // The crowd gone, the bot answers at once.
  expect(await healthz()).toBe(200);
  expect(await command()).toBe(200);
});
