/**
 * Socket Mode against a real Bolt App: the SDK's own SocketModeClient calls apps.connections.open on the fake
 * with the app-level token, connects to the returned ws:// URL, waits for `hello`, receives envelopes from
 * SocketModeDriver and acks them over the socket, pings (and must get pongs), reconnects after Slack's
 * `disconnect`, and fails visibly when configured with the wrong kind of token.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { App, LogLevel, SocketModeReceiver, type AppOptions, type Logger } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import { WebSocket } from 'ws';
import { startFakeSlack, type FakeSlack } from '../fakes/slack.js';
import { SocketModeDriver } from '../fakes/socket-mode.js';

const seen: { kind: string; body: unknown; retryNum?: number; retryReason?: string }[] = [];

/** Registers the same small set of listeners on any App under test. */
function listen(app: App): void {
  app.command('/campaign', async ({ ack, command, respond }) => {
    seen.push({ kind: 'command', body: command });
    if (command.text === 'silent') return; // never acks: Slack would time out
    if (command.text === 'ephemeral') {
      await ack({ text: 'ack body' });
      return;
    }
    await ack();
    await respond({ text: `You said: ${command.text}` });
  });
  app.action('refresh', async ({ ack, body, client }) => {
    await ack();
    seen.push({ kind: 'action', body });
    if (body.type === 'block_actions' && body.channel && body.message) {
      await client.chat.update({ channel: body.channel.id, ts: body.message.ts, text: 'refreshed', blocks: [] });
    }
  });
  app.view('connect', async ({ ack, view }) => {
    seen.push({ kind: 'view', body: view });
    if (view.state.values.key?.value?.value === 'bad')
      await ack({ response_action: 'errors', errors: { key: 'That key was rejected' } });
    else await ack();
  });
  app.event('message', async ({ event, context, client }) => {
    seen.push({ kind: 'event', body: event, retryNum: context.retryNum, retryReason: context.retryReason });
    if ('channel' in event && 'ts' in event)
      await client.reactions.add({ channel: event.channel, timestamp: event.ts, name: 'eyes' });
  });
}

/** A Bolt/SDK logger that keeps info/warn/error lines (what an operator would read). */
function captureLogger(lines: string[]): Logger {
  let level = LogLevel.INFO;
  const keep = (...msg: unknown[]): void => {
    lines.push(msg.map((m) => (m instanceof Error ? m.message : String(m))).join(' '));
  };
  return {
    debug: () => undefined,
    info: keep,
    warn: keep,
    error: keep,
    setLevel: (l: LogLevel) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}

beforeEach(() => {
  seen.length = 0;
});

interface Running {
  fake: FakeSlack;
  app: App;
  slack: SocketModeDriver;
}

/**
 * For a describe block's tests: a stand-in (`fakeOptions`), a Bolt App (`appOptions`) with `listen`'s listeners
 * started in Socket Mode against it, and the driver pushing envelopes over its socket. Read inside the tests.
 */
function socketModeApp(
  fakeOptions: Parameters<typeof startFakeSlack>[0],
  appOptions: (fake: FakeSlack) => AppOptions,
): Running {
  const running = {} as Running;
  beforeAll(async () => {
    running.fake = await startFakeSlack(fakeOptions);
    running.app = new App(appOptions(running.fake));
    listen(running.app);
    await running.app.start();
    running.slack = new SocketModeDriver({ fake: running.fake });
  });
  afterAll(async () => {
    await running.app.stop();
    await running.slack.close();
    await running.fake.close();
  });
  return running;
}

describe('Socket Mode: a Bolt App configured like production (socketMode: true)', () => {
  const running = socketModeApp({}, (fake) => ({
    socketMode: true,
    appToken: fake.appToken,
    token: fake.botToken,
    // Bolt hands clientOptions to the SocketModeClient too (installerOptions.clientOptions), so
    // apps.connections.open goes to the fake as well.
    clientOptions: { slackApiUrl: fake.apiUrl },
    logLevel: LogLevel.ERROR,
  }));
  let fake: FakeSlack;
  let slack: SocketModeDriver;
  beforeAll(() => {
    ({ fake, slack } = running);
  });

  it('connects like Slack: apps.connections.open with the app-level token, a one-time ws:// URL, then hello', async () => {
    const open = fake.callsTo('apps.connections.open');
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({ token: fake.appToken, response: { ok: true } });
    expect(String(open[0]?.response.url)).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/link\/\?ticket=[0-9a-f-]{36}&app_id=/);
    const conn = await slack.waitForConnection();
    expect(conn.id).toBe('ws1');
    expect(conn.closedAt).toBeUndefined();
    expect(conn.helloAt).toBeTypeOf('number');
    // The bot token is still what the App uses for the Web API.
    expect(fake.callsTo('auth.test')[0]).toMatchObject({ token: fake.botToken, response: { ok: true } });
    expect(fake.serverErrors).toEqual([]);
  });

  it('delivers a slash command as a slash_commands envelope; the ack returns over the socket; respond() lands in fake.responses', async () => {
    const ack = await slack.command({
      text: 'hello there',
      userId: 'U0HUMAN0001',
      channelId: 'C0TEST00001',
      responseUrlId: 'sm-hello',
    });
    expect(ack.payload).toEqual({}); // Bolt's bare ack()
    expect(ack.timedOut).toBe(false);
    expect(ack.ms).toBeLessThan(3000);
    expect(ack.envelope).toMatchObject({
      type: 'slash_commands',
      accepts_response_payload: true,
      payload: {
        command: '/campaign',
        text: 'hello there',
        user_id: 'U0HUMAN0001',
        channel_id: 'C0TEST00001',
        team_id: fake.teamId,
        is_enterprise_install: 'false',
      },
    });
    const post = await fake.waitFor(() => fake.responses.find((r) => r.id === 'sm-hello'));
    expect(post.body).toEqual({ text: 'You said: hello there' });
    expect(seen[0]?.body).toMatchObject({ command: '/campaign', text: 'hello there', api_app_id: fake.appId });
    expect(fake.socketAcks.at(-1)?.envelopeId).toBe(ack.envelopeId);
  });

  it('returns what the listener passed to ack() as the ack payload', async () => {
    const ack = await slack.command({ text: 'ephemeral' });
    expect(ack.payload).toEqual({ text: 'ack body' });
  });

  it('delivers a block action on a stored message; the bot’s chat.update reaches the fake', async () => {
    const msg = fake.addMessage({
      channel: 'C0TEST00001',
      user: fake.botUserId,
      text: 'card',
      blocks: [
        {
          type: 'actions',
          block_id: 'card_actions',
          elements: [
            { type: 'button', action_id: 'refresh', value: 'camp_1', text: { type: 'plain_text', text: 'Refresh' } },
          ],
        },
      ],
    });
    const ack = await slack.blockAction({ actionId: 'refresh', channelId: 'C0TEST00001', messageTs: msg.ts });
    expect(ack.envelope).toMatchObject({
      type: 'interactive',
      accepts_response_payload: true,
      payload: {
        type: 'block_actions',
        actions: [{ action_id: 'refresh', block_id: 'card_actions', value: 'camp_1' }],
        message: { ts: msg.ts },
      },
    });
    const update = await fake.waitFor(() => fake.callsTo('chat.update')[0]);
    expect(update.args).toMatchObject({ channel: 'C0TEST00001', ts: msg.ts, text: 'refreshed' });
  });

  it('carries a view_submission ack’s response_action back to Slack', async () => {
    const ack = await slack.viewSubmission({
      callbackId: 'connect',
      values: { key: { value: { type: 'plain_text_input', value: 'bad' } } },
    });
    expect(ack.payload).toEqual({ response_action: 'errors', errors: { key: 'That key was rejected' } });
  });

  it('acks an event; the first delivery has retry_attempt 0 (Bolt’s retryNum is 0, not undefined as over HTTP)', async () => {
    const ack = await slack.event({ type: 'message', channel: 'C0TEST00001', user: 'U0HUMAN0001', text: 'hi bot' });
    expect(ack.payload).toEqual({});
    expect(ack.envelope).toMatchObject({
      type: 'events_api',
      accepts_response_payload: false,
      retry_attempt: 0,
      retry_reason: '',
      payload: { type: 'event_callback', event: { type: 'message', text: 'hi bot' } },
    });
    const react = await fake.waitFor(() => fake.callsTo('reactions.add')[0]);
    expect(react.args).toMatchObject({ channel: 'C0TEST00001', name: 'eyes' });
    expect(seen.find((s) => s.kind === 'event')).toMatchObject({ retryNum: 0, retryReason: '' });
  });

  it('passes a retry’s number and reason through', async () => {
    await slack.event(
      { type: 'message', channel: 'C0TEST00001', user: 'U0HUMAN0001', text: 'again' },
      { eventId: 'Ev0RETRY01', retryNum: 2, retryReason: 'timeout' },
    );
    expect(seen.find((s) => s.kind === 'event')).toMatchObject({ retryNum: 2, retryReason: 'timeout' });
  });

  it('rejects with a helpful message when the listener never acks', async () => {
    const quick = new SocketModeDriver({ fake, timeoutMs: 300 });
    try {
      await expect(quick.command({ text: 'silent' })).rejects.toThrow(
        /did not ack a slash_commands envelope \(\/campaign silent\).*within 300 ms.*Does the listener call ack\(\)/s,
      );
    } finally {
      await quick.close();
    }
  });
});

describe('Socket Mode: pings and Slack’s disconnect/reconnect', () => {
  const running = socketModeApp({ socketPingIntervalMs: 200 }, (fake) => ({
    // Only an explicit SocketModeReceiver takes clientPingTimeout; the SDK also waits that long before
    // reconnecting (5 s with `socketMode: true` alone), so a short one keeps this test quick.
    receiver: new SocketModeReceiver({
      appToken: fake.appToken,
      clientPingTimeout: 600,
      installerOptions: { clientOptions: { slackApiUrl: fake.apiUrl } },
      logLevel: LogLevel.ERROR,
    }),
    token: fake.botToken,
    clientOptions: { slackApiUrl: fake.apiUrl },
    logLevel: LogLevel.ERROR,
  }));
  let fake: FakeSlack;
  let slack: SocketModeDriver;
  beforeAll(() => {
    ({ fake, slack } = running);
  });

  it('answers the client’s pings and gets pongs for its own (the SDK drops silent connections)', async () => {
    const conn = await slack.waitForConnection();
    // With clientPingTimeout 600 the SDK pings every 200 ms and gives up after 600 ms without a pong.
    await fake.waitFor(() => conn.pingsReceived >= 4 && conn.pongsReceived >= 2);
    expect(conn.closedAt).toBeUndefined();
    expect(fake.socketConnections).toHaveLength(1);
  });

  it('after a disconnect (refresh_requested) the client closes, reconnects with a new ticket and keeps working', async () => {
    const first = await slack.waitForConnection();
    expect(slack.disconnectAll('refresh_requested')).toBe(1);
    await fake.waitFor(() => first.closedAt);
    expect(first).toMatchObject({ closedBy: 'client', closeCode: 1000, disconnectReason: 'refresh_requested' });

    const second = await slack.waitForConnection();
    expect(second.id).not.toBe(first.id);
    expect(fake.callsTo('apps.connections.open').filter((c) => c.response.ok === true)).toHaveLength(2);

    const ack = await slack.command({ text: 'after reconnect', responseUrlId: 'sm-after' });
    expect(ack.connectionId).toBe(second.id);
    const post = await fake.waitFor(() => fake.responses.find((r) => r.id === 'sm-after'));
    expect(post.body).toEqual({ text: 'You said: after reconnect' });
    expect(fake.serverErrors).toEqual([]);
  });
});

describe('Socket Mode: token mistakes fail visibly', () => {
  let fake: FakeSlack;

  beforeAll(async () => {
    fake = await startFakeSlack();
  });
  afterAll(async () => {
    await fake.close();
  });

  it('with no bot connected, the driver says what it saw', async () => {
    const driver = new SocketModeDriver({ fake, timeoutMs: 200 });
    try {
      await expect(driver.command({ text: 'anyone?' })).rejects.toThrow(
        /no Socket Mode connection to deliver a slash_commands envelope \(\/campaign anyone\?\) within 200 ms.*apps\.connections\.open calls: 0/s,
      );
    } finally {
      await driver.close();
    }
  });

  it('a bot token as appToken: apps.connections.open answers not_allowed_token_type and no socket opens', async () => {
    const lines: string[] = [];
    fake.expectRefusal('apps.connections.open', 'not_allowed_token_type');
    const app = new App({
      socketMode: true,
      appToken: fake.botToken,
      token: fake.botToken,
      clientOptions: { slackApiUrl: fake.apiUrl },
      logger: captureLogger(lines),
    });
    // The SDK treats this error as recoverable and retries forever, so start() never settles.
    void app.start().catch(() => undefined);
    try {
      const call = await fake.waitFor(() => fake.callsTo('apps.connections.open')[0]);
      expect(call).toMatchObject({ token: fake.botToken, response: { ok: false, error: 'not_allowed_token_type' } });
      await fake.waitFor(() => lines.find((l) => l.includes('not_allowed_token_type')));
      expect(fake.socketConnections).toEqual([]);
      const driver = new SocketModeDriver({ fake, timeoutMs: 200 });
      await expect(
        driver.event({ type: 'app_mention', channel: 'C0TEST00001', user: 'U0HUMAN0001', text: 'hi' }),
      ).rejects.toThrow(/apps\.connections\.open calls: 1 \(not_allowed_token_type\)/);
      await driver.close();
    } finally {
      await app.stop();
    }
  });

  it('an unknown app-level token: app.start() rejects with invalid_auth', async () => {
    const lines: string[] = [];
    fake.expectRefusal('apps.connections.open', 'invalid_auth');
    const app = new App({
      socketMode: true,
      appToken: 'xapp-1-A0CAMPAIGN01-1-unknown',
      token: fake.botToken,
      clientOptions: { slackApiUrl: fake.apiUrl },
      logger: captureLogger(lines),
    });
    try {
      await expect(app.start()).rejects.toThrow(/invalid_auth/);
    } finally {
      await app.stop();
    }
  });

  it('the app-level token is refused for Web API methods (not_allowed_token_type)', async () => {
    const client = new WebClient(fake.appToken, { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
    fake.expectRefusal('chat.postMessage', 'not_allowed_token_type');
    await expect(client.chat.postMessage({ channel: 'C0TEST00001', text: 'hi' })).rejects.toThrow(
      /not_allowed_token_type/,
    );
  });

  it('startFakeSlack refuses an appToken that is not an app-level token', async () => {
    await expect(startFakeSlack({ appToken: 'xoxb-123-456-abc' })).rejects.toThrow(/xapp-/);
  });
});

describe('Socket Mode: the WebSocket endpoint', () => {
  let fake: FakeSlack;

  beforeAll(async () => {
    fake = await startFakeSlack({ socketPingIntervalMs: 0 });
  });
  afterAll(async () => {
    await fake.close();
  });

  it('a ticket opens one connection, hello first; reusing it is refused (401); binary frames are reported', async () => {
    const opened = await new WebClient(fake.appToken, { slackApiUrl: fake.apiUrl }).apps.connections.open();
    const url = String(opened.url);
    const first = new WebSocket(url);
    const hello = await new Promise<unknown>((resolve, reject) => {
      first.once('message', (data: Buffer) => resolve(JSON.parse(data.toString('utf8'))));
      first.once('error', reject);
    });
    expect(hello).toMatchObject({ type: 'hello', num_connections: 1, connection_info: { app_id: fake.appId } });

    const second = new WebSocket(url);
    second.on('error', () => undefined);
    const status = await new Promise<number | undefined>((resolve) => {
      second.once('unexpected-response', (req, res) => {
        resolve(res.statusCode);
        req.destroy();
      });
    });
    expect(status).toBe(401);
    expect(fake.socketConnections).toHaveLength(1);

    first.send(Buffer.from([1, 2, 3]), { binary: true });
    await fake.waitFor(() => fake.serverErrors.find((e) => e.message.includes('binary message')));

    first.close(1000);
    const conn = await fake.waitFor(() => fake.socketConnections.find((c) => c.closedAt !== undefined));
    expect(conn).toMatchObject({ id: 'ws1', closedBy: 'client', closeCode: 1000 });
  });
});
