/**
 * Slack down, as the pace sees it, against the Slack stand-in: a few failures in a row (5xx, or an `ok:false` that
 * heals such as `service_unavailable`) and background calls stop reaching Slack but for one probe now and then; the
 * answer to a probe tells whoever waits that Slack is back, so waiting posts go then and not at their next try. A
 * workspace over its message limit is that workspace's limit, not Slack down.
 */
import { LogLevel, WebClient } from '@slack/web-api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SLACK_CLIENT_RULES } from '../../src/delivery/clients.js';
import { SlackPace, slackLimits } from '../../src/delivery/pace.js';
import { MemoryRateBudget } from '../../src/store/rate-budget.js';
import { startFakeSlack, type FakeSlack } from '../fakes/slack.js';

let slack: FakeSlack;
beforeAll(async () => {
  slack = await startFakeSlack();
  slack.addChannel({ id: 'C0HEALTH', name: 'health' });
});
afterAll(() => slack?.close());

it('Slack answering ok:false service_unavailable is Slack down: only probes reach it, and its first answer says it is back', async () => {
  const clock = { now: Date.now() };
  // Pacing aside (pacing.test.ts): a channel's posts are not limited here.
  const limits = { ...slackLimits(1), channelPosts: { intervalMs: 1, burst: 100 } };
  const pace = new SlackPace(new MemoryRateBudget(), {}, limits, () => clock.now);
  const client = new WebClient(slack.botToken, {
    slackApiUrl: slack.apiUrl,
    fetch: pace.fetch({ background: true, urgency: 'routine', team: 'T1' }),
    ...SLACK_CLIENT_RULES,
    logLevel: LogLevel.ERROR,
  });
  let backs = 0;
  pace.onSlackBack(() => backs++);
  const post = (text: string) => client.chat.postMessage({ channel: 'C0HEALTH', text });
  const reached = () => slack.callsTo('chat.postMessage').length;

  // https://docs.slack.dev/reference/methods/chat.postMessage › Errors: service_unavailable heals by itself.
  slack.failMethod('chat.postMessage', 'service_unavailable', 4);
  for (let i = 0; i < 3; i++)
    await expect(post(`try ${i}`)).rejects.toMatchObject({ data: { error: 'service_unavailable' } });
  expect(pace.slackDown).toBe(true);
  // Down: the next calls do not reach Slack; they are told when to come back.
  const tries = reached();
  const waited = await post('while down').catch((err: unknown) => err);
  expect(pace.judge(waited)).toMatchObject({ class: 'wait', delayMs: expect.any(Number) });
  expect(reached()).toBe(tries);

  // The probe's time: one call goes, Slack still degraded; the next probe waits longer.
  clock.now += 1_000;
  await expect(post('probe 1')).rejects.toMatchObject({ data: { error: 'service_unavailable' } });
  expect(reached()).toBe(tries + 1);
  const between = await post('between probes').catch((err: unknown) => err);
  expect(pace.judge(between)).toMatchObject({ class: 'wait', delayMs: expect.any(Number) });
  expect(reached()).toBe(tries + 1);
  expect(backs).toBe(0);

  // Slack heals; the next probe is answered and whoever waits is told once.
  clock.now += 2_000;
  await post('probe 2');
  expect(backs).toBe(1);
  expect(pace.slackDown).toBe(false);
  await post('after');
  expect(backs).toBe(1);
  expect(slack.messages('C0HEALTH').map((m) => m.text)).toEqual(['probe 2', 'after']);
});

it('a workspace over its message limit is not Slack down: after three workspaces are refused, a fourth still posts', async () => {
  const limits = { ...slackLimits(1), channelPosts: { intervalMs: 1, burst: 100 } };
  const pace = new SlackPace(new MemoryRateBudget(), {}, limits);
  const clientOf = (team: string) =>
    new WebClient(slack.botToken, {
      slackApiUrl: slack.apiUrl,
      fetch: pace.fetch({ background: true, urgency: 'routine', team }),
      ...SLACK_CLIENT_RULES,
      logLevel: LogLevel.ERROR,
    });
  // https://docs.slack.dev/reference/methods/chat.postMessage › Errors: message_limit_exceeded (the workspace's plan).
  slack.failMethod('chat.postMessage', 'message_limit_exceeded', 3);
  for (const team of ['T1', 'T2', 'T3'])
    await expect(clientOf(team).chat.postMessage({ channel: 'C0HEALTH', text: `over ${team}` })).rejects.toMatchObject({
      data: { error: 'message_limit_exceeded' },
    });
  expect(pace.slackDown).toBe(false);
  await clientOf('T4').chat.postMessage({ channel: 'C0HEALTH', text: 'another workspace' });
  expect(slack.messages('C0HEALTH').map((m) => m.text)).toContain('another workspace');
});
