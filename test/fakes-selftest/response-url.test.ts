/**
 * response_url posts: collected, effects applied (replace/delete/in_channel/ephemeral), Slack's 5-use limit.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LogLevel, WebClient } from '@slack/web-api';
import { startFakeSlack, type FakeSlack } from '../fakes/slack.js';

let fake: FakeSlack;

function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

beforeAll(async () => {
  fake = await startFakeSlack();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => fake.reset());

describe('fake Slack response_urls', () => {
  it('collects posts by id, as ephemerals by default', async () => {
    const url = fake.responseUrl('cmd-1', { channelId: 'C0TEST00001', userId: 'U0HUMAN0001' });
    const res = await post(url, { text: 'Working on it…' });
    expect(res.status).toBe(200);
    expect(fake.responses).toEqual([
      expect.objectContaining({ id: 'cmd-1', body: { text: 'Working on it…' }, status: 200 }),
    ]);
    expect(fake.ephemerals('C0TEST00001')).toEqual([
      expect.objectContaining({ user: 'U0HUMAN0001', text: 'Working on it…', via: 'response_url' }),
    ]);
    expect(fake.messages('C0TEST00001')).toEqual([]);
  });

  it('applies in_channel, replace_original and delete_original', async () => {
    const client = new WebClient(fake.botToken, { slackApiUrl: fake.apiUrl, logLevel: LogLevel.ERROR });
    const card = await client.chat.postMessage({ channel: 'C0TEST00001', text: 'card v1' });
    const url = fake.responseUrl('act', { channelId: 'C0TEST00001', messageTs: card.ts!, userId: 'U0HUMAN0001' });
    await post(url, { replace_original: true, text: 'card v2' });
    expect(fake.message('C0TEST00001', card.ts!)?.text).toBe('card v2');
    await post(url, { response_type: 'in_channel', text: 'for everyone' });
    expect(fake.messages('C0TEST00001').map((m) => m.text)).toEqual(['card v2', 'for everyone']);
    await post(url, { delete_original: true });
    expect(fake.messages('C0TEST00001').map((m) => m.text)).toEqual(['for everyone']);
  });

  it('rejects bad payloads and a sixth use like Slack', async () => {
    const url = fake.responseUrl('limited');
    fake.expectRefusal('response_url', 'no_text');
    expect((await post(url, {})).status).toBe(400);
    for (let i = 0; i < 5; i += 1) expect((await post(url, { text: `#${i}` })).status).toBe(200);
    fake.expectRefusal('response_url', 'used_url');
    const sixth = await post(url, { text: 'one too many' });
    expect(sixth.status).toBe(404);
    expect(await sixth.text()).toBe('used_url');
    expect(fake.responses.map((r) => r.status)).toEqual([400, 200, 200, 200, 200, 200, 404]);
  });
});
