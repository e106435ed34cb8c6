/**
 * The signer speaks to a real Bolt App (HTTPReceiver on a free port) exactly as Slack does: Bolt's own
 * verification accepts its signatures, rejects forged / stale ones, and parses every payload kind; the
 * App talks back to the fake Slack (auth.test at start, views.open with the signer's trigger_id, …).
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { App, HTTPReceiver, LogLevel, verifySlackRequest } from '@slack/bolt';
import { startFakeSlack, type FakeSlack } from '../fakes/slack.js';
import { SlackSigner, slackSignature } from '../fakes/slack-signer.js';

const signingSecret = 'selftest-signing-secret-0123456789abcdef';
let fake: FakeSlack;
let app: App;
let signer: SlackSigner;
let botUrl: string;
const seen: { kind: string; body: unknown; retryNum?: number; retryReason?: string }[] = [];

const connectModal = (metadata: string) => ({
  type: 'modal' as const,
  callback_id: 'connect',
  private_metadata: metadata,
  title: { type: 'plain_text' as const, text: 'Connect' },
  submit: { type: 'plain_text' as const, text: 'Save' },
  blocks: [
    {
      type: 'input',
      block_id: 'key',
      label: { type: 'plain_text', text: 'API key' },
      element: { type: 'plain_text_input', action_id: 'value' },
    },
  ],
});

/** A form with a menu whose options the app serves (external data source), asked once 1 character is typed. */
const pickModal = {
  type: 'modal' as const,
  callback_id: 'pick',
  title: { type: 'plain_text' as const, text: 'Pick' },
  submit: { type: 'plain_text' as const, text: 'Go' },
  blocks: [
    {
      type: 'input' as const,
      block_id: 'camp',
      label: { type: 'plain_text' as const, text: 'Campaign' },
      element: { type: 'external_select' as const, action_id: 'value', min_query_length: 1 },
    },
    {
      type: 'input' as const,
      block_id: 'note',
      label: { type: 'plain_text' as const, text: 'Note' },
      element: { type: 'plain_text_input' as const, action_id: 'value' },
    },
  ],
};

beforeAll(async () => {
  fake = await startFakeSlack();
  const receiver = new HTTPReceiver({ signingSecret, logLevel: LogLevel.ERROR });
  app = new App({
    token: fake.botToken,
    receiver,
    clientOptions: { slackApiUrl: fake.apiUrl },
    logLevel: LogLevel.ERROR,
  });

  app.command('/campaign', async ({ ack, command, respond, client }) => {
    seen.push({ kind: 'command', body: command });
    if (command.text === 'ephemeral') {
      await ack({ text: 'ack body' });
      return;
    }
    await ack();
    if (command.text === 'connect') {
      await client.views.open({ trigger_id: command.trigger_id, view: connectModal(command.channel_id) });
    } else if (command.text === 'pick') {
      await client.views.open({ trigger_id: command.trigger_id, view: pickModal });
    } else if (command.text === 'card') {
      await client.chat.postMessage({
        channel: command.channel_id,
        text: 'Campaign card',
        blocks: [
          { type: 'section', text: { type: 'mrkdwn', text: '*Campaign*' } },
          {
            type: 'actions',
            block_id: 'card_actions',
            elements: [
              { type: 'button', action_id: 'refresh', value: 'camp_1', text: { type: 'plain_text', text: 'Refresh' } },
            ],
          },
        ],
      });
    } else {
      await respond({ text: `You said: ${command.text}` });
    }
  });
  app.action('refresh', async ({ ack, body, client }) => {
    await ack();
    seen.push({ kind: 'action', body });
    if (body.type === 'block_actions' && body.channel && body.message) {
      await client.chat.update({ channel: body.channel.id, ts: body.message.ts, text: 'refreshed', blocks: [] });
    }
  });
  app.view('connect', async ({ ack, view, body }) => {
    seen.push({ kind: 'view', body });
    const key = view.state.values.key?.value?.value;
    if (key === 'bad') await ack({ response_action: 'errors', errors: { key: 'That key was rejected' } });
    else await ack();
  });
  app.options<'block_suggestion'>({ block_id: 'camp' }, async ({ ack, body }) => {
    seen.push({ kind: 'options', body });
    const typed = body.value;
    const count = typed === 'many' ? 101 : 1;
    await ack({
      options: Array.from({ length: count }, (_, i) => ({
        text: { type: 'plain_text' as const, text: `${typed} ${i}` },
        value: `${typed}-${i}`,
      })),
    });
  });
  app.shortcut('clone_voice_from_message', async ({ ack, shortcut }) => {
    await ack();
    seen.push({ kind: 'shortcut', body: shortcut });
  });
  app.event('message', async ({ event, context, client }) => {
    seen.push({ kind: 'event', body: event, retryNum: context.retryNum, retryReason: context.retryReason });
    if ('channel' in event && 'ts' in event)
      await client.reactions.add({ channel: event.channel, timestamp: event.ts, name: 'eyes' });
  });

  const server = await app.start({ port: 0, host: '127.0.0.1' });
  botUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
  signer = new SlackSigner({ signingSecret, url: botUrl, fake });
});
afterAll(async () => {
  await app.stop();
  await fake.close();
});
beforeEach(() => {
  seen.length = 0;
});

describe('SlackSigner against a real Bolt App', () => {
  it('is verified by Bolt’s own verifySlackRequest', () => {
    const body = 'token=x&text=hello';
    const ts = Math.floor(Date.now() / 1000);
    expect(() =>
      verifySlackRequest({
        signingSecret,
        body,
        headers: { 'x-slack-signature': slackSignature(signingSecret, ts, body), 'x-slack-request-timestamp': ts },
      }),
    ).not.toThrow();
  });

  it('the App called auth.test on the fake at start (with the bot token)', async () => {
    const call = await fake.waitFor(() => fake.callsTo('auth.test')[0]);
    expect(call).toMatchObject({
      token: fake.botToken,
      response: { ok: true, user_id: fake.botUserId, bot_id: fake.botId },
    });
  });

  it('delivers a slash command (200, fast ack) whose respond() lands in fake.responses', async () => {
    const res = await signer.command({
      text: 'hello there',
      userId: 'U0HUMAN0001',
      channelId: 'C0TEST00001',
      responseUrlId: 'cmd-hello',
    });
    expect(res.status).toBe(200);
    expect(res.timedOut).toBe(false);
    expect(res.ms).toBeLessThan(3000);
    const post = await fake.waitFor(() => fake.responses.find((r) => r.id === 'cmd-hello'));
    expect(post.body).toEqual({ text: 'You said: hello there' });
    expect(seen[0]?.body).toMatchObject({
      command: '/campaign',
      text: 'hello there',
      user_id: 'U0HUMAN0001',
      channel_id: 'C0TEST00001',
      team_id: fake.teamId,
      api_app_id: fake.appId,
    });
  });

  it('returns the ack body', async () => {
    const res = await signer.command({ text: 'ephemeral' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ text: 'ack body' });
  });

  it('rejects a forged signature with 401', async () => {
    const body = new URLSearchParams({ command: '/campaign', text: 'help', user_id: 'U0HUMAN0001' }).toString();
    const res = await signer.raw(
      body,
      {},
      { signature: slackSignature('not-the-secret', Math.floor(Date.now() / 1000), body) },
    );
    expect(res.status).toBe(401);
    expect(seen).toEqual([]);
  });

  it('rejects a stale timestamp (> 5 minutes) with 401', async () => {
    const body = new URLSearchParams({ command: '/campaign', text: 'help', user_id: 'U0HUMAN0001' }).toString();
    const res = await signer.raw(body, {}, { timestamp: Math.floor(Date.now() / 1000) - 6 * 60 });
    expect(res.status).toBe(401);
    expect(seen).toEqual([]);
  });

  it('documents Bolt 5.1: a future-dated timestamp is NOT rejected (only staleness is checked)', async () => {
    const body = new URLSearchParams({
      command: '/campaign',
      text: 'ephemeral',
      user_id: 'U0HUMAN0001',
      channel_id: 'C0TEST00001',
    }).toString();
    const res = await signer.raw(body, {}, { timestamp: Math.floor(Date.now() / 1000) + 60 * 60 });
    expect(res.status).toBe(200);
  });

  it('opens a modal with the command’s trigger_id and submits it with the stored view', async () => {
    await signer.command({ text: 'connect', userId: 'U0ADMIN0001', channelId: 'C0ADMIN0001' });
    const opened = await fake.waitFor(() => fake.views('connect')[0]);
    expect(opened).toMatchObject({ userId: 'U0ADMIN0001', view: { private_metadata: 'C0ADMIN0001' } });
    expect(fake.callsTo('views.open')[0]?.response.ok).toBe(true);

    const good = await signer.viewSubmission({
      callbackId: 'connect',
      userId: 'U0ADMIN0001',
      values: { key: { value: { type: 'plain_text_input', value: 'sk_live_1' } } },
    });
    expect(good.status).toBe(200);
    expect(good.body).toBe('');
    expect(seen.at(-1)?.body).toMatchObject({
      type: 'view_submission',
      view: { id: opened.view.id, private_metadata: 'C0ADMIN0001', callback_id: 'connect' },
    });

    const bad = await signer.viewSubmission({
      callbackId: 'connect',
      values: { key: { value: { type: 'plain_text_input', value: 'bad' } } },
    });
    expect(bad.json).toEqual({ response_action: 'errors', errors: { key: 'That key was rejected' } });

    await expect(
      signer.viewSubmission({
        callbackId: 'connect',
        values: { nope: { value: { type: 'plain_text_input', value: 'x' } } },
      }),
    ).rejects.toThrow(/has no input nope\/value/);
  });

  it('sends an options request for a menu of the view, Bolt’s app.options answers, and Slack shows the options', async () => {
    await signer.command({ text: 'pick', userId: 'U0ADMIN0001' });
    const opened = await fake.waitFor(() => fake.views('pick')[0]);
    expect(fake.callsTo('views.open').at(-1)?.response.ok).toBe(true);
    const answer = await signer.blockSuggestion({
      callbackId: 'pick',
      blockId: 'camp',
      value: 'sp',
      userId: 'U0ADMIN0001',
    });
    expect(answer).toMatchObject({ status: 200, errors: [], options: [{ text: { text: 'sp 0' }, value: 'sp-0' }] });
    expect(fake.suggestions).toHaveLength(1);
    expect(seen.at(-1)?.body).toMatchObject({
      type: 'block_suggestion',
      block_id: 'camp',
      action_id: 'value',
      value: 'sp',
      user: { id: 'U0ADMIN0001' },
      container: { type: 'view', view_id: opened.view.id },
      view: { id: opened.view.id, callback_id: 'pick' },
    });
  });

  it('takes an answer over 100 options as Slack does — nothing shown — and counts it as a refusal', async () => {
    await signer.command({ text: 'pick' });
    await fake.waitFor(() => fake.views('pick')[0]);
    fake.expectRefusal('block_suggestion');
    const answer = await signer.blockSuggestion({ callbackId: 'pick', blockId: 'camp', value: 'many' });
    expect(answer.errors).toEqual(['[ERROR] no more than 100 items allowed [json-pointer:/options]']);
  });

  it('asks only for an external select the view has, once min_query_length characters are typed', async () => {
    await signer.command({ text: 'pick' });
    await fake.waitFor(() => fake.views('pick')[0]);
    await expect(signer.blockSuggestion({ callbackId: 'pick', blockId: 'note', value: 'x' })).rejects.toThrow(
      /has no external select at note\/value/,
    );
    await expect(signer.blockSuggestion({ callbackId: 'pick', blockId: 'camp', value: '' })).rejects.toThrow(
      /only once 1 characters are typed/,
    );
    expect(seen.some((s) => s.kind === 'options')).toBe(false);
  });

  it('delivers a block action carrying the stored message; the App updates it', async () => {
    await signer.command({ text: 'card', channelId: 'C0CARDS0001' });
    const card = await fake.waitFor(() => fake.messages('C0CARDS0001')[0]);
    const res = await signer.blockAction({
      actionId: 'refresh',
      channelId: 'C0CARDS0001',
      messageTs: card.ts,
      userId: 'U0HUMAN0001',
    });
    expect(res.status).toBe(200);
    await fake.waitFor(() => fake.message('C0CARDS0001', card.ts)?.text === 'refreshed');
    expect(seen.find((s) => s.kind === 'action')?.body).toMatchObject({
      type: 'block_actions',
      container: { type: 'message', message_ts: card.ts, channel_id: 'C0CARDS0001' },
      message: { ts: card.ts, blocks: card.blocks },
      actions: [
        { action_id: 'refresh', block_id: 'card_actions', value: 'camp_1', type: 'button', text: { text: 'Refresh' } },
      ],
    });
  });

  it('delivers a message shortcut', async () => {
    const res = await signer.shortcut({
      type: 'message_action',
      callbackId: 'clone_voice_from_message',
      channelId: 'C0TEST00001',
      message: { ts: '1700000000.000100', text: 'voice files', user: 'U0HUMAN0001' },
    });
    expect(res.status).toBe(200);
    expect(seen[0]?.body).toMatchObject({
      type: 'message_action',
      callback_id: 'clone_voice_from_message',
      message: { text: 'voice files' },
      channel: { id: 'C0TEST00001' },
    });
  });

  it('delivers events with retry headers, and the message exists in the fake for the App to react to', async () => {
    const first = await signer.event(
      {
        type: 'message',
        channel: 'C0HANDOFF01',
        user: 'U0HUMAN0001',
        text: 'customer reply',
        thread_ts: '1700000000.000100',
      },
      { eventId: 'Ev0SELFTEST1' },
    );
    expect(first.status).toBe(200);
    const reaction = await fake.waitFor(() => fake.callsTo('reactions.add')[0]);
    expect(reaction.response.ok).toBe(true);
    expect(fake.messages('C0HANDOFF01')[0]).toMatchObject({ text: 'customer reply', reactions: [{ name: 'eyes' }] });

    const retry = await signer.event(
      { type: 'message', channel: 'C0HANDOFF01', user: 'U0HUMAN0001', text: 'again', ts: '1700000001.000100' },
      { eventId: 'Ev0SELFTEST1', retryNum: 1, retryReason: 'http_timeout' },
    );
    expect(retry.status).toBe(200);
    await fake.waitFor(() => seen.find((s) => s.retryNum === 1));
    expect(seen.find((s) => s.retryNum === 1)).toMatchObject({ retryReason: 'http_timeout' });
  });

  it('answers url_verification with the challenge', async () => {
    const res = await signer.urlVerification('challenge-123');
    expect(res.json).toEqual({ challenge: 'challenge-123' });
  });
});
