/**
 * The Workflows panel in a real headless browser: the app's Workflow Builder steps (manifest.yml › functions) with
 * their fields, each run as Workflow Builder runs it — the Slack stand-in sends the bot a signed
 * `function_executed` — and the run's ending as Slack received it: outputs, or the message Slackbot shows.
 *
 * Needs /usr/bin/chromium (browser.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { browserTestsRun, type BrowserPage } from './browser.js';
import { usePlaygroundPage, type PlaygroundHarness } from './support.js';

describe.skipIf(!browserTestsRun)('Workflow Builder steps in the page', () => {
  let h: PlaygroundHarness;
  let b: BrowserPage;

  usePlaygroundPage((started, page) => {
    h = started;
    b = page;
  });
  beforeAll(() => b.page.getByRole('tab', { name: /Workflows/ }).click());

  const step = (title: string) => b.page.getByRole('form', { name: title });
  /** The newest run in the panel, once it ended. */
  async function lastRun(title: string) {
    const run = b.page.locator('#wf-runs .wf-run', { hasText: title }).first();
    await run.locator('.wf-state', { hasText: /completed|failed/ }).waitFor();
    return run;
  }
  /** The runs the stand-in holds, and the endings it took, for one step. */
  const endings = (callbackId: string) =>
    h.pg.slack.calls
      .filter((c) => c.method.startsWith('functions.complete') && c.response.ok === true)
      .map((c) => h.pg.slack.functionExecution(String(c.args.function_execution_id)))
      .filter((r) => r?.callbackId === callbackId);

  it('lists each step the manifest declares with its input fields', async () => {
    for (const title of ['Send a customer reply', 'Get campaign stats', 'List bookings']) await step(title).waitFor();
    const reply = step('Send a customer reply');
    for (const field of ['Campaign', 'Session id', 'Message'])
      await reply.getByRole('textbox', { name: field }).waitFor();
    expect(await reply.locator('.req').count()).toBe(4);
    // Who a step acts for is Slack's to say (user_context): shown, never a field anyone can set.
    for (const [title, field] of [
      ['Send a customer reply', 'Sent by'],
      ['List bookings', 'Requested by'],
    ] as const) {
      const who = step(title).getByRole('textbox', { name: field });
      expect(await who.inputValue()).toBe('Person who used this workflow');
      expect(await who.isDisabled()).toBe(true);
    }
    await b.page.locator('#wf-runs', { hasText: 'No run yet' }).waitFor();
    expect(b.pageErrors).toEqual([]);
  });

  it('List bookings runs through function_executed and shows the outputs Slack took', async () => {
    await step('List bookings').getByRole('button', { name: 'Run step' }).click();
    const run = await lastRun('List bookings');
    const text = await run.innerText();
    expect(text).toContain('✅ completed');
    expect(text).toContain('Requested by\n@you');
    const [ended] = endings('list_bookings');
    expect(ended).toMatchObject({ state: 'completed', inputs: { run_by: { id: 'U0PLAYYOU01' } } });
    const outputs = ended!.outputs as { count: number; list: string };
    expect(outputs.count).toBeGreaterThan(0);
    expect(text).toContain(`Bookings\n${outputs.count}`);
    // The first booking's line, as the step wrote it for a later step.
    expect(text).toContain(outputs.list.split('\n')[0]!);
    expect(b.pageErrors).toEqual([]);
  });

  it('as the guest, the same step fails with the sentence Slackbot shows', async () => {
    await b.page.locator('#you-select').selectOption('U0PLAYGWEN1');
    await b.page.locator('#you-role', { hasText: 'guest' }).waitFor();
    await step('List bookings').getByRole('button', { name: 'Run step' }).click();
    const run = b.page.locator('#wf-runs .wf-run', { hasText: 'by @gwen' }).first();
    await run.locator('.wf-state', { hasText: 'failed' }).waitFor();
    const text = await run.innerText();
    expect(text).toContain('Slackbot tells @gwen');
    expect(text).toContain('guests can’t see it');
    expect(endings('list_bookings').at(-1)?.error).toContain('guests can’t see it');
    await b.page.locator('#you-select').selectOption('U0PLAYYOU01');
    await b.page.locator('#you-role', { hasText: 'admin' }).waitFor();
    expect(b.pageErrors).toEqual([]);
  });

  it('Send a customer reply reaches the customer’s handed-off session', async () => {
    const reply = step('Send a customer reply');
    await reply.getByRole('textbox', { name: 'Message' }).fill('Your booking moved to Thursday 11:00.');
    await reply.getByRole('button', { name: 'Run step' }).click();
    const run = await lastRun('Send a customer reply');
    expect(await run.innerText()).toContain('Sent\ntrue');
    expect(h.pg.platform.state.humanResponses.at(-1)).toMatchObject({
      sessionId: 'sess-handoff-1',
      message: 'Your booking moved to Thursday 11:00.',
    });
    // The Simulate panel lists what the customer got.
    await b.page.getByRole('tab', { name: /Simulate/ }).click();
    await b.page.locator('#sim-human', { hasText: 'Your booking moved to Thursday 11:00.' }).waitFor();
    await b.page.getByRole('tab', { name: /Workflows/ }).click();
    expect(b.pageErrors).toEqual([]);
  });

  it('a required field left empty is refused as Workflow Builder would, and nothing runs', async () => {
    const before = h.pg.slack.calls.length;
    const stats = step('Get campaign stats');
    await stats.getByRole('textbox', { name: 'Campaign' }).fill('Spring Recall Reminders');
    const reply = step('Send a customer reply');
    await reply.getByRole('textbox', { name: 'Session id' }).fill('');
    await reply.getByRole('button', { name: 'Run step' }).click();
    await b.page.locator('.toast.error', { hasText: 'only with its “Session id” set' }).waitFor();
    expect(endings('send_customer_reply')).toHaveLength(1);
    expect(h.pg.slack.calls.slice(before).filter((c) => c.method.startsWith('functions.'))).toEqual([]);
    expect(b.pageErrors).toEqual([]);
  });

  it('Get campaign stats for a campaign outputs its figures', async () => {
    await step('Get campaign stats').getByRole('button', { name: 'Run step' }).click();
    const run = await lastRun('Get campaign stats');
    const text = await run.innerText();
    expect(text).toContain('✅ completed');
    expect(text).toContain('Spring Recall Reminders');
    const ended = endings('get_campaign_stats').at(-1);
    expect(text).toContain(String((ended?.outputs as { summary: string }).summary));
    expect(b.pageErrors).toEqual([]);
  });
});
