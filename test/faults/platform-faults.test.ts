/**
 * Fault: the platform fails every request — 500s, gateway timeouts (504), connections reset — while users run
 * every subcommand that asks it something. Must hold: each user gets a clear message (says it is the
 * platform, what to do; no stack trace, no raw error) within 3 s of the command, and the bot keeps running.
 *
 * A platform that accepts the connection and never answers: within 3 s each user is told the platform is slow,
 * and the answer follows when the bot gives up waiting (its request timeout) — the test checks both, and prints
 * when.
 */
import { beforeAll, expect, it } from 'vitest';
import type { Fault } from '../fakes/platform.js';
import type { BotProcess } from '../../bench/lib/bot-process.js';
import { SLOW_NOTICE } from '../../src/commands/dispatch.js';
import { ADMIN_ID, figure, percentile, until, stackForTests } from './support.js';

const stack = stackForTests();
let bot: BotProcess;
beforeAll(async () => {
  bot = await stack.startBot();
  await stack.route([{ campaignId: 'camp-1', triggerName: 'call_completed', channelId: 'C0FAULTS01' }]);
  // Full members of the workspace, one per command: some commands show customer data, for members only.
  for (let i = 0; i < COMMANDS.length; i++) stack.slack.addUser({ id: faultUser(i), name: `member${i}` });
  stack.slack.addUser({ id: 'U0FAULT999', name: 'member999' });
});

const faultUser = (i: number) => `U0FAULT${String(i).padStart(3, '0')}`;

/** Every subcommand that calls the platform as soon as it runs (the modal ones call it on submit). */
const COMMANDS: Array<{ text: string; admin?: boolean }> = [
  { text: 'stats' },
  { text: 'quota' },
  { text: 'bookings camp-1' },
  { text: 'scheduled camp-1' },
  { text: 'template tpl-outbound-recall' },
  { text: 'sample call_completed camp-1' },
  { text: 'keys', admin: true },
  { text: 'subscribe camp-2 call_started', admin: true },
];

let round = 0;

const isNotice = (body: Record<string, unknown>) => body.text === SLOW_NOTICE;

/**
 * Runs every command at once, each by its own user; returns the answer each user was told and when (`notice`:
 * when they were told the platform is slow, if they were).
 */
async function everyCommand(): Promise<Array<{ command: string; ms: number; text: string; noticeMs?: number }>> {
  const signer = stack.signer(bot);
  const tag = `r${++round}`;
  const sent = COMMANDS.map((c, i) => {
    const id = `${tag}-${i}`;
    const userId = c.admin ? ADMIN_ID : faultUser(i);
    return { command: c.text, id, at: Date.now(), ack: signer.command({ text: c.text, userId, responseUrlId: id }) };
  });
  for (const s of sent) expect((await s.ack).status, s.command).toBe(200);
  await until(
    () => sent.every((s) => stack.slack.responses.some((r) => r.id === s.id && !isNotice(r.body))),
    'an answer to every command',
    60_000,
    50,
  );
  return sent.map((s) => {
    const answer = stack.slack.responses.find((r) => r.id === s.id && !isNotice(r.body))!;
    const notice = stack.slack.responses.find((r) => r.id === s.id && isNotice(r.body));
    return {
      command: s.command,
      ms: answer.at - s.at,
      text: JSON.stringify(answer.body),
      ...(notice ? { noticeMs: notice.at - s.at } : {}),
    };
  });
}

function expectClear(answers: Array<{ command: string; text: string }>): void {
  if (process.env.FAULTS_VERBOSE) for (const a of answers) console.log(a.command, '→', a.text.slice(0, 300));
  for (const a of answers) {
    expect(a.text, a.command).toMatch(/platform/i);
    expect(a.text, a.command).not.toMatch(/undefined|\[object |stack|Error:|\bat \/|node_modules|ECONN|UND_ERR/);
  }
}

const FAULTS: Array<{ name: string; fault: Fault }> = [
  { name: '500 on every request', fault: { status: 500 } },
  { name: 'gateway timeout (504) on every request', fault: { status: 504, message: 'upstream request timeout' } },
  { name: 'connection reset on every request', fault: { reset: true } },
];

for (const { name, fault } of FAULTS) {
  it(`platform ${name} → every user gets a clear message within 3 s; no crash`, async () => {
    stack.platform.reset();
    stack.platform.inject(fault);
    const answers = await everyCommand();
    stack.platform.clearFaults();
    const times = answers.map((a) => a.ms);
    figure(
      `platform ${name}`,
      `${answers.length} commands answered after p50 ${percentile(times, 50)} ms, max ${Math.max(...times)} ms; e.g. ${JSON.stringify(answers[0]!.text.slice(0, 160))}`,
    );
    expectClear(answers);
    for (const a of answers) expect(a.ms, `${a.command}: ${a.text}`).toBeLessThanOrEqual(3_000);
    expect(bot.alive()).toBe(true);
  });
}

it('a platform that never answers → every user is told within 3 s that it is slow, then that it did not answer in time; no crash', async () => {
  stack.platform.reset();
  stack.platform.inject({ delayMs: 120_000 });
  const answers = await everyCommand();
  stack.platform.clearFaults();
  const times = answers.map((a) => a.ms);
  const notices = answers.map((a) => a.noticeMs ?? Number.POSITIVE_INFINITY);
  figure(
    'platform never answers',
    `${answers.length} commands told "the platform is slow" after max ${(Math.max(...notices) / 1000).toFixed(1)} s; answered after p50 ${(percentile(times, 50) / 1000).toFixed(1)} s, max ${(Math.max(...times) / 1000).toFixed(1)} s (the bot waits out its 10 s request timeout, GETs twice more)`,
  );
  for (const a of answers) expect(a.noticeMs, `${a.command}: told the platform is slow`).toBeLessThanOrEqual(3_000);
  expectClear(answers);
  for (const a of answers)
    expect(a.text, a.command).toMatch(/did not answer in time|could not be reached|internal error/);
  expect(bot.alive()).toBe(true);

  // And it still works once the platform does.
  const signer = stack.signer(bot);
  await signer.command({ text: 'stats', userId: 'U0FAULT999', responseUrlId: 'after' });
  const after = await until(
    () => stack.slack.responses.find((r) => r.id === 'after'),
    'the answer after the faults',
    10_000,
  );
  expect(JSON.stringify(after.body)).toContain('Campaign dashboard');
}, 120_000);
