/**
 * The fake answers the real @slack/web-api WebClient the way Slack does: transport, auth, shapes, errors,
 * 429 + Retry-After (retried by WebClient), stored messages/threads/reactions, views + trigger_ids.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode, LogLevel, WebClient, WebClientEvent, type WebAPIPlatformError } from '@slack/web-api';
import { startFakeSlack, type FakeSlack } from '../fakes/slack.js';

let fake: FakeSlack;
let client: WebClient;

function platformError(err: unknown): WebAPIPlatformError {
  expect(err).toMatchObject({ code: ErrorCode.PlatformError });
  return err as WebAPIPlatformError;
}

async function errorOf(p: Promise<unknown>): Promise<WebAPIPlatformError> {
  try {
    await p;
  } catch (err) {
    return platformError(err);
  }
  throw new Error('expected the call to fail');
}

beforeAll(async () => {
  fake = await startFakeSlack({ teamId: 'T0SELFTEST1', botUserId: 'U0SELFBOT01' });
  client = new WebClient(fake.botToken, { slackApiUrl: fake.apiUrl, logLevel: LogLevel.ERROR });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => fake.reset());

describe('fake Slack Web API with a real WebClient', () => {
  it('answers auth.test for the bot token, recording the bearer token', async () => {
    const res = await client.auth.test();
    expect(res).toMatchObject({ ok: true, team_id: 'T0SELFTEST1', user_id: 'U0SELFBOT01', bot_id: fake.botId });
    expect(res.url).toMatch(/^https:\/\/.+\.slack\.com\/$/);
    expect(fake.callsTo('auth.test')).toHaveLength(1);
    expect(fake.callsTo('auth.test')[0]).toMatchObject({ token: fake.botToken, encoding: 'form', status: 200 });
  });

  it('rejects missing and unknown tokens like Slack', async () => {
    const noToken = new WebClient(undefined, { slackApiUrl: fake.apiUrl, logLevel: LogLevel.ERROR });
    fake.expectRefusal('auth.test', 'not_authed');
    expect((await errorOf(noToken.auth.test())).data.error).toBe('not_authed');
    const wrong = new WebClient('xoxb-not-a-real-token', { slackApiUrl: fake.apiUrl, logLevel: LogLevel.ERROR });
    fake.expectRefusal('chat.postMessage', 'invalid_auth');
    expect((await errorOf(wrong.chat.postMessage({ channel: 'C0TEST00001', text: 'hi' }))).data.error).toBe(
      'invalid_auth',
    );
  });

  it('records chat.postMessage with blocks decoded from the form body and returns Slack’s shape', async () => {
    const blocks = [
      { type: 'section', block_id: 'summary', text: { type: 'mrkdwn', text: '*Campaign* ready' } },
      {
        type: 'actions',
        elements: [{ type: 'button', action_id: 'open', text: { type: 'plain_text', text: 'Open' }, value: 'c1' }],
      },
    ];
    const res = await client.chat.postMessage({ channel: 'C0TEST00001', text: 'Campaign ready', blocks });
    expect(res.ok).toBe(true);
    expect(res.channel).toBe('C0TEST00001');
    expect(res.ts).toMatch(/^\d{10}\.\d{6}$/);
    expect(res.message).toMatchObject({
      type: 'message',
      text: 'Campaign ready',
      user: 'U0SELFBOT01',
      bot_id: fake.botId,
      blocks,
    });

    const [call] = fake.callsTo('chat.postMessage');
    expect(call?.args).toMatchObject({ channel: 'C0TEST00001', text: 'Campaign ready', blocks });
    expect(Array.isArray(call?.args.blocks)).toBe(true);
    expect(fake.messages('C0TEST00001')).toEqual([
      expect.objectContaining({ ts: res.ts, text: 'Campaign ready', blocks }),
    ]);
  });

  it('accepts a JSON body with a bearer token (and records it decoded)', async () => {
    const res = await fetch(`${fake.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${fake.botToken}` },
      body: JSON.stringify({ channel: 'C0TEST00001', text: 'json', blocks: [{ type: 'divider' }] }),
    });
    expect(await res.json()).toMatchObject({ ok: true, channel: 'C0TEST00001' });
    expect(fake.callsTo('chat.postMessage')[0]).toMatchObject({
      encoding: 'json',
      args: { blocks: [{ type: 'divider' }] },
    });
    // ...but, like Slack, not a token inside a JSON body
    fake.expectRefusal('auth.test', 'not_authed');
    const noHeader = await fetch(`${fake.apiUrl}auth.test`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ token: fake.botToken }),
    });
    expect(await noHeader.json()).toMatchObject({ ok: false, error: 'not_authed' });
  });

  it('increases ts strictly and keeps threads with reply counts', async () => {
    const parent = await client.chat.postMessage({ channel: 'C0TEST00001', text: 'parent' });
    const r1 = await client.chat.postMessage({ channel: 'C0TEST00001', text: 'r1', thread_ts: parent.ts! });
    const r2 = await client.chat.postMessage({ channel: 'C0TEST00001', text: 'r2', thread_ts: parent.ts! });
    expect(Number(r1.ts) > Number(parent.ts) && Number(r2.ts) > Number(r1.ts)).toBe(true);
    const replies = await client.conversations.replies({ channel: 'C0TEST00001', ts: parent.ts! });
    expect(replies.messages?.map((m) => m.text)).toEqual(['parent', 'r1', 'r2']);
    expect(replies.messages?.[0]).toMatchObject({ reply_count: 2, thread_ts: parent.ts, latest_reply: r2.ts });
    const history = await client.conversations.history({ channel: 'C0TEST00001' });
    expect(history.messages?.map((m) => m.text)).toEqual(['parent']);
    fake.expectRefusal('conversations.replies', 'thread_not_found');
    expect((await errorOf(client.conversations.replies({ channel: 'C0TEST00001', ts: '1.000001' }))).data.error).toBe(
      'thread_not_found',
    );
  });

  it('updates and deletes only the bot’s own messages', async () => {
    const posted = await client.chat.postMessage({ channel: 'C0TEST00001', text: 'v1' });
    const updated = await client.chat.update({ channel: 'C0TEST00001', ts: posted.ts!, text: 'v2' });
    expect(updated).toMatchObject({ ok: true, ts: posted.ts, text: 'v2' });
    expect(fake.message('C0TEST00001', posted.ts!)).toMatchObject({ text: 'v2', edited: { user: 'U0SELFBOT01' } });
    const human = fake.addMessage({ channel: 'C0TEST00001', user: 'U0HUMAN0001', text: 'mine' });
    fake.expectRefusal('chat.update', 'cant_update_message');
    expect((await errorOf(client.chat.update({ channel: 'C0TEST00001', ts: human.ts, text: 'x' }))).data.error).toBe(
      'cant_update_message',
    );
    fake.expectRefusal('chat.update', 'message_not_found');
    expect(
      (await errorOf(client.chat.update({ channel: 'C0TEST00001', ts: '1700000000.000001', text: 'x' }))).data.error,
    ).toBe('message_not_found');
    await client.chat.delete({ channel: 'C0TEST00001', ts: posted.ts! });
    expect(fake.message('C0TEST00001', posted.ts!)).toBeUndefined();
  });

  it('adds reactions to stored messages (already_reacted / message_not_found like Slack)', async () => {
    const human = fake.addMessage({ channel: 'C0TEST00001', user: 'U0HUMAN0001', text: 'please relay' });
    await client.reactions.add({ channel: 'C0TEST00001', timestamp: human.ts, name: 'white_check_mark' });
    expect(fake.callsTo('reactions.add')[0]?.args).toEqual({
      channel: 'C0TEST00001',
      timestamp: human.ts,
      name: 'white_check_mark',
    });
    expect(fake.message('C0TEST00001', human.ts)?.reactions).toEqual([
      { name: 'white_check_mark', users: ['U0SELFBOT01'], count: 1 },
    ]);
    fake.expectRefusal('reactions.add', 'already_reacted');
    expect(
      (await errorOf(client.reactions.add({ channel: 'C0TEST00001', timestamp: human.ts, name: 'white_check_mark' })))
        .data.error,
    ).toBe('already_reacted');
    fake.expectRefusal('reactions.add', 'message_not_found');
    expect(
      (await errorOf(client.reactions.add({ channel: 'C0TEST00001', timestamp: '1.000002', name: 'x' }))).data.error,
    ).toBe('message_not_found');
  });

  it('answers users.info from added users, user_not_found otherwise', async () => {
    fake.addUser({ id: 'U0ADMIN0001', name: 'ada', real_name: 'Ada Admin', is_admin: true, tz: 'Europe/Berlin' });
    const res = await client.users.info({ user: 'U0ADMIN0001' });
    expect(res.user).toMatchObject({
      id: 'U0ADMIN0001',
      name: 'ada',
      real_name: 'Ada Admin',
      is_admin: true,
      is_owner: false,
      tz: 'Europe/Berlin',
      profile: { real_name: 'Ada Admin' },
    });
    expect([3600, 7200]).toContain(res.user?.tz_offset);
    expect(fake.callsTo('users.info')[0]?.args).toEqual({ user: 'U0ADMIN0001' });
    fake.expectRefusal('users.info', 'user_not_found');
    expect((await errorOf(client.users.info({ user: 'U0NOBODY001' }))).data.error).toBe('user_not_found');
  });

  it('retries a 429 with Retry-After itself, then succeeds (the fake sees both calls)', async () => {
    fake.rateLimit({ method: 'chat.postMessage', retryAfterSec: 1 });
    let rateLimitedFor: number | undefined;
    client.once(WebClientEvent.RATE_LIMITED, (sec: number) => {
      rateLimitedFor = sec;
    });
    const started = Date.now();
    const res = await client.chat.postMessage({ channel: 'C0TEST00001', text: 'after a 429' });
    expect(res.ok).toBe(true);
    expect(rateLimitedFor).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    const calls = fake.callsTo('chat.postMessage');
    expect(calls.map((c) => c.status)).toEqual([429, 200]);
    expect(calls[0]?.response).toEqual({ ok: false, error: 'ratelimited' });
    expect(fake.messages('C0TEST00001')).toHaveLength(1);
  });

  it('rejects rate-limited calls when the client asks for that (rejectRateLimitedCalls)', async () => {
    fake.rateLimit({ method: 'users.info', retryAfterSec: 7 });
    const strict = new WebClient(fake.botToken, {
      slackApiUrl: fake.apiUrl,
      rejectRateLimitedCalls: true,
      logLevel: LogLevel.ERROR,
    });
    await expect(strict.users.info({ user: 'U0SELFBOT01' })).rejects.toMatchObject({
      code: ErrorCode.RateLimitedError,
      retryAfter: 7,
    });
  });

  it('limits chat.postMessage per channel when asked', async () => {
    fake.channelRateLimit(1);
    const strict = new WebClient(fake.botToken, {
      slackApiUrl: fake.apiUrl,
      rejectRateLimitedCalls: true,
      logLevel: LogLevel.ERROR,
    });
    await strict.chat.postMessage({ channel: 'C0BUSY00001', text: '1' });
    await strict.chat.postMessage({ channel: 'C0CALM00001', text: 'other channel is fine' });
    await expect(strict.chat.postMessage({ channel: 'C0BUSY00001', text: '2' })).rejects.toMatchObject({
      code: ErrorCode.RateLimitedError,
      retryAfter: 1,
    });
  });

  it('fails a method on demand, then recovers', async () => {
    fake.failMethod('chat.postMessage', 'channel_not_found', 1);
    expect((await errorOf(client.chat.postMessage({ channel: 'C0TEST00001', text: 'x' }))).data.error).toBe(
      'channel_not_found',
    );
    expect((await client.chat.postMessage({ channel: 'C0TEST00001', text: 'x' })).ok).toBe(true);
  });

  it('answers unknown methods with unknown_method', async () => {
    fake.expectRefusal('campaign.doesNotExist', 'unknown_method');
    expect((await errorOf(client.apiCall('campaign.doesNotExist', {}))).data.error).toBe('unknown_method');
  });

  it('enforces Slack’s Block Kit limits and the manifest’s scopes', async () => {
    const tooMany = Array.from({ length: 51 }, () => ({ type: 'divider' }));
    fake.expectRefusal('chat.postMessage', 'invalid_blocks');
    const err = await errorOf(client.chat.postMessage({ channel: 'C0TEST00001', text: 'x', blocks: tooMany }));
    expect(err.data.error).toBe('invalid_blocks');
    expect(err.data.response_metadata?.messages?.[0]).toContain('[json-pointer:/blocks]');
    fake.expectRefusal('chat.postMessage', 'invalid_blocks');
    const empty = await errorOf(
      client.chat.postMessage({
        channel: 'C0TEST00001',
        blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '' } }],
      }),
    );
    expect(empty.data.error).toBe('invalid_blocks');
    fake.expectRefusal('chat.postMessage', 'no_text');
    expect((await errorOf(client.chat.postMessage({ channel: 'C0TEST00001', text: '' }))).data.error).toBe('no_text');
    // users.conversations for DMs needs im:read, which /manifest.yml does not request
    fake.expectRefusal('users.conversations', 'missing_scope');
    const scope = await errorOf(client.users.conversations({ user: 'U0ADMIN0001', types: 'public_channel,im' }));
    expect(scope.data).toMatchObject({ error: 'missing_scope', needed: 'im:read' });
  });

  it('lists a user’s channels with users.conversations: private ones only where the bot is too', async () => {
    fake.addChannel({ id: 'C0PUBLIC001', name: 'support', members: ['U0LISTED001'] });
    fake.addChannel({ id: 'C0PRIVATE01', name: 'vip', is_private: true, members: ['U0LISTED001'] });
    fake.addChannel({
      id: 'C0PRIVATE02',
      name: 'secret',
      is_private: true,
      is_member: false,
      members: ['U0LISTED001'],
    });
    fake.addChannel({ id: 'C0PUBLIC002', name: 'random', members: ['U0SOMEONE01'] });
    const ids = async (types?: string) =>
      ((await client.users.conversations({ user: 'U0LISTED001', ...(types ? { types } : {}) })).channels ?? [])
        .map((c) => c.id)
        .sort();
    expect(await ids()).toEqual(['C0PUBLIC001']);
    expect(await ids('public_channel,private_channel')).toEqual(['C0PRIVATE01', 'C0PUBLIC001']);
    const paged = await client.users.conversations({
      user: 'U0LISTED001',
      types: 'public_channel,private_channel',
      limit: 1,
    });
    expect(paged.channels).toHaveLength(1);
    expect(paged.response_metadata?.next_cursor).not.toBe('');
  });

  it('posts to channels the bot is not in fail with not_in_channel (no chat:write.public)', async () => {
    fake.addChannel({ id: 'C0OUTSIDE01', name: 'outside', is_member: false });
    fake.expectRefusal('chat.postMessage', 'not_in_channel');
    expect((await errorOf(client.chat.postMessage({ channel: 'C0OUTSIDE01', text: 'x' }))).data.error).toBe(
      'not_in_channel',
    );
    fake.addChannel({ id: 'C0ARCHIVED1', name: 'old', is_archived: true });
    fake.expectRefusal('chat.postMessage', 'is_archived');
    expect((await errorOf(client.chat.postMessage({ channel: 'C0ARCHIVED1', text: 'x' }))).data.error).toBe(
      'is_archived',
    );
  });

  it('opens, updates and pushes views with single-use, 3-second trigger_ids', async () => {
    const view = {
      type: 'modal' as const,
      callback_id: 'connect',
      title: { type: 'plain_text' as const, text: 'Connect' },
      submit: { type: 'plain_text' as const, text: 'Save' },
      private_metadata: 'C0TEST00001',
      blocks: [
        {
          type: 'input',
          block_id: 'key',
          label: { type: 'plain_text', text: 'API key' },
          element: { type: 'plain_text_input', action_id: 'value' },
        },
      ],
    };
    const trigger = fake.issueTrigger({ userId: 'U0ADMIN0001' });
    const opened = await client.views.open({ trigger_id: trigger, view });
    expect(opened.view).toMatchObject({
      id: expect.stringMatching(/^V/),
      callback_id: 'connect',
      private_metadata: 'C0TEST00001',
      type: 'modal',
    });
    expect(fake.callsTo('views.open')[0]?.args.view).toEqual(view);
    expect(fake.views('connect')).toEqual([expect.objectContaining({ userId: 'U0ADMIN0001', via: 'views.open' })]);
    fake.expectRefusal('views.open', 'exchanged_trigger_id');
    expect((await errorOf(client.views.open({ trigger_id: trigger, view }))).data.error).toBe('exchanged_trigger_id');
    fake.expectRefusal('views.open', 'invalid_trigger_id');
    expect((await errorOf(client.views.open({ trigger_id: 'made-up', view }))).data.error).toBe('invalid_trigger_id');

    const updated = await client.views.update({
      view_id: opened.view!.id!,
      view: { ...view, title: { type: 'plain_text', text: 'Connected' } },
    });
    expect(updated.view?.title).toMatchObject({ text: 'Connected' });
    fake.expectRefusal('views.update', 'not_found');
    expect((await errorOf(client.views.update({ view_id: 'V0NOPE00001', view }))).data.error).toBe('not_found');
    fake.expectRefusal('views.open', 'invalid_arguments');
    const badTitle = await errorOf(
      client.views.open({
        trigger_id: fake.issueTrigger(),
        view: { ...view, title: { type: 'plain_text', text: 'A title that is far too long for Slack' } },
      }),
    );
    expect(badTitle.data.error).toBe('invalid_arguments');
    expect(badTitle.data.response_metadata?.messages?.[0]).toContain('/view/title/text');

    const pushed = await client.views.push({ trigger_id: fake.issueTrigger({ viewId: opened.view!.id! }), view });
    expect(pushed.view).toMatchObject({ root_view_id: opened.view!.id, previous_view_id: opened.view!.id });
  });

  it('expires trigger_ids after 3 s', async () => {
    let now = Date.now();
    const clocked = await startFakeSlack({ expiryClock: () => now });
    try {
      const c = new WebClient(clocked.botToken, { slackApiUrl: clocked.apiUrl, logLevel: LogLevel.ERROR });
      const view = { type: 'modal' as const, title: { type: 'plain_text' as const, text: 'x' }, blocks: [] };
      const inTime = clocked.issueTrigger();
      const late = clocked.issueTrigger();
      now += 3_000;
      expect((await c.views.open({ trigger_id: inTime, view })).ok).toBe(true);
      now += 1;
      clocked.expectRefusal('views.open', 'expired_trigger_id');
      expect((await errorOf(c.views.open({ trigger_id: late, view }))).data.error).toBe('expired_trigger_id');
    } finally {
      await clocked.close();
    }
  });

  it('supports ephemerals, permalinks, DMs by user id and home tabs', async () => {
    const eph = await client.chat.postEphemeral({ channel: 'C0TEST00001', user: 'U0HUMAN0001', text: 'only you' });
    expect(eph.message_ts).toMatch(/^\d+\.\d{6}$/);
    expect(fake.ephemerals('C0TEST00001')).toEqual([
      expect.objectContaining({ user: 'U0HUMAN0001', text: 'only you' }),
    ]);
    const dm = await client.chat.postMessage({ channel: 'U0HUMAN0001', text: 'hello' });
    expect(dm.channel).toMatch(/^D/);
    const link = await client.chat.getPermalink({ channel: dm.channel!, message_ts: dm.ts! });
    expect(link.permalink).toBe(`https://campaign-test.slack.com/archives/${dm.channel}/p${dm.ts!.replace('.', '')}`);
    const home = await client.views.publish({
      user_id: 'U0HUMAN0001',
      view: { type: 'home', blocks: [{ type: 'divider' }] },
    });
    expect(home.view?.type).toBe('home');
  });

  it('waitFor resolves on a condition and explains a timeout', async () => {
    const waiting = fake.waitFor(() => fake.callsTo('chat.postMessage')[0]);
    await client.chat.postMessage({ channel: 'C0TEST00001', text: 'later' });
    expect((await waiting).args.text).toBe('later');
    // An async condition is awaited, not taken for a truthy promise.
    expect(await fake.waitFor(() => Promise.resolve(fake.callsTo('chat.postMessage').length))).toBe(1);
    await expect(fake.waitFor(() => fake.callsTo('chat.delete').length > 0, 100)).rejects.toThrow(
      /timed out after 100 ms.*chat\.delete[\s\S]*chat\.postMessage/,
    );
  });
});
