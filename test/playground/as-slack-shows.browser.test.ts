/**
 * The playground in a real headless browser, for what a call centre evaluating the app tries in ten minutes:
 * the platform keeps its books (calls change the dashboard, quota and bookings; dates are today's; the first
 * digest has two weeks behind it), the Slack switch (limits, outage, failures, lost answers, a channel that
 * refuses), messages rendered as Slack renders them, and a simulator that keeps what was chosen.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserTestsRun, openPage, type BrowserPage } from './browser.js';
import { customerFor } from '../../playground/call-outcomes.js';
import { CALLS, SUPPORT, startTestPlayground, type PlaygroundHarness } from './support.js';

describe.skipIf(!browserTestsRun)('the playground, as Slack would show it', () => {
  let h: PlaygroundHarness;
  let b: BrowserPage;

  beforeAll(async () => {
    h = await startTestPlayground();
    b = await openPage(h.pg.url.replace('localhost', '127.0.0.1'));
    await b.page.getByText('PLAYGROUND MODE').first().waitFor();
  }, 60_000);

  afterAll(async () => {
    await b?.close();
    await h?.pg.stop();
  });

  const box = () => b.page.getByRole('textbox', { name: 'Message', exact: true });
  async function run(command: string): Promise<void> {
    await box().fill(command);
    await box().press('Enter');
  }
  async function openSimulate(): Promise<void> {
    await b.page.getByRole('tab', { name: /Simulate/ }).click();
  }
  async function fireCall(campaignId: string, outcome: string, name: string): Promise<void> {
    await openSimulate();
    await b.page.locator('#sim-trigger').selectOption('call_completed');
    await b.page.locator('#sim-campaign').selectOption(campaignId);
    await b.page.locator('#sim-name').fill(name);
    await b.page.locator('#sim-outcome').selectOption(outcome);
    await b.page.getByRole('button', { name: 'Fire event' }).click();
    await b.page.locator('#sim-result .ok').first().waitFor();
  }

  it('a booked call counts in stats, quota and bookings; quota is this month', async () => {
    const month = new Date().toLocaleString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });
    await run('/campaign quota');
    const quota = b.page.locator('#messages .msg.ephemeral', { hasText: 'Usage quota' }).last();
    await quota.waitFor();
    expect(await quota.innerText()).toContain(month);
    expect(await quota.innerText()).not.toContain('2024');

    await fireCall('camp-1', 'booked', 'Ines Booked');
    await run('/campaign stats');
    await b.page.locator('#messages .msg.ephemeral', { hasText: '1,285' }).waitFor();
    await run('/campaign bookings camp-1');
    await b.page.locator('#messages .msg.ephemeral', { hasText: 'Ines Booked' }).waitFor();
    expect(b.pageErrors).toEqual([]);
  });

  it('the first digest shows its period and its charts, not "no baseline yet"', { timeout: 60_000 }, async () => {
    // A call today: the period has calls, so the card charts their outcomes.
    await fireCall('camp-1', 'booked', 'Pia Period');
    await b.page.getByRole('button', { name: '# general' }).click();
    await run('/campaign digest daily * at 09:00');
    await b.page.locator('#messages .msg', { hasText: 'now gets a digest' }).waitFor();
    await openSimulate();
    await b.page.locator('#sim-digest').click();
    const card = b.page.locator('#messages .msg', { has: b.page.locator('.bk-header', { hasText: 'Daily digest' }) });
    await card.waitFor();
    const text = await card.innerText();
    expect(text).toContain('in this period');
    expect(text).not.toContain('no baseline yet');
    // The card's charts as Slack draws them: bars per day, and the period's outcomes as a pie with its legend.
    const bars = card.locator('.bk-chart[data-chart-type="bar"]');
    expect(await bars.locator('.bk-chart-title').innerText()).toBe('Calls per day');
    expect(await bars.locator('rect.bk-chart-bar').count()).toBeGreaterThanOrEqual(7);
    expect(await bars.locator('.bk-chart-legend').innerText()).toMatch(/Last 7 days\s+Week before/);
    const box = await bars.locator('svg.bk-chart-svg').boundingBox();
    expect(box?.width).toBeGreaterThan(200);
    expect(
      await card.locator('.bk-chart[data-chart-type="pie"] path, .bk-chart[data-chart-type="pie"] circle').count(),
    ).toBeGreaterThanOrEqual(1);
    expect(await card.locator('img').count()).toBe(0);
    expect((await h.pg.bot.deps.store.reports.snapshots(h.pg.slack.teamId)).length).toBeGreaterThanOrEqual(14);
  });

  it('shortcodes show as Slack shows them, from the same emoji names the app uses', async () => {
    await run('On my way :car: :smile: :+1::skin-tone-3: :not_an_emoji_here:');
    const mine = b.page.locator('#messages .msg', { hasText: 'On my way' }).last();
    await mine.waitFor();
    const text = await mine.innerText();
    expect(text).toContain('🚗');
    expect(text).toContain('😄');
    expect(text).toContain(':not_an_emoji_here:');
  });

  it('a channel the bot was removed from pauses, its admin is told in a DM; back, Resume posts the call', async () => {
    // Slack's refusal of the post into a channel without the bot (the switch's doing), and of the share of an
    // earlier call's recording still waiting for that channel, if one is (whether it is depends on its transfer).
    h.pg.slack.expectRefusal('chat.postMessage', 'not_in_channel');
    h.pg.slack.expectRefusal('files.completeUploadExternal', 'not_in_channel');
    await openSimulate();
    await b.page.locator('[data-slack-channel="C0CALLS0001"]').selectOption('bot-removed');
    await b.page.locator('#slack-badge', { hasText: 'calls bot removed' }).waitFor();
    await fireCall('camp-1', 'no-answer', 'Paula Paused');
    await b.page.getByRole('button', { name: '@ Campaign' }).click();
    await b.page.locator('#messages .msg', { hasText: 'Campaign stopped posting in' }).waitFor();
    expect(h.pg.slack.messages(CALLS).some((m) => JSON.stringify(m).includes('Paula Paused'))).toBe(false);

    await b.page.locator('[data-slack-channel="C0CALLS0001"]').selectOption('normal');
    await b.page.locator('#slack-badge').waitFor({ state: 'hidden' });
    await b.page.getByRole('button', { name: '# general' }).click();
    await run('/campaign failed');
    const failed = b.page.locator('#messages .msg.ephemeral', { hasText: 'Resume' }).last();
    await failed
      .getByRole('button', { name: /Resume/ })
      .first()
      .click();
    await b.page.getByRole('button', { name: '# calls' }).click();
    await b.page.locator('#messages').getByText('Paula Paused').first().waitFor({ timeout: 15_000 });
    expect(b.pageErrors).toEqual([]);
  }, 40_000);

  it('with Slack down, the page says Slack would deliver nothing; calls wait and show once it is back', async () => {
    await openSimulate();
    // A recording of an earlier call whose upload the outage cut between its steps is looked up before it is
    // uploaded again: Slack answers files.info with file_not_found (whether it happens depends on when it fell).
    h.pg.slack.expectRefusal('files.info', 'file_not_found');
    await b.page.locator('#slack-switch input[value="down"]').click();
    await b.page.locator('#slack-badge', { hasText: 'Slack down' }).waitFor();
    await run('/campaign stats');
    await b.page.locator('.toast', { hasText: 'Slack is down (HTTP 503)' }).waitFor();
    await fireCall('camp-1', 'busy', 'Dora Down');
    // Slack answered every call 503 and did nothing: the call waits.
    await h.pg.slack.waitFor(() => h.pg.slack.calls.some((c) => c.status === 503));
    expect(h.pg.slack.messages(CALLS).some((m) => JSON.stringify(m).includes('Dora Down'))).toBe(false);

    await b.page.locator('#slack-switch input[value="normal"]').click();
    await b.page.locator('#slack-badge').waitFor({ state: 'hidden' });
    await b.page.getByRole('button', { name: '# calls' }).click();
    await b.page.locator('#messages').getByText('Dora Down').first().waitFor({ timeout: 30_000 });
    expect(b.pageErrors).toEqual([]);
  }, 60_000);

  it('with Slack failing, posts answer service_unavailable and go out once it heals', async () => {
    await b.page.locator('#slack-switch input[value="failing"]').click();
    await fireCall('camp-1', 'busy', 'Fiona Failing');
    await h.pg.slack.waitFor(() =>
      h.pg.slack.calls.some((c) => c.method === 'chat.postMessage' && c.response.error === 'service_unavailable'),
    );
    await b.page.locator('#slack-switch input[value="normal"]').click();
    await b.page.getByRole('button', { name: '# calls' }).click();
    await b.page.locator('#messages').getByText('Fiona Failing').first().waitFor({ timeout: 30_000 });
  }, 60_000);

  it('changing the event keeps the campaign, the customer and each event’s own text; a refused event says why', async () => {
    await openSimulate();
    const trigger = b.page.locator('#sim-trigger');
    await trigger.selectOption('message_received');
    await b.page.locator('#sim-campaign').selectOption('camp-3');
    await b.page.locator('#sim-name').fill('Kim Kept');
    await b.page.locator('#sim-number').fill('+14155550177');
    await b.page.locator('#sim-text').fill('Can I pay by card?');
    await trigger.selectOption('call_completed');
    expect(await b.page.locator('#sim-campaign').inputValue()).toBe('camp-3');
    expect(await b.page.locator('#sim-name').inputValue()).toBe('Kim Kept');
    // The customer's message is not the call's summary.
    expect(await b.page.locator('#sim-text').inputValue()).toBe('');
    await trigger.selectOption('message_received');
    expect(await b.page.locator('#sim-text').inputValue()).toBe('Can I pay by card?');

    await trigger.selectOption('message_session_completed');
    await b.page.getByRole('button', { name: 'Fire event' }).click();
    await b.page
      .locator('#sim-result .bad', { hasText: 'Chat session completed did nothing: no open conversation for Kim Kept' })
      .waitFor();
  });

  it('ephemeral messages are not replies in the thread header, and are gone on reload', async () => {
    await b.page.getByRole('button', { name: '# general' }).click();
    await run('/campaign help');
    const help = b.page.locator('#messages .msg.ephemeral', { hasText: 'For everyone' }).last();
    await help.waitFor();
    // A handoff thread with a reply nobody else sees (no session linked: told privately).
    await b.page.getByRole('button', { name: '# support' }).click();
    await openSimulate();
    await b.page.locator('#sim-trigger').selectOption('message_received');
    await b.page.locator('#sim-campaign').selectOption('camp-3');
    await b.page.locator('#sim-name').fill('Tess Thread');
    await b.page.locator('#sim-number').fill('+14155550188');
    await b.page.locator('#sim-text').fill('Hello?');
    await b.page.getByRole('button', { name: 'Fire event' }).click();
    const card = b.page.locator('#messages .msg', { hasText: 'Tess Thread' }).last();
    await card.locator('button.replies').click();
    const replyBox = b.page.getByRole('textbox', { name: 'Reply in thread' });
    await replyBox.fill('On it');
    await replyBox.press('Enter');
    const thread = b.page.locator('#thread-messages');
    await thread.locator('.msg.ephemeral').first().waitFor();
    const shown = await card.locator('button.replies').innerText();
    const onCard = Number(/\d+/.exec(shown)?.[0]);
    expect(await thread.locator('.thread-divider').innerText()).toBe(`${onCard} ${onCard === 1 ? 'reply' : 'replies'}`);

    await b.page.reload();
    await b.page.getByText('PLAYGROUND MODE').first().waitFor();
    await b.page.getByRole('button', { name: '# support' }).click();
    await b.page.locator('#messages .msg', { hasText: 'Tess Thread' }).last().waitFor();
    expect(await b.page.locator('#messages .msg.ephemeral').count()).toBe(0);
    await b.page.getByRole('button', { name: '# general' }).click();
    await b.page.locator('#messages .msg').first().waitFor();
    expect(await b.page.locator('#messages .msg.ephemeral', { hasText: 'For everyone' }).count()).toBe(0);
  });

  /** Top-level posts in #calls naming `name` (a card, or a roll-up listing it). */
  const postsNaming = (name: string) =>
    h.pg.slack
      .messages(CALLS)
      .filter((m) => (m.thread_ts === undefined || m.thread_ts === m.ts) && JSON.stringify(m).includes(name)).length;

  async function burst(): Promise<string[]> {
    await openSimulate();
    await b.page.locator('#sim-burst-campaign').selectOption('camp-1');
    await b.page.locator('#sim-burst').click();
    await b.page.locator('#sim-result', { hasText: '20 calls ended' }).waitFor();
    return Array.from({ length: 20 }, (_, i) => customerFor(i).customerName);
  }

  it('rate-limited: one post a second per channel, no burst; every call of a burst shows once, and a 429 is waited out', async () => {
    await openSimulate();
    await b.page.locator('#slack-switch input[value="rate-limited"]').click();
    await b.page.locator('#slack-badge', { hasText: 'Slack rate-limited' }).waitFor();
    const from = h.pg.slack.calls.length;
    const names = await burst();
    await b.page.getByRole('button', { name: '# calls' }).click();
    for (const name of names) await b.page.locator('#messages').getByText(name).first().waitFor({ timeout: 60_000 });
    for (const name of names) expect(postsNaming(name)).toBe(1);
    // Whether Slack answers 429 depends on what the bot posted there just before (its pace learns): when it does,
    // the next post to the channel waits out its Retry-After (1 s here), never sent again at once.
    const posts = h.pg.slack.calls
      .slice(from)
      .filter((c) => c.method === 'chat.postMessage' && String(c.args.channel) === CALLS);
    expect(posts.filter((c) => c.status === 200).length).toBeGreaterThan(0);
    for (const [i, call] of posts.entries()) {
      const next = posts[i + 1];
      if (call.status === 429 && next) expect(next.at - call.at).toBeGreaterThanOrEqual(1_000);
    }
    await b.page.locator('#slack-switch input[value="normal"]').click();
  }, 90_000);

  it('answers lost: the bot looks its posts up, and a burst shows every call once', async () => {
    await b.page.locator('#slack-switch input[value="answers-lost"]').click();
    const from = h.pg.slack.calls.length;
    // The burst's customers were in the previous one: count from here.
    const before = new Map(customerNames().map((n) => [n, postsNaming(n)]));
    await burst();
    await b.page.getByRole('button', { name: '# calls' }).click();
    await h.pg.slack.waitFor(() => customerNames().every((n) => postsNaming(n) === (before.get(n) ?? 0) + 1), 60_000);
    expect(h.pg.slack.calls.slice(from).some((c) => c.lost !== undefined)).toBe(true);
    await b.page.locator('#slack-switch input[value="normal"]').click();
    for (const n of customerNames()) expect(postsNaming(n)).toBe((before.get(n) ?? 0) + 1);
  }, 90_000);

  const customerNames = () => Array.from({ length: 20 }, (_, i) => customerFor(i).customerName);

  it('a read-only channel: the customer’s message waits for it, /campaign failed shows it paused, and Resume posts it', async () => {
    h.pg.slack.expectRefusal('chat.postMessage', 'restricted_action_read_only_channel');
    await openSimulate();
    await b.page.locator('[data-slack-channel="C0SUPPORT01"]').selectOption('read-only');
    await b.page.locator('#slack-badge', { hasText: 'support read-only' }).waitFor();
    await b.page.locator('#sim-trigger').selectOption('message_received');
    await b.page.locator('#sim-campaign').selectOption('camp-3');
    await b.page.locator('#sim-name').fill('Rhea Readonly');
    await b.page.locator('#sim-number').fill('+14155550199');
    await b.page.locator('#sim-text').fill('Is anyone there?');
    await b.page.getByRole('button', { name: 'Fire event' }).click();
    await b.page.getByRole('button', { name: '@ Campaign' }).click();
    await b.page.locator('#messages .msg', { hasText: 'lets only some people post' }).first().waitFor();

    await b.page.locator('[data-slack-channel="C0SUPPORT01"]').selectOption('normal');
    await b.page.getByRole('button', { name: '# general' }).click();
    await run('/campaign failed');
    const failed = b.page.locator('#messages .msg.ephemeral', { hasText: 'Events that could not be posted' }).last();
    await failed.getByText('1 post waits for it').waitFor();
    await failed.getByRole('button', { name: 'Resume' }).click();
    await h.pg.slack.waitFor(
      () => h.pg.slack.messages(SUPPORT).some((m) => JSON.stringify(m).includes('Rhea Readonly')),
      20_000,
    );
    expect(b.pageErrors).toEqual([]);
  }, 40_000);

  it('while the bot is away, the page backs off instead of filling the console with failed polls', async () => {
    const port = h.pg.port;
    const failedAt: number[] = [];
    b.page.on('requestfailed', (req) => {
      if (req.url().includes('/playground/state')) failedAt.push(Date.now());
    });
    await h.pg.stop();
    const banner = b.page.locator('#restart-banner');
    await banner.getByText('not answering').waitFor();
    // Four failed polls: at a steady 400 ms they would come 400 ms apart; backing off, each gap about doubles.
    await expect.poll(() => failedAt.length, { timeout: 20_000, interval: 200 }).toBeGreaterThanOrEqual(4);
    const gaps = failedAt.slice(1, 4).map((t, i) => t - failedAt[i]!);
    for (let i = 1; i < gaps.length; i += 1) expect(gaps[i]!).toBeGreaterThan(gaps[i - 1]! * 1.5);
    h = await startTestPlayground(port);
    await banner.getByText('The bot restarted').waitFor({ timeout: 15_000 });
    expect(b.pageErrors).toEqual([]);
  }, 40_000);
});
