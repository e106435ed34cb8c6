/**
 * The Workflow Builder steps end to end: the Slack stand-in runs a step (a signed `function_executed`), the bot
 * asks the platform simulator with the workspace's key, and the stand-in receives the run's one ending —
 * functions.completeSuccess with exactly the declared outputs, or functions.completeError with one sentence
 * (https://docs.slack.dev/reference/events/function_executed,
 * https://docs.slack.dev/reference/methods/functions.completeSuccess).
 */
import { describe, expect, it } from 'vitest';
import {
  ADMIN_ID,
  MEMBER_ID,
  TEAM_ID,
  harnessesPerTest,
  startHarness,
  storeOn,
  useHarness,
  type Harness,
} from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { waitFor } from '../support/wait.js';

const redis = await requireRedis();

const GUEST_ID = 'U0GUEST001';

/** Runs a step as Slack does; `user` is the person who used the workflow (Slack's `user_context` inputs). */
async function runStep(h: Harness, callbackId: string, inputs: Record<string, unknown>, user?: string) {
  const sent = await h.signer.functionExecuted({ callbackId, inputs, ...(user ? { user } : {}) });
  // Acknowledged within Slack's 3 s, before the step's work (Bolt's custom functions ack first).
  expect([sent.status, sent.timedOut]).toEqual([200, false]);
  const run = await h.slack.waitFor(() => {
    const r = h.slack.functionExecution(sent.executionId);
    return r && r.state !== 'running' ? r : undefined;
  });
  // The ending went with the run's own workflow token, and Slack took it.
  const endings = h.slack.calls.filter(
    (c) => c.method.startsWith('functions.complete') && c.args.function_execution_id === run.id,
  );
  expect(endings.map((c) => [c.token, c.response.ok])).toEqual([[run.token, true]]);
  // The workflow token is a Slack token like the bot's: never in a log line.
  expect(h.logs()).not.toContain(run.token.slice(5));
  return run;
}

const platformPaths = (h: Harness) => h.platform.requests.map((r) => `${r.method} ${r.path}`);

describe.each(['memory', 'redis'] as const)('workflow steps of a connected workspace (%s store)', (backend) => {
  const h = useHarness(async () => {
    const started = await startHarness({
      ...storeOn(backend, redis, `${redis.prefix}workflows-${backend}:`),
      unlimitedSlackBecause: 'workflow steps, not pace: every test ends runs against one stand-in',
    });
    started.slack.addUser({ id: GUEST_ID, name: 'gus', real_name: 'Gus Guest', is_restricted: true });
    return started;
  }, ['platform', 'slack']);

  describe('send_customer_reply', () => {
    it('sends the message to the handed-off session as the person who used the workflow', async () => {
      // Named as the commands take it: the bot has seen the campaign's name in its events.
      await h.bot.deps.store.catalog.note(TEAM_ID, 'campaigns', { id: 'camp-3', name: 'SMS Appointment Follow-up' });
      await h.bot.deps.store.agentLinks.set(TEAM_ID, MEMBER_ID, 'agent-riley');
      await h.bot.deps.store.agentLinks.set(TEAM_ID, ADMIN_ID, 'agent-ada');
      const run = await runStep(
        h,
        'send_customer_reply',
        {
          campaign: 'SMS Appointment Follow-up',
          session_id: 'sess-handoff-1',
          message: 'Your appointment is confirmed for Tuesday.',
        },
        MEMBER_ID,
      );
      // Slack named the person (`user_context`): their agent-link signs the reply.
      expect(run.inputs.run_by).toMatchObject({ id: MEMBER_ID, secret: expect.any(String) });
      expect(run).toMatchObject({ state: 'completed', outputs: { sent: true } });
      expect(h.platform.state.humanResponses).toEqual([
        {
          campaignId: 'camp-3',
          sessionId: 'sess-handoff-1',
          message: 'Your appointment is confirmed for Tuesday.',
          agentId: 'agent-riley',
        },
      ]);
    });

    it('fails the run with one sentence when the platform refuses a stale session', async () => {
      const run = await runStep(
        h,
        'send_customer_reply',
        { campaign: 'camp-3', session_id: 'sess-gone-7', message: 'Hello again' },
        MEMBER_ID,
      );
      expect(run.state).toBe('failed');
      const [sentence, reference] = (run.error ?? '').split('\n');
      expect(sentence).toBe(
        'The platform refused the reply: this chat session is stale, closed or not handed off to a human agent — give the step the customer’s current handed-off session.',
      );
      expect(reference).toMatch(/^HTTP 400 · code BAD_REQUEST · request id \S+$/);
      expect(h.platform.state.humanResponses).toEqual([]);
    });

    it('sends once when Slack delivers the same run again', async () => {
      const { execution, event } = h.slack.executeFunction({
        callbackId: 'send_customer_reply',
        inputs: { campaign: 'camp-3', session_id: 'sess-handoff-1', message: 'Only once' },
        user: MEMBER_ID,
      });
      await h.signer.event(event, { eventId: 'EvWORKFLOW01' });
      await h.slack.waitFor(() => h.slack.functionExecution(execution.id)?.state === 'completed');
      await h.signer.event(event, { eventId: 'EvWORKFLOW01', retryNum: 1, retryReason: 'http_timeout' });
      await waitFor(() => h.logs().includes('a repeated delivery of a step run already under way'), 'the retry');
      expect(h.platform.state.humanResponses.map((r) => r.message)).toEqual(['Only once']);
      expect(h.slack.callsTo('functions.completeSuccess')).toHaveLength(1);
    });

    it('ends a guest’s run with one sentence, and the platform is not asked', async () => {
      const run = await runStep(
        h,
        'send_customer_reply',
        { campaign: 'camp-3', session_id: 'sess-handoff-1', message: 'Hi' },
        GUEST_ID,
      );
      expect(run.state).toBe('failed');
      expect(run.error).toBe(
        'This step sends the reply as the person who used the workflow, and only active full members of this workspace can answer customers — ask a member to run it.',
      );
      expect(platformPaths(h)).toEqual([]);
    });

    it('tells which input is wrong', async () => {
      const run = await runStep(
        h,
        'send_customer_reply',
        { campaign: 'camp-3', session_id: 's'.repeat(201), message: 'Hi' },
        MEMBER_ID,
      );
      expect(run.error).toBe(
        'This step’s “Session id” is too long (at most 200 characters) — shorten it in the workflow.',
      );
      expect(platformPaths(h)).toEqual([]);
    });
  });

  describe('get_campaign_stats', () => {
    it('outputs the account’s dashboard figures', async () => {
      const run = await runStep(h, 'get_campaign_stats', {});
      // Seeded: Outbound 1,284 calls at 62 %, Inbound 412 at 97 %, Web 96 at 100 %; 143 + 58 + 12 bookings.
      // The rate weighted by calls: (62 × 1,284 + 97 × 412 + 100 × 96) / 1,792 = 72.08…
      expect(run.outputs).toEqual({
        summary:
          'Campaign dashboard: 1,792 calls (Outbound 1,284 · Inbound 412 · Web 96), 72.1% connected, 213 bookings made.',
        calls: 1792,
        connection_rate: 72.1,
        bookings_made: 213,
      });
      expect(platformPaths(h)).toEqual(['GET /dashboard/dashboard-stats']);
    });

    it('completes the run once Slack takes it, when its ending was refused with a 429 and then while Slack was degraded: kept on the road', async () => {
      h.slack.rateLimit({ method: 'functions.completeSuccess', times: 1, retryAfterSec: 1 });
      h.slack.failMethod('functions.completeSuccess', 'service_unavailable', 1);
      const sent = await h.signer.functionExecuted({ callbackId: 'get_campaign_stats', inputs: {} });
      expect(sent.status).toBe(200);
      const run = await h.slack.waitFor(() => {
        const r = h.slack.functionExecution(sent.executionId);
        return r && r.state !== 'running' ? r : undefined;
      });
      expect(run).toMatchObject({ state: 'completed', outputs: expect.objectContaining({ calls: 1792 }) });
      const endings = h.slack.calls.filter((c) => c.method === 'functions.completeSuccess');
      expect(endings.map((c) => [c.status, c.response.ok])).toEqual([
        [429, false],
        [200, false],
        [200, true],
      ]);
      // First tried with the run's workflow token; once Slack asked to wait, kept in the workspace's outbox and
      // sent on the road with its bot token (these methods take either: no scope required).
      expect(endings.map((c) => c.token?.startsWith('xwfp-'))).toEqual([true, false, false]);
    });

    it('outputs one top campaign’s figures', async () => {
      const run = await runStep(h, 'get_campaign_stats', { campaign: 'camp-1' });
      expect(run.outputs).toEqual({ summary: 'camp-1: 1,284 calls, 62% connected.', calls: 1284, connection_rate: 62 });
    });

    it('fails for a campaign the dashboard has no figures for', async () => {
      const run = await runStep(h, 'get_campaign_stats', { campaign: 'camp-3' });
      expect(run.error).toBe(
        'Campaign `camp-3` is not among the dashboard’s top campaigns, the only ones the platform gives figures for — leave the step’s “Campaign” empty for the account’s totals.',
      );
    });
  });

  describe('list_bookings', () => {
    it('outputs the count and the newest bookings for a full member, e-mails and numbers masked wherever the workflow posts them', async () => {
      const priya = h.platform.state.bookings['camp-1']!.find((b) => b.CustomerName === 'Priya Natarajan')!;
      priya.Reason = 'Slot taken; call her back on ４１５ ５５５ ０１４２ or zëd@example.com';
      const run = await runStep(h, 'list_bookings', { campaign: 'camp-1' }, MEMBER_ID);
      expect(run.outputs).toEqual({
        count: 3,
        list: [
          '⏳ James Chen <•••@example.com> — 2024-03-12 09:30 UTC, booking',
          '❌ Priya Natarajan <•••@example.com> — 2024-03-12 09:30 UTC, fail: Slot taken; call her back on ••• ••• 0142 or •••@example.com',
          '✅ Maria Lopez <•••@example.com> — 2024-03-11 16:00 UTC, success',
        ].join('\n'),
      });
    });

    it('ends a guest’s run with one sentence, and the platform is not asked', async () => {
      const run = await runStep(h, 'list_bookings', { campaign: 'camp-1' }, GUEST_ID);
      expect(run.error).toBe(
        'The “List bookings” step shows customer details (names, numbers, e-mails, messages), so it is for full members of this workspace, and guests can’t see it. Ask a member or an admin.',
      );
      expect(platformPaths(h)).toEqual([]);
    });

    it('says a campaign is unknown rather than listing nothing', async () => {
      const run = await runStep(h, 'list_bookings', { campaign: 'camp-zz' }, MEMBER_ID);
      expect(run.error).toMatch(/^I don’t know a campaign “camp-zz”/);
    });
  });
});

describe('workflow steps of a workspace with no platform key', () => {
  const start = harnessesPerTest();

  it.each([
    ['send_customer_reply', { campaign: 'camp-3', session_id: 'sess-handoff-1', message: 'Hi' }],
    ['get_campaign_stats', {}],
    ['list_bookings', { campaign: 'camp-1' }],
  ])('%s fails, telling to run /campaign connect', async (callbackId, inputs) => {
    const h = await start({ defaultApiKey: false });
    const run = await runStep(h, callbackId, inputs, MEMBER_ID);
    expect(run.error).toBe(
      'This workspace is not connected to the campaign platform yet — ask a Slack admin to run `/campaign connect`.',
    );
    expect(platformPaths(h)).toEqual([]);
  });
});
