/**
 * Fault: 40 connections each send a forged 1 MiB − 1 body to `/slack/events` (well-formed signature headers,
 * fresh timestamp), never its last byte, and start again when the bot drops them — against a real bot process
 * with its real limits (32 MB of unverified bodies at once, 8 MB of it kept for small bodies, 4 MB per client).
 * Must hold: genuine signed slash commands sent meanwhile are all answered 200, whether the 40 come from 40
 * addresses (they fill the shared part) or from one (past its share they are refused 503 at once).
 */
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { beforeAll, expect, it } from 'vitest';
import type { BotProcess } from '../../bench/lib/bot-process.js';
import { figure, MEMBER_ID, sleep, stackForTests, until } from './support.js';

const stack = stackForTests();
let bot: BotProcess;
beforeAll(async () => {
  bot = await stack.startBot();
});

const MIB = 1024 * 1024;
const ATTACKERS = 40;
const ATTACK_MS = 12_000;

interface Attack {
  /** Bodies the bot read (up to their last byte) and held until it dropped them (408). */
  held: number;
  /** Bodies it refused at once for want of room (503). */
  refused: number;
  stop(): void;
}

/** Each of `addresses` sends a stalled forged body, again and again, until stopped. */
function attack(addresses: readonly string[]): Attack {
  const { port } = new URL(bot.url);
  const sockets = new Set<Socket>();
  let stopped = false;
  const result: Attack = {
    held: 0,
    refused: 0,
    stop() {
      stopped = true;
      for (const s of sockets) s.destroy();
    },
  };
  const once = (localAddress: string) => {
    if (stopped) return;
    let got = '';
    const socket = connect({ port: Number(port), host: '127.0.0.1', localAddress }, () => {
      const head = [
        'POST /slack/events HTTP/1.1',
        'Host: 127.0.0.1',
        'Content-Type: application/x-www-form-urlencoded',
        `Content-Length: ${MIB}`,
        `X-Slack-Signature: v0=${randomBytes(32).toString('hex')}`,
        `X-Slack-Request-Timestamp: ${Math.floor(Date.now() / 1000)}`,
        '',
        '',
      ].join('\r\n');
      socket.write(head);
      socket.write(Buffer.alloc(MIB - 1, 0x61));
    });
    sockets.add(socket);
    socket.on('data', (chunk: Buffer) => (got += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      const status = /^HTTP\/1\.1 (\d{3})/.exec(got)?.[1];
      if (status === '503') result.refused++;
      else if (status === '408') result.held++;
      // Again, from the same address, as soon as the bot let go.
      setTimeout(() => once(localAddress), 50);
    });
  };
  for (const address of addresses) once(address);
  return result;
}

/** Signed `/campaign help` commands, one after another, while the attack lasts; their statuses. */
async function commandsDuring(ms: number): Promise<number[]> {
  const statuses: number[] = [];
  const ids: string[] = [];
  const until_ = Date.now() + ms;
  while (Date.now() < until_) {
    const id = `stalled-${statuses.length}-${randomBytes(2).toString('hex')}`;
    const res = await stack.signer(bot).command({ text: 'help', userId: MEMBER_ID, responseUrlId: id });
    statuses.push(res.status);
    if (res.status === 200) ids.push(id);
    await sleep(200);
  }
  await until(
    () => ids.every((id) => stack.slack.responses.some((r) => r.id === id)),
    'the answers of the commands',
    20_000,
  );
  return statuses;
}

const tally = (statuses: number[]) =>
  Object.entries(statuses.reduce<Record<number, number>>((t, s) => ({ ...t, [s]: (t[s] ?? 0) + 1 }), {}))
    .map(([s, n]) => `${n} × ${s}`)
    .join(', ');

it('40 stalled forged 1 MiB bodies from 40 addresses leave signed slash commands answered', async () => {
  const addresses = Array.from({ length: ATTACKERS }, (_, i) => `127.0.0.${i + 2}`);
  const flood = attack(addresses);
  // Let the bodies arrive and be held before the first command.
  await until(() => flood.refused > 0, 'the shared part of the budget to fill', 10_000);
  const statuses = await commandsDuring(ATTACK_MS);
  flood.stop();
  figure(
    'stalled forged bodies, 40 addresses',
    `signed commands ${tally(statuses)} while ${ATTACKERS} connections sent 1 MiB − 1 forged bodies for ` +
      `${ATTACK_MS / 1000} s (${flood.held} held until dropped 408, ${flood.refused} refused 503 at once)`,
  );
  expect(statuses.filter((s) => s !== 200)).toEqual([]);
  expect(statuses.length).toBeGreaterThan(5);
});

it('40 stalled forged 1 MiB bodies from one address get its share, then 503, and commands are answered', async () => {
  const flood = attack(Array.from({ length: ATTACKERS }, () => '127.0.0.2'));
  await until(() => flood.refused >= ATTACKERS - 4, 'the client’s share to fill', 10_000);
  const statuses = await commandsDuring(ATTACK_MS / 2);
  flood.stop();
  figure(
    'stalled forged bodies, one address',
    `signed commands ${tally(statuses)}; of the attacker's bodies ${flood.held} held until dropped 408, ` +
      `${flood.refused} refused 503 at once`,
  );
  expect(statuses.filter((s) => s !== 200)).toEqual([]);
});
