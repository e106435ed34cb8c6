/**
 * Idempotent posts's contract, on both stores, against the Slack stand-in: a post is in Slack once however a
 * second replica takes it over — while the first try is still in flight (it waits for that try's answer), or
 * after the first try's answer was lost (it looks the post up instead of sending it again).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LogLevel, WebClient } from '@slack/web-api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SLACK_CLIENT_RULES } from '../../src/delivery/clients.js';
import { SlackPace } from '../../src/delivery/pace.js';
import { IdempotentPosts, type OncePost } from '../../src/delivery/idempotent-posts.js';
import { WaitForSlack } from '../../src/delivery/slack-errors.js';
import { startFakeSlack, type FakeSlack } from '../fakes/slack.js';
import { storeBackends } from '../store/backends.js';
import { requireRedis } from '../support/redis.js';
import { waitFor, waitForValue } from '../support/wait.js';

const redis = await requireRedis();
const backends = storeBackends(redis);

let slack: FakeSlack;
/** Between the bot and the stand-in: holds chat.postMessage calls on their way while `held` is set (a slow Slack). */
let road: Server;
let held: Promise<void> | undefined;
let answer = () => {};
let postsOnTheRoad = 0;
/** Holds the next chat.postMessage calls on the road until `answer()`. */
function holdPosts(): void {
  held = new Promise((resolve) => (answer = resolve));
}
afterEach(() => {
  answer();
  held = undefined;
});
let roadUrl = '';

beforeAll(async () => {
  slack = await startFakeSlack();
  road = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        if (req.url!.endsWith('chat.postMessage')) {
          postsOnTheRoad++;
          await held;
        }
        const answer = await fetch(`${slack.apiUrl}${req.url!.replace(/^\/api\//, '')}`, {
          method: req.method!,
          headers: {
            'content-type': req.headers['content-type'] ?? '',
            authorization: req.headers.authorization ?? '',
          },
          body: Buffer.concat(chunks),
        }).catch(() => undefined);
        if (!answer) return res.destroy();
        const body = Buffer.from(await answer.arrayBuffer());
        const headers = Object.fromEntries(
          [...answer.headers].filter(
            ([name]) => !['content-length', 'content-encoding', 'transfer-encoding'].includes(name),
          ),
        );
        res.writeHead(answer.status, headers);
        res.end(body);
      })();
    });
  });
  await new Promise<void>((resolve) => road.listen(0, '127.0.0.1', resolve));
  roadUrl = `http://127.0.0.1:${(road.address() as AddressInfo).port}/api/`;
});
afterAll(async () => {
  await new Promise((resolve) => road?.close(resolve));
  await slack?.close();
});

let n = 0;
describe.each(backends)('idempotent posts ($name)', ({ create }) => {
  /** Two replicas on one store, each with its own ledger; `clock` is what their ledgers read as now. */
  function replicas() {
    const store = create();
    const clock = { now: Date.now() };
    // The bot's way to Slack: every call through the pace, every failure judged by it.
    const pace = new SlackPace(store.budgets);
    const ledger = () =>
      new IdempotentPosts(
        store,
        (err) => pace.judge(err),
        () => clock.now,
      );
    const client = new WebClient(slack.botToken, {
      slackApiUrl: roadUrl,
      fetch: pace.fetch({ background: true, urgency: 'routine', team: 'T1' }),
      ...SLACK_CLIENT_RULES,
      logLevel: LogLevel.ERROR,
    });
    return { store, clock, pace, a: ledger(), b: ledger(), client };
  }

  function onePost(store: ReturnType<typeof create>) {
    const id = `${Date.now().toString(36)}-${++n}`;
    const channel = `C0LEDGER${n}`;
    slack.addChannel({ id: channel, name: `ledger-${n}` });
    const once: OncePost = { teamId: 'T1', mark: store.keys.dedup('T1', 'post-test', id), key: id, ttlMs: 60_000 };
    const payload = { text: `Post ${id}`, blocks: [] };
    const shown = () => slack.messages(channel).filter((m) => m.text === payload.text).length;
    return { channel, once, payload, shown };
  }

  it('a takeover while the first try is in flight waits for its answer, then finds its post: shown once', async () => {
    const { store, clock, a, b, client } = replicas();
    const { channel, once, payload, shown } = onePost(store);
    holdPosts();
    const before = postsOnTheRoad;
    const first = a.post(client, { channel }, payload, once);
    await waitFor(() => postsOnTheRoad > before, 'the first try to be on its way');

    // Slack takes its time; Slack's event would have come by now, so history would say "not there". But the
    // first try's owner still holds its lease: the second replica neither reads nor sends, it waits.
    clock.now = Date.now() + 6_000;
    await expect(b.post(client, { channel }, payload, once)).rejects.toBeInstanceOf(WaitForSlack);
    expect(shown()).toBe(0);
    answer();
    const ts = await first;
    expect(await b.post(client, { channel }, payload, once)).toBe(ts);
    expect(shown()).toBe(1);
  });

  it('a takeover after the first try’s answer was lost looks the post up instead of sending it again', async () => {
    const { store, clock, a, b, client } = replicas();
    const { channel, once, payload, shown } = onePost(store);
    slack.loseAnswer('chat.postMessage');
    await expect(a.post(client, { channel }, payload, once)).rejects.toThrow();
    expect(shown()).toBe(1);

    // Slack's event never came (no bot here): once it had time to, one page of history settles it.
    clock.now = Date.now() + 6_000;
    const tries = slack.callsTo('chat.postMessage').length;
    const ts = await b.post(client, { channel }, payload, once);
    expect(slack.messages(channel).find((m) => m.text === payload.text)?.ts).toBe(ts);
    expect(slack.callsTo('chat.postMessage')).toHaveLength(tries);
    expect(shown()).toBe(1);
  });

  it('a direct message whose answer was lost is not sent again: it cannot be read back, so it counts as sent', async () => {
    const { store, clock, a, b, client } = replicas();
    const { once, payload } = onePost(store);
    const channel = `D0LEDGERDM${n}`;
    slack.addChannel({ id: channel, name: `dm-${n}` });
    const shown = () => slack.messages(channel).filter((m) => m.text === payload.text).length;
    slack.loseAnswer('chat.postMessage');
    await expect(a.post(client, { channel }, payload, once)).rejects.toThrow();
    expect(shown()).toBe(1);
    // Until Slack's event had time to come, it waits; then it is taken as sent, and not read back.
    await expect(b.post(client, { channel }, payload, once)).rejects.toBeInstanceOf(WaitForSlack);
    clock.now = Date.now() + 6_000;
    const tries = slack.callsTo('chat.postMessage').length;
    await b.post(client, { channel }, payload, once);
    expect(slack.callsTo('chat.postMessage')).toHaveLength(tries);
    expect(slack.callsTo('conversations.history').filter((c) => c.args.channel === channel)).toEqual([]);
    expect(shown()).toBe(1);
  });

  it('a try Slack refused with a wait (429) leaves no mark: the next try posts without a look-up', async () => {
    const { store, pace, a, b, client } = replicas();
    const { channel, once, payload, shown } = onePost(store);
    slack.rateLimit({ method: 'chat.postMessage', retryAfterSec: 1, times: 1 });
    await expect(a.post(client, { channel }, payload, once)).rejects.toThrow();
    expect(await store.kv.get(once.mark)).toBeNull();
    // Tried again once the channel's budget allows (the pace refuses it before it leaves until then).
    await waitForValue(
      () =>
        b.post(client, { channel }, payload, once).catch((err: unknown) => {
          if (pace.judge(err).class === 'wait') return undefined;
          throw err;
        }),
      'the post once the 429 has been waited out',
    );
    expect(shown()).toBe(1);
    expect(slack.callsTo('conversations.history').filter((c) => c.args.channel === channel)).toEqual([]);
  });
});
