/**
 * Fault: Redis stops answering without closing its connections (the process is stopped with SIGSTOP, as a
 * hung or partitioned Redis looks to a client). Must hold: a slash command is still acked within Slack's 3 s and
 * the user is told in one sentence that the store is not answering — in OAuth mode too, where the workspace's
 * installation is read before the ack — webhooks get a 503 (the platform retries), and everything works again
 * once Redis does. Every store command has a deadline (ioredis `commandTimeout`, src/store/redis-connection.ts).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BotProcess } from '../../bench/lib/bot-process.js';
import { STORE_UNAVAILABLE } from '../../src/app/failure.js';
import { deliveryBody, callCompleted, figure, startStack, TEAM_ID, until, type Stack } from './support.js';

let stack: Stack;
let single: BotProcess;
let oauth: BotProcess;
let hook: string;

beforeAll(async () => {
  stack = await startStack();
  hook = await stack.route([{ campaignId: 'camp-1', triggerName: 'call_completed', channelId: 'C0HANG0001' }]);
  single = await stack.startBot();
  // OAuth mode: the workspace's installation, as Bolt's install flow stores it, is read on every request.
  await stack.store.installations.storeInstallation({
    team: { id: TEAM_ID, name: 'Bench' },
    enterprise: undefined,
    user: { id: 'U0BENCHADM', token: undefined, scopes: undefined },
    bot: { id: 'B0BENCH001', userId: 'U0BENCHBOT', token: stack.slack.botToken, scopes: ['commands', 'chat:write'] },
    tokenType: 'bot',
    isEnterpriseInstall: false,
    appId: 'A0BENCH001',
    authVersion: 'v2',
  });
  oauth = await stack.startBot({
    env: {
      SLACK_BOT_TOKEN: '',
      SLACK_CLIENT_ID: 'bench-client-id',
      SLACK_CLIENT_SECRET: 'bench-client-secret',
      SLACK_STATE_SECRET: 'bench-state-secret-0123456789abcdef',
      CAMPAIGN_API_KEY_TEAM: TEAM_ID,
    },
  });
});
afterAll(async () => {
  const pid = stack?.redis.pid;
  if (pid !== undefined) process.kill(pid, 'SIGCONT');
  await stack?.close();
});

let n = 0;

/** `/campaign stats` to `bot`: when the ack came and what the user was told first, in ms from the send. */
async function stats(bot: BotProcess): Promise<{ status: number; ackMs: number; answerMs: number; text: string }> {
  const id = `hang-${++n}`;
  const sentAt = Date.now();
  const ack = await stack.signer(bot).command({ text: 'stats', userId: 'U0HANGUSR1', responseUrlId: id });
  const ackMs = Date.now() - sentAt;
  const answer = await until(() => stack.slack.responses.find((r) => r.id === id), 'the answer', 15_000);
  return { status: ack.status, ackMs, answerMs: answer.at - sentAt, text: JSON.stringify(answer.body) };
}

it('a hung Redis: commands are acked and told the store is not answering within 3 s, webhooks get 503; all well once it answers again', async () => {
  for (const bot of [single, oauth]) expect((await stats(bot)).text).toMatch(/Outbound/);

  const pid = stack.redis.pid!;
  process.kill(pid, 'SIGSTOP');
  let hung: Array<Awaited<ReturnType<typeof stats>>>;
  let webhook: { status: number; ms: number };
  try {
    hung = [await stats(single), await stats(oauth)];
    const sentAt = Date.now();
    const res = await fetch(`${single.url}${hook}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: deliveryBody(callCompleted('call-hung', { campaignId: 'camp-1' })),
    });
    webhook = { status: res.status, ms: Date.now() - sentAt };
  } finally {
    process.kill(pid, 'SIGCONT');
  }

  const [a, b] = hung;
  figure(
    'Redis hung (SIGSTOP)',
    `single-workspace: ack ${a!.ackMs} ms, told after ${a!.answerMs} ms; OAuth: ack ${b!.ackMs} ms, told after ${b!.answerMs} ms ("${STORE_UNAVAILABLE}"); webhook ${webhook.status} after ${webhook.ms} ms`,
  );
  for (const h of hung) {
    expect(h.status).toBe(200);
    expect(h.ackMs).toBeLessThanOrEqual(3_000);
    expect(h.answerMs).toBeLessThanOrEqual(3_000);
    expect(h.text).toContain(STORE_UNAVAILABLE);
  }
  expect(webhook.status).toBe(503);

  // Redis answers again: so does the bot, without a restart.
  for (const bot of [single, oauth]) expect((await stats(bot)).text).toMatch(/Outbound/);
  expect(single.alive() && oauth.alive()).toBe(true);
});
