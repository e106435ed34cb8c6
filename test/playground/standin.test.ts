/**
 * What the Slack stand-in gained for the playground: an ephemeral's own response_url replaces or removes it
 * (paging buttons in ephemeral answers), and the view acks Slack applies itself (`response_action: update`
 * keeps the view id; `push` stacks a new view).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../fakes/slack.js';

let fake: FakeSlack;
beforeAll(async () => {
  fake = await startFakeSlack();
});
afterAll(async () => {
  await fake.close();
});

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('ephemeral response_urls', () => {
  it('replace_original replaces the ephemeral the action came from, delete_original removes it', async () => {
    const first = fake.responseUrl('cmd', { channelId: 'C0PAGE00001', userId: 'U0HUMAN0001' });
    await post(first, { text: 'Page 1' });
    const [page1] = fake.ephemerals('C0PAGE00001');
    const fromButton = fake.responseUrl('next', {
      channelId: 'C0PAGE00001',
      userId: 'U0HUMAN0001',
      ephemeralTs: page1!.ts,
    });
    await post(fromButton, { replace_original: true, text: 'Page 2' });
    expect(fake.ephemerals('C0PAGE00001').map((e) => e.text)).toEqual(['Page 2']);
    await post(fromButton, { delete_original: true });
    expect(fake.ephemerals('C0PAGE00001')).toEqual([]);
  });
});

describe('view acks', () => {
  it('replaceView keeps the id (so views.update still finds it); pushView stacks a new view', async () => {
    const trigger = fake.issueTrigger({ userId: 'U0HUMAN0001' });
    const opened = await fetch(`${fake.apiUrl}views.open`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${fake.botToken}` },
      body: JSON.stringify({
        trigger_id: trigger,
        view: { type: 'modal', title: { type: 'plain_text', text: 'One' }, blocks: [] },
      }),
    });
    const { view } = (await opened.json()) as { view: { id: string } };
    const replaced = fake.replaceView(view.id, {
      type: 'modal',
      title: { type: 'plain_text', text: 'Working…' },
      blocks: [],
    });
    expect(replaced).toMatchObject({ ok: true, view: { id: view.id, title: { text: 'Working…' } } });
    expect(
      fake.replaceView(view.id, {
        type: 'modal',
        title: { type: 'plain_text', text: 'A title far too long for Slack' },
        blocks: [],
      }).ok,
    ).toBe(false);
    const pushed = fake.pushView(view.id, { type: 'modal', title: { type: 'plain_text', text: 'Two' }, blocks: [] });
    expect(pushed).toMatchObject({ ok: true, view: { previous_view_id: view.id, root_view_id: view.id } });
    expect(fake.view(pushed.ok ? pushed.view.id : '')?.via).toBe('views.push');
  });
});
