/**
 * The stand-in's workflow steps answer the real WebClient as Slack does: a run started with `executeFunction`
 * ends once, through functions.completeSuccess (outputs checked against the declared output parameters) or
 * functions.completeError, with the errors the methods' pages list
 * (https://docs.slack.dev/reference/methods/functions.completeSuccess,
 * https://docs.slack.dev/reference/methods/functions.completeError).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LogLevel, WebClient } from '@slack/web-api';
import { MANIFEST_FUNCTIONS, startFakeSlack, type FakeSlack } from '../fakes/slack.js';
import { functionDefinitions } from '../../fakes/slack/functions.js';

let fake: FakeSlack;

const clientWith = (token: string) =>
  new WebClient(token, { slackApiUrl: fake.apiUrl, logLevel: LogLevel.ERROR, retryConfig: { retries: 0 } });

/** The error Slack answered, or 'ok'. */
async function answer(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'ok';
  } catch (err) {
    return String((err as { data?: { error?: string } }).data?.error ?? err);
  }
}

const statsRun = (teamId?: string) =>
  fake.executeFunction({ callbackId: 'get_campaign_stats', inputs: {}, ...(teamId ? { teamId } : {}) }).execution;

beforeAll(async () => {
  fake = await startFakeSlack({ teamId: 'T0FUNCS001' });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

describe('the stand-in’s workflow steps', () => {
  it('runs only declared steps with their required inputs, and describes the step in function_executed', () => {
    expect(MANIFEST_FUNCTIONS.map((f) => f.callback_id)).toEqual([
      'send_customer_reply',
      'get_campaign_stats',
      'list_bookings',
    ]);
    expect(() => fake.executeFunction({ callbackId: 'no_such_step', inputs: {} })).toThrow(/no function no_such_step/);
    // Nobody used the workflow (a scheduled run): the person it needs is missing.
    expect(() => fake.executeFunction({ callbackId: 'list_bookings', inputs: { campaign: 'camp-1' } })).toThrow(
      /needs inputs run_by/,
    );
    const { execution, event } = fake.executeFunction({
      callbackId: 'list_bookings',
      inputs: { campaign: 'c' },
      user: 'U1',
    });
    expect(event).toMatchObject({
      type: 'function_executed',
      function: { callback_id: 'list_bookings', title: 'List bookings', type: 'app' },
      inputs: { campaign: 'c', run_by: { id: 'U1', secret: expect.stringMatching(/^\w{16,}$/) } },
      function_execution_id: execution.id,
      bot_access_token: execution.token,
    });
    expect(execution.token).toMatch(/^xwfp-/);
  });

  it('fills user_context inputs with the person who used the workflow, which no workflow can set', () => {
    // https://docs.slack.dev/reference/types/user_context-type: Workflow Builder fills it, a builder cannot.
    expect(() =>
      fake.executeFunction({
        callbackId: 'list_bookings',
        inputs: { campaign: 'c', run_by: { id: 'U0SOMEONE1', secret: 'x' } },
        user: 'U1',
      }),
    ).toThrow(/run_by is a user_context: Slack fills it/);
    // Slack sends only the inputs a step declares: no user id a builder typed reaches the app.
    expect(() =>
      fake.executeFunction({
        callbackId: 'list_bookings',
        inputs: { campaign: 'c', requested_by: 'U0SOMEONE1' },
        user: 'U1',
      }),
    ).toThrow(/declares no inputs requested_by/);
  });

  it('refuses a manifest parameter type it does not model', () => {
    const declared = {
      notify: {
        title: 'Notify',
        description: 'd',
        input_parameters: { properties: { group: { type: 'slack#/types/usergroup_id', title: 'Group' } } },
        output_parameters: { properties: {} },
      },
    };
    expect(() => functionDefinitions(declared)).toThrow(
      /notify\.group has type slack#\/types\/usergroup_id, which the stand-in does not model/,
    );
  });

  it('takes the declared outputs once, with the run’s workflow token', async () => {
    const run = statsRun();
    const client = clientWith(run.token);
    const outputs = { summary: 'Campaign dashboard: 3 calls.', calls: 3 };
    expect(await answer(client.functions.completeSuccess({ function_execution_id: run.id, outputs }))).toBe('ok');
    expect(fake.functionExecution(run.id)).toMatchObject({ state: 'completed', outputs });

    fake.expectRefusal('functions.completeError', 'execution_not_in_running_state');
    expect(await answer(client.functions.completeError({ function_execution_id: run.id, error: 'late' }))).toBe(
      'execution_not_in_running_state',
    );
  });

  it('refuses outputs that do not match the declared output parameters', async () => {
    const run = statsRun();
    const client = clientWith(run.token);
    fake.expectRefusal('functions.completeSuccess', 'parameter_validation_failed');
    for (const outputs of [
      { summary: 'x' }, // `calls` is required
      { summary: 'x', calls: 3, extra: 1 }, // not declared
      { summary: 'x', calls: '3' }, // an integer, not a string
      { summary: 'x', calls: 2.5 },
    ]) {
      expect(await answer(client.functions.completeSuccess({ function_execution_id: run.id, outputs }))).toBe(
        'parameter_validation_failed',
      );
    }
    expect(fake.functionExecution(run.id)?.state).toBe('running');
  });

  it('refuses an unknown run, another workspace’s run, and another run’s token', async () => {
    const bot = clientWith(fake.botToken);
    fake.expectRefusal('functions.completeError', 'function_execution_not_found');
    expect(await answer(bot.functions.completeError({ function_execution_id: 'Fx0NOSUCHRUN', error: 'x' }))).toBe(
      'function_execution_not_found',
    );
    fake.expectRefusal('functions.completeError', 'access_denied');
    const elsewhere = statsRun('T0ELSEWHERE');
    expect(await answer(bot.functions.completeError({ function_execution_id: elsewhere.id, error: 'x' }))).toBe(
      'access_denied',
    );
    const mine = statsRun();
    expect(
      await answer(
        clientWith(statsRun().token).functions.completeError({ function_execution_id: mine.id, error: 'x' }),
      ),
    ).toBe('access_denied');
    // The workspace's bot token may end its runs; the error is what Slackbot shows.
    expect(await answer(bot.functions.completeError({ function_execution_id: mine.id, error: 'No key.' }))).toBe('ok');
    expect(fake.functionExecution(mine.id)).toMatchObject({ state: 'failed', error: 'No key.' });
  });

  it('forgets its runs on reset', () => {
    const run = statsRun();
    fake.reset();
    expect(fake.functionExecution(run.id)).toBeUndefined();
  });
});
