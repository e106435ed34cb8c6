/**
 * Fault: requests that are not from Slack, or not from the platform. Must hold: forged, stale and
 * future-dated Slack signatures are answered 401, webhook deliveries to wrong hook tokens 404 — and none of
 * them writes anything to the store, calls Slack or the platform, or answers a response_url.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import type { BotProcess } from '../../bench/lib/bot-process.js';
import { SIGNING_SECRET } from '../../bench/lib/bot-process.js';
import {
  callCompleted,
  deliveryBody,
  figure,
  MEMBER_ID,
  postJson,
  sleep,
  snapshotDiff,
  storeSnapshot,
  TEAM_ID,
  until,
  stackForTests,
} from './support.js';

const stack = stackForTests();
let bot: BotProcess;
let hook: string;
beforeAll(async () => {
  bot = await stack.startBot();
  hook = await stack.route([{ campaignId: '*', triggerName: 'call_completed', channelId: 'C0SIGNED01' }]);
  // The worker's first read creates the queue's wake-up stream: wait for it, so no snapshot sees it appear.
  await until(
    async () => (await stack.redis.client.exists(stack.store.keys.queueWakeups())) === 1,
    'the event worker’s first read',
    20_000,
  );
});

const sign = (secret: string, ts: number, body: string) =>
  `v0=${createHmac('sha256', secret).update(`v0:${ts}:${body}`).digest('hex')}`;
const now = () => Math.floor(Date.now() / 1000);

function bodies(): Array<{ kind: string; body: string; contentType: string }> {
  const command = new URLSearchParams({
    token: 'gIkuvaNzQIHg97ATvDxqgjtO',
    team_id: TEAM_ID,
    team_domain: 'bench',
    channel_id: 'C0SIGNED01',
    channel_name: 'signed',
    user_id: MEMBER_ID,
    user_name: 'max',
    command: '/campaign',
    text: 'stats',
    api_app_id: stack.slack.appId,
    response_url: stack.slack.responseUrl(`forged-${randomBytes(3).toString('hex')}`),
    trigger_id: `${now()}.1.${randomBytes(8).toString('hex')}`,
  }).toString();
  const action = new URLSearchParams({
    payload: JSON.stringify({
      type: 'block_actions',
      user: { id: MEMBER_ID },
      team: { id: TEAM_ID },
      api_app_id: stack.slack.appId,
      actions: [{ type: 'button', action_id: 'handoff_link_session', block_id: 'b', action_ts: `${now()}.000100` }],
      trigger_id: `${now()}.1.${randomBytes(8).toString('hex')}`,
      response_url: stack.slack.responseUrl(`forged-${randomBytes(3).toString('hex')}`),
    }),
  }).toString();
  const event = JSON.stringify({
    type: 'event_callback',
    team_id: TEAM_ID,
    api_app_id: stack.slack.appId,
    event_id: `Ev${randomBytes(5).toString('hex').toUpperCase()}`,
    event_time: now(),
    event: {
      type: 'message',
      channel: 'C0SIGNED01',
      user: MEMBER_ID,
      text: 'send this to the customer',
      ts: `${now()}.000200`,
      thread_ts: `${now() - 60}.000100`,
    },
  });
  return [
    { kind: 'slash command', body: command, contentType: 'application/x-www-form-urlencoded' },
    { kind: 'button click', body: action, contentType: 'application/x-www-form-urlencoded' },
    { kind: 'Events API message', body: event, contentType: 'application/json' },
  ];
}

it('forged, stale and future-dated Slack signatures → 401, and nothing happens', async () => {
  const signer = stack.signer(bot);
  const before = await storeSnapshot(stack.redis.client);
  stack.slack.reset();
  stack.platform.reset();

  const cases: Array<{
    name: string;
    headers?: Record<string, string>;
    timestamp?: number;
    signature?: (body: string, ts: number) => string;
  }> = [
    { name: 'signed with another secret', signature: (b, ts) => sign('not-the-signing-secret', ts, b) },
    { name: 'random signature', signature: () => `v0=${randomBytes(32).toString('hex')}` },
    { name: 'signature of another body', signature: (_b, ts) => sign(SIGNING_SECRET, ts, 'text=help') },
    { name: 'other version', signature: (b, ts) => sign(SIGNING_SECRET, ts, b).replace('v0=', 'v1=') },
    { name: 'empty signature', signature: () => '' },
    { name: 'no signature header', headers: { 'X-Slack-Signature': '' }, signature: () => '' },
    { name: 'stale by 6 minutes', timestamp: now() - 6 * 60 },
    { name: 'stale by a day', timestamp: now() - 86_400 },
    { name: 'future by 6 minutes', timestamp: now() + 6 * 60 },
    { name: 'future by a day', timestamp: now() + 86_400 },
    { name: 'timestamp not a number', headers: { 'X-Slack-Request-Timestamp': 'yesterday' } },
  ];
  const results: string[] = [];
  for (const c of cases) {
    for (const b of bodies()) {
      const ts = c.timestamp ?? now();
      const res = await signer.raw(b.body, c.headers ?? {}, {
        timestamp: ts,
        contentType: b.contentType,
        ...(c.signature ? { signature: c.signature(b.body, ts) } : {}),
      });
      results.push(`${c.name} / ${b.kind}: ${res.status}`);
      expect(res.status, `${c.name} / ${b.kind}`).toBe(401);
    }
  }
  await sleep(1_000);
  const changed = snapshotDiff(before, await storeSnapshot(stack.redis.client));
  figure(
    'bad Slack signatures',
    `${results.length} requests (${cases.length} forgeries × 3 payload kinds) → all 401; store changes ${changed.length}, Slack calls ${stack.slack.calls.length}, response_url posts ${stack.slack.responses.length}, platform requests ${stack.platform.requests.length}`,
  );
  expect(changed).toEqual([]);
  expect(stack.slack.calls).toHaveLength(0);
  expect(stack.slack.responses).toHaveLength(0);
  expect(stack.platform.requests).toHaveLength(0);

  // The same requests signed properly do get through (the forgeries were refused for their signature).
  const good = await signer.command({ text: 'help', userId: MEMBER_ID, responseUrlId: 'genuine' });
  expect(good.status).toBe(200);
});

it('wrong hook tokens → 404 (400 for a traversal), and nothing is written', async () => {
  const token = hook.split('/').at(-1)!;
  // A token that was the workspace's until it was replaced (the current one is put back after).
  const oldToken = token;
  const newToken = await stack.store.workspaces.createHookToken(TEAM_ID);
  await sleep(1_100); // replicas trust a token that resolved for up to 1 s
  const flipped = `${token.slice(0, 10)}${token[10] === 'A' ? 'B' : 'A'}${token.slice(11)}`;
  const wrong = [
    randomBytes(32).toString('base64url'),
    oldToken,
    flipped,
    token.toUpperCase() === token ? token.toLowerCase() : token.toUpperCase(),
    `${newToken}x`,
    newToken.slice(0, -1),
    'short',
    '',
    '..%2F..%2Fhealthz',
    '%E0%A4%A',
    'a'.repeat(5_000),
    `${newToken}%00`,
  ];
  const before = await storeSnapshot(stack.redis.client);
  stack.slack.reset();
  const statuses: string[] = [];
  for (const t of wrong) {
    const res = await postJson(
      `${bot.url}/hooks/${t}`,
      deliveryBody(callCompleted(`wrong-token-${randomBytes(3).toString('hex')}`)),
    );
    await res.arrayBuffer();
    statuses.push(`${t.slice(0, 12)}…: ${res.status}`);
    // An encoded traversal is refused before any route looks for a token.
    expect(res.status, `token ${t.slice(0, 40)}`).toBe(t.includes('%2F') ? 400 : 404);
  }
  await sleep(1_000);
  const changed = snapshotDiff(before, await storeSnapshot(stack.redis.client));
  figure(
    'wrong hook tokens',
    `${wrong.length} tokens (random, replaced, one character off, case-flipped, truncated, extended, malformed) → 404 (an encoded traversal 400); store changes ${changed.length}, Slack calls ${stack.slack.calls.length}`,
  );
  expect(changed).toEqual([]);
  expect(stack.slack.calls).toHaveLength(0);

  // The current token works.
  expect(
    (await postJson(`${bot.url}/hooks/${newToken}`, deliveryBody(callCompleted(`right-token-${Date.now()}`)))).status,
  ).toBe(200);
});
