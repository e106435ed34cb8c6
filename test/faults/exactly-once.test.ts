/**
 * Fault: the platform delivers the same event 50 times at once, spread over two bot processes that share
 * Redis. Must hold: every copy is answered 200, exactly one is queued, and Slack gets exactly one card (and
 * one transcript in its thread).
 */
import { expect, it } from 'vitest';
import { callCompleted, cardsFor, deliveryBody, figure, postJson, sleep, stackForTests } from './support.js';

const stack = stackForTests();

it('50 concurrent copies of one event across 2 bot processes → exactly 1 Slack post', async () => {
  const [a, b] = await Promise.all([stack.startBot(), stack.startBot()]);
  const channel = 'C0ONCE0001';
  const hook = await stack.route([{ campaignId: 'camp-once', triggerName: 'call_completed', channelId: channel }]);
  const callId = `once-${Date.now()}`;
  const body = deliveryBody(callCompleted(callId, { campaignId: 'camp-once' }));

  const answers = await Promise.all(
    Array.from({ length: 50 }, async (_, i) => {
      const res = await postJson(`${(i % 2 === 0 ? a : b).url}${hook}`, body);
      return { status: res.status, body: (await res.json()) as { queued?: number; duplicates?: number } };
    }),
  );
  expect(answers.map((x) => x.status)).toEqual(Array(50).fill(200));
  const queued = answers.reduce((n, x) => n + (x.body.queued ?? 0), 0);
  const duplicates = answers.reduce((n, x) => n + (x.body.duplicates ?? 0), 0);
  expect(queued).toBe(1);
  expect(duplicates).toBe(49);

  await stack.slack.waitFor(() => cardsFor(stack.slack, callId).length >= 1, 10_000);
  const card = cardsFor(stack.slack, callId)[0]!;
  await stack.slack.waitFor(
    () => stack.slack.messages(channel).some((m) => m.thread_ts !== undefined && m.thread_ts !== m.ts),
    10_000,
  );
  await sleep(2_000); // a second post would come within the worker's retry window
  const posts = stack.slack.callsTo('chat.postMessage').filter((c) => c.status === 200);
  figure(
    'exactly once',
    `50 copies over 2 processes → ${queued} queued, ${duplicates} duplicates, ${cardsFor(stack.slack, callId).length} card, ${posts.length} posts in all (card + transcript)`,
  );
  expect(cardsFor(stack.slack, callId)).toHaveLength(1);
  expect(posts).toHaveLength(2);
  expect(posts[1]!.args.thread_ts).toBe((card.response.ts as string | undefined) ?? 'missing');
  expect(a.alive() && b.alive()).toBe(true);
});
