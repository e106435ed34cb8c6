/**
 * Fault: Slack's Events API delivers one thread reply over and over — its retries (X-Slack-Retry-Num 1–3,
 * after "timeouts"), duplicate deliveries of the same message under other event ids, all at once, spread over
 * two bot processes behind one Redis. Must hold: the customer receives the reply once (one
 * send-human-response at the platform), and the reply gets its ✅.
 */
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { LINK_SESSION_ACTION } from '../../src/handoff/card.js';
import { LINK_SESSION_CALLBACK } from '../../src/handoff/index.js';
import type { SignedResult } from '../fakes/slack-signer.js';
import { deliveryBody, figure, MEMBER_ID, messageReceived, postJson, sleep, until, stackForTests } from './support.js';

const stack = stackForTests();

const COPIES = 40;

it('an Events API retry storm of one thread reply → the customer receives it once', async () => {
  const [a, b] = await Promise.all([stack.startBot(), stack.startBot()]);
  const [signA, signB] = [stack.signer(a), stack.signer(b)];
  const channel = 'C0STORM001';
  const campaignId = 'camp-storm';
  const hook = await stack.route([
    { campaignId, triggerName: 'message_received', channelId: channel },
    { campaignId, triggerName: 'message_sent', channelId: channel },
  ]);

  // A customer writes; the conversation's card and its first line appear.
  const customerNumber = '+14155550777';
  expect(
    (
      await postJson(
        `${a.url}${hook}`,
        deliveryBody(messageReceived(customerNumber, 'Can someone help me?', '2024-03-08T16:00:01.000Z', campaignId)),
      )
    ).status,
  ).toBe(200);
  // The card is the bot's top-level message: once its first line is threaded under it, Slack (and the stand-in)
  // gives the parent `thread_ts === ts`, so "no thread_ts" alone would miss it depending on timing.
  const card = await stack.slack.waitFor(
    () =>
      stack.slack
        .messages(channel)
        .find((m) => m.bot_id !== undefined && (m.thread_ts === undefined || m.thread_ts === m.ts)),
    10_000,
  );
  await stack.slack.waitFor(() => stack.slack.thread(channel, card.ts).length >= 2, 10_000);

  // An agent links the platform's chat session to the thread.
  const sessionId = `sess-${randomBytes(4).toString('hex')}`;
  stack.platform.state.sessions[sessionId] = { campaignId, handoff: true };
  const opened = stack.slack.callsTo('views.open').length;
  expect(
    (
      await signA.blockAction({
        actionId: LINK_SESSION_ACTION,
        channelId: channel,
        messageTs: card.ts,
        userId: MEMBER_ID,
      })
    ).status,
  ).toBe(200);
  await stack.slack.waitFor(() => stack.slack.callsTo('views.open').length > opened, 10_000);
  const submitted = await signA.viewSubmission({
    callbackId: LINK_SESSION_CALLBACK,
    userId: MEMBER_ID,
    values: { session_id: { value: { type: 'plain_text_input', value: sessionId } } },
  });
  expect(submitted.status).toBe(200);
  await stack.slack.waitFor(
    () => JSON.stringify(stack.slack.message(channel, card.ts)?.blocks ?? []).includes(sessionId),
    10_000,
  );

  // The agent's reply, and the storm: the first delivery, Slack's retries of it, and copies under other event
  // ids (the same message delivered again), all at once, to either process.
  const ts = stack.slack.nextTs();
  const eventId = `Ev${randomBytes(5).toString('hex').toUpperCase()}`;
  const reply = {
    type: 'message',
    channel,
    user: MEMBER_ID,
    text: 'Yes — your appointment is moved to Friday 9:30.',
    ts,
    thread_ts: card.ts,
  };
  const storm: Array<Promise<SignedResult>> = [];
  for (let i = 0; i < COPIES; i++) {
    const signer = i % 2 === 0 ? signA : signB;
    const retryNum = i % 4; // 0 = the first delivery, 1–3 = Slack's retries
    const sameEvent = i % 5 !== 4;
    storm.push(
      signer.event(reply, {
        ...(sameEvent ? { eventId } : {}),
        ...(retryNum > 0 ? { retryNum, retryReason: 'http_timeout' } : {}),
      }),
    );
  }
  const acks = await Promise.all(storm);
  expect(acks.map((r) => r.status)).toEqual(Array(COPIES).fill(200));

  const sent = () =>
    stack.platform.requests.filter(
      (r) => r.method === 'POST' && r.path === `/campaign-chat/${campaignId}/send-human-response`,
    );
  await until(() => sent().length >= 1, 'the reply sent to the platform', 10_000);
  await stack.slack.waitFor(
    () => (stack.slack.message(channel, ts)?.reactions ?? []).some((r) => r.name === 'white_check_mark'),
    10_000,
  );
  await sleep(2_000); // a second send would come now
  const received = stack.platform.state.humanResponses.filter((r) => r.sessionId === sessionId);
  figure(
    'Events API retry storm',
    `${COPIES} deliveries of one thread reply over 2 processes (retries 1–3 and copies under new event ids) → ${sent().length} send-human-response, the customer received it ${received.length} time(s)`,
  );
  expect(sent()).toHaveLength(1);
  expect(received).toHaveLength(1);
  expect(a.alive() && b.alive()).toBe(true);
});
