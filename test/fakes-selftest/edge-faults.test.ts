/**
 * Faults at Slack's edges, over real sockets with the real WebClient: answers lost after Slack acted (the
 * connection drops, or an edge answers 503), Slack down (every call 503), `{ok:false}` outages that heal, the workspace-wide posting limit
 * (https://docs.slack.dev/apis/web-api/rate-limits: chat.postMessage "generally allows posting one message per
 * second per channel, while also maintaining a workspace-wide limit"), the errors that say a token or grant is
 * gone, and Slack's `app_rate_limited` callback (https://docs.slack.dev/reference/events/app_rate_limited).
 * Each injected fault is expected by the refusal check; time moves on the stand-in's `rateLimitClock`.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifySlackRequest } from '@slack/bolt';
import { ErrorCode, LogLevel, WebClient, type WebAPIRateLimitedError } from '@slack/web-api';
import { liveRefusalLedgers } from '../../fakes/slack/refusals.js';
import { startFakeSlack, type FakeSlack } from '../fakes/slack.js';
import { SlackSigner } from '../fakes/slack-signer.js';

const CHANNEL = 'C0EDGES0001';

let fake: FakeSlack;
let client: WebClient;
/** The stand-in's rate-limit clock: outages heal and the workspace's minute passes when a test moves it. */
let now = Date.now();

/** Undeclared refusals the after-each check would report, taken now (the check then sees none). */
function unexpectedRefusals(): string[] {
  return [...liveRefusalLedgers()].flatMap((ledger) => ledger.takeUnexpected());
}

/** What a call threw, or undefined when it went through. */
async function thrown(call: Promise<unknown>): Promise<Record<string, unknown> | undefined> {
  return call.then(
    () => undefined,
    (e: unknown) => e as Record<string, unknown>,
  );
}

beforeAll(async () => {
  fake = await startFakeSlack({ teamId: 'T0EDGES0001', rateLimitClock: () => now });
  // No retries and 429s handed back: each call is one request, whose fate the test reads.
  client = new WebClient(fake.botToken, {
    slackApiUrl: fake.apiUrl,
    logLevel: LogLevel.ERROR,
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 },
  });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.reset();
  now = Date.now();
});

describe('answers lost after Slack acted', () => {
  it('drops the connection with no answer by default: the caller sees a network error, the message is in Slack', async () => {
    fake.loseAnswer('chat.postMessage');

    const err = await thrown(client.chat.postMessage({ channel: CHANNEL, text: 'posted, answer lost' }));
    expect(err?.code).toBe(ErrorCode.RequestError);
    expect(fake.messages(CHANNEL).map((m) => m.text)).toEqual(['posted, answer lost']);
    const [call] = fake.callsTo('chat.postMessage');
    expect(call).toMatchObject({ status: 0, lost: 'connection-dropped', injected: true, response: { ok: true } });

    // Once only: the next post is answered.
    expect((await client.chat.postMessage({ channel: CHANNEL, text: 'answered' })).ok).toBe(true);
    expect(unexpectedRefusals()).toEqual([]);
  });

  it('loses a seeded share of the answers: the same calls each run, each one carried out', async () => {
    const lostOf = async (): Promise<number[]> => {
      fake.reset();
      fake.loseAnswers({ method: 'users.info', share: 0.25, seed: 42 });
      const lost: number[] = [];
      for (let i = 0; i < 40; i++) {
        now += 1_000; // users.info is Tier 4 (100 a minute): a second apart, never refused for pace
        if (await thrown(client.users.info({ user: fake.botUserId }))) lost.push(i);
      }
      return lost;
    };
    const first = await lostOf();
    expect(await lostOf()).toEqual(first);
    expect(first.length).toBeGreaterThan(3);
    expect(first.length).toBeLessThan(20);
    expect(fake.callsTo('users.info').filter((c) => c.lost === 'connection-dropped')).toHaveLength(first.length);
    expect(fake.callsTo('users.info').every((c) => c.response.ok === true)).toBe(true);
    expect(unexpectedRefusals()).toEqual([]);
  });

  it('leaves other methods answered', async () => {
    fake.loseAnswers({ method: 'users.info', share: 1 });
    expect((await client.auth.test()).ok).toBe(true);
    expect(await thrown(client.users.info({ user: fake.botUserId }))).toMatchObject({ code: ErrorCode.RequestError });
  });
});

describe('ok:false outages that heal (failMethodFor)', () => {
  it('answers HTTP 200 {ok:false,error} until the time has passed on the clock, then carries calls out again', async () => {
    fake.failMethodFor('chat.postMessage', 'service_unavailable', 30_000);

    const first = await thrown(client.chat.postMessage({ channel: CHANNEL, text: 'during the outage' }));
    expect(first).toMatchObject({ code: ErrorCode.PlatformError, data: { ok: false, error: 'service_unavailable' } });
    now += 29_999;
    expect(await thrown(client.chat.postMessage({ channel: CHANNEL, text: 'still down' }))).toMatchObject({
      data: { error: 'service_unavailable' },
    });
    now += 1;
    expect((await client.chat.postMessage({ channel: CHANNEL, text: 'healed' })).ok).toBe(true);

    expect(fake.messages(CHANNEL).map((m) => m.text)).toEqual(['healed']);
    expect(fake.callsTo('chat.postMessage').map((c) => [c.status, c.response.error, c.injected])).toEqual([
      [200, 'service_unavailable', true],
      [200, 'service_unavailable', true],
      [200, undefined, undefined],
    ]);
    expect(unexpectedRefusals()).toEqual([]);
  });

  it("takes any of chat.postMessage's transient errors, for its method only", async () => {
    for (const error of ['internal_error', 'fatal_error', 'request_timeout', 'ratelimited']) {
      fake.clearFaults();
      fake.failMethodFor('chat.postMessage', error, 1_000);
      expect(await thrown(client.chat.postMessage({ channel: CHANNEL, text: error }))).toMatchObject({
        data: { error },
      });
      expect((await client.auth.test()).ok).toBe(true);
    }
    expect(unexpectedRefusals()).toEqual([]);
  });
});

describe('Slack down (setDown)', () => {
  it('answers every Web API call HTTP 503 and carries none out, until it is back', async () => {
    fake.setDown(true);

    const err = await thrown(client.chat.postMessage({ channel: CHANNEL, text: 'while Slack is down' }));
    expect(err).toMatchObject({ code: ErrorCode.HTTPError, statusCode: 503 });
    expect(await thrown(client.auth.test())).toMatchObject({ statusCode: 503 });
    expect(fake.messages(CHANNEL)).toEqual([]);

    fake.setDown(false);
    expect((await client.chat.postMessage({ channel: CHANNEL, text: 'back' })).ok).toBe(true);
    expect(fake.messages(CHANNEL).map((m) => m.text)).toEqual(['back']);
    expect(fake.callsTo('chat.postMessage').map((c) => [c.status, c.injected])).toEqual([
      [503, true],
      [200, undefined],
    ]);
    expect(unexpectedRefusals()).toEqual([]);
  });

  it('is cleared with the other faults', async () => {
    fake.setDown(true);
    fake.clearFaults();
    expect((await client.auth.test()).ok).toBe(true);
  });
});

describe('the workspace-wide posting limit (workspacePostLimit)', () => {
  it('is off by default, and once set refuses a workspace past it across channels with 429 + Retry-After', async () => {
    for (let i = 1; i <= 4; i++) {
      expect((await client.chat.postMessage({ channel: `C0WIDE000${i}`, text: 'x' })).ok).toBe(true);
    }
    fake.workspacePostLimit(4);
    now += 60_000;

    for (let i = 1; i <= 4; i++) {
      expect((await client.chat.postMessage({ channel: `C0WIDE000${i}`, text: `post ${i}` })).ok).toBe(true);
    }
    now += 20_000;
    const refused = (await thrown(
      client.chat.postMessage({ channel: 'C0WIDE0009', text: 'one too many' }),
    )) as unknown as WebAPIRateLimitedError;
    expect(refused.code).toBe(ErrorCode.RateLimitedError);
    // The oldest of the four leaves the minute 40 s on.
    expect(refused.retryAfter).toBe(40);
    expect(fake.callsTo('chat.postMessage').at(-1)).toMatchObject({ status: 429, injected: true });
    expect(fake.messages('C0WIDE0009')).toEqual([]);

    now += 40_000;
    expect((await client.chat.postMessage({ channel: 'C0WIDE0009', text: 'room again' })).ok).toBe(true);
    expect(unexpectedRefusals()).toEqual([]);
  });

  it('counts each workspace on its own', async () => {
    fake.workspacePostLimit(1);
    expect((await client.chat.postMessage({ channel: CHANNEL, text: 'ours' })).ok).toBe(true);
    const other = fake.oauthCode({ teamId: 'T0OTHERWS01' });
    const otherClient = new WebClient(other.botToken, {
      slackApiUrl: fake.apiUrl,
      logLevel: LogLevel.ERROR,
      retryConfig: { retries: 0 },
    });
    await client.oauth.v2.access({ client_id: 'id', client_secret: 'secret', code: other.code });
    expect((await otherClient.chat.postMessage({ channel: CHANNEL, text: 'theirs' })).ok).toBe(true);
    expect(await thrown(client.chat.postMessage({ channel: 'C0EDGES0002', text: 'ours again' }))).toMatchObject({
      code: ErrorCode.RateLimitedError,
    });
    expect(unexpectedRefusals()).toEqual([]);
  });
});

describe('errors that say which class they are (failMethod)', () => {
  const errors = [
    'invalid_auth',
    'account_inactive',
    'token_revoked',
    'token_expired',
    'team_access_not_granted',
    'missing_scope',
  ];

  it('answers any of them for any method, as an injected fault', async () => {
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['chat.postMessage', () => client.chat.postMessage({ channel: CHANNEL, text: 'x' })],
      ['users.info', () => client.users.info({ user: fake.botUserId })],
      ['conversations.history', () => client.conversations.history({ channel: CHANNEL })],
      ['files.getUploadURLExternal', () => client.files.getUploadURLExternal({ filename: 'a.txt', length: 1 })],
    ];
    for (const error of errors) {
      for (const [method, call] of calls) {
        fake.failMethod(method, error, 1);
        expect(await thrown(call())).toMatchObject({ code: ErrorCode.PlatformError, data: { ok: false, error } });
        expect(fake.callsTo(method).at(-1)).toMatchObject({ status: 200, injected: true });
      }
    }
    expect(unexpectedRefusals()).toEqual([]);
    // Used up: each method answers normally again.
    expect((await client.users.info({ user: fake.botUserId })).ok).toBe(true);
  });

  it('still reports the same error when Slack gives it of its own accord', async () => {
    const stranger = new WebClient('xoxb-not-a-token', {
      slackApiUrl: fake.apiUrl,
      logLevel: LogLevel.ERROR,
      retryConfig: { retries: 0 },
    });
    await thrown(stranger.auth.test());
    expect(unexpectedRefusals()).toEqual(['auth.test → invalid_auth']);
  });
});

describe("Slack's app_rate_limited callback", () => {
  let receiver: Server;
  const received: Array<{ headers: IncomingMessage['headers']; body: string }> = [];
  let signer: SlackSigner;
  const signingSecret = 'edge-faults-signing-secret';

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/slack/events`;
    signer = new SlackSigner({ signingSecret, url, fake });
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  it("posts the signed callback to the request URL and reports the app's status and how long it took", async () => {
    const result = await signer.appRateLimited({ minuteRateLimited: 1518467820 });
    expect(result.status).toBe(200);
    expect(result.ms).toBeGreaterThan(0);
    expect(result.timedOut).toBe(false);

    const [request] = received;
    expect(JSON.parse(request!.body)).toEqual({
      token: signer.verificationToken,
      type: 'app_rate_limited',
      team_id: fake.teamId,
      minute_rate_limited: 1518467820,
      api_app_id: fake.appId,
    });
    expect(request!.headers['content-type']).toBe('application/json');
    // Bolt's own check accepts the signature (it throws otherwise).
    verifySlackRequest({
      signingSecret,
      body: request!.body,
      headers: {
        'x-slack-signature': String(request!.headers['x-slack-signature']),
        'x-slack-request-timestamp': Number(request!.headers['x-slack-request-timestamp']),
      },
    });
  });

  it('names the minute it is sent in by default, rounded to the minute', async () => {
    received.length = 0;
    const before = Math.floor(Date.now() / 60_000) * 60;
    await signer.appRateLimited();
    const minute = (JSON.parse(received[0]!.body) as { minute_rate_limited: number }).minute_rate_limited;
    expect(minute % 60).toBe(0);
    expect(minute - before).toBeLessThanOrEqual(60);
  });
});
