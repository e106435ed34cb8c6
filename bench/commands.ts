/**
 * Command ack under a slow platform: every platform request is held 10 s by the fake platform, and signed
 * `/campaign stats` commands arrive at a steady pace. Slack needs the ack within 3 s; the answer follows
 * through the command's response_url when the platform answers. Figures: ack latency as Slack measures it
 * (request sent → whole response read), and when each answer reached its response_url.
 *
 * Then the same number of commands all at the same instant (no target): how acks queue behind one another
 * when a burst arrives at once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { SignedResult } from '../test/fakes/slack-signer.js';
import type { BotProcess } from './lib/bot-process.js';
import { until } from './lib/net.js';
import { percentile } from './lib/stats.js';
import { MEMBER_ID, type Stack } from './lib/stack.js';
import { SLOW_NOTICE } from '../src/commands/dispatch.js';

const isNotice = (body: Record<string, unknown>) => body.text === SLOW_NOTICE;

export interface CommandFigures {
  commands: number;
  perSecond: number;
  platformDelayMs: number;
  ackP50: number;
  ackP99: number;
  ackMax: number;
  non200: number;
  answered: number;
  /** Commands whose user was told the platform is slow, and the latest such notice (ms after the command). */
  noticed: number;
  noticeMax: number;
  answeredWithStats: number;
  answerP50: number;
  answerP99: number;
  burst: { ackP50: number; ackP99: number };
}

export async function runCommands(
  stack: Stack,
  bot: BotProcess,
  opts: { commands: number; perSecond: number; platformDelayMs: number },
): Promise<CommandFigures> {
  const signer = stack.signer(bot);
  stack.slack.reset();
  stack.platform.reset();
  // Warm-up with a fast platform: the first command of a process loads code paths the rest reuse.
  for (let i = 0; i < 5; i++) await signer.command({ text: 'stats', userId: MEMBER_ID, responseUrlId: `warm-${i}` });
  await until(() => stack.slack.responses.length >= 5, 'warm-up answers', 10_000);
  stack.slack.reset();
  stack.platform.inject({ delayMs: opts.platformDelayMs });

  const sentAt = new Map<string, number>();
  const acks: Array<Promise<SignedResult>> = [];
  const started = Date.now();
  for (let i = 0; i < opts.commands; i++) {
    const wait = started + (i * 1000) / opts.perSecond - Date.now();
    if (wait > 0) await sleep(wait);
    const id = `paced-${i}`;
    sentAt.set(id, Date.now());
    acks.push(signer.command({ text: 'stats', userId: MEMBER_ID, responseUrlId: id }));
  }
  const results = await Promise.all(acks);
  // The fake platform's pool of answers: 10 s each, as many at once as the bot's connection pool sends.
  // Each user is told first that the platform is slow (the notice), then gets the answer.
  const paced = () => stack.slack.responses.filter((r) => r.id.startsWith('paced-'));
  await until(
    () => paced().filter((r) => !isNotice(r.body)).length >= opts.commands,
    'every answer',
    180_000,
    200,
  ).catch(() => undefined);
  const answers = paced().filter((r) => !isNotice(r.body));
  const notices = paced().filter((r) => isNotice(r.body));
  const answerLatency = answers.map((r) => r.at - (sentAt.get(r.id) ?? r.at));
  const noticeLatency = notices.map((r) => r.at - (sentAt.get(r.id) ?? r.at));
  const ms = results.map((r) => r.ms);

  // The burst: all at once.
  const burst = await Promise.all(
    Array.from({ length: opts.commands }, (_, i) =>
      signer.command({ text: 'stats', userId: MEMBER_ID, responseUrlId: `burst-${i}` }),
    ),
  );
  const burstMs = burst.map((r) => r.ms);

  return {
    commands: opts.commands,
    perSecond: opts.perSecond,
    platformDelayMs: opts.platformDelayMs,
    ackP50: percentile(ms, 50),
    ackP99: percentile(ms, 99),
    ackMax: Math.max(...ms),
    non200: [...results, ...burst].filter((r) => r.status !== 200).length,
    answered: new Set(answers.map((r) => r.id)).size,
    noticed: new Set(notices.map((r) => r.id)).size,
    noticeMax: Math.max(...noticeLatency),
    answeredWithStats: answers.filter((r) => JSON.stringify(r.body).includes('Campaign dashboard')).length,
    answerP50: percentile(answerLatency, 50),
    answerP99: percentile(answerLatency, 99),
    burst: { ackP50: percentile(burstMs, 50), ackP99: percentile(burstMs, 99) },
  };
}
