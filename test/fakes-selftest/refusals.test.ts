/**
 * The stand-in refuses what Slack refuses, and the suite notices: a duplicate action_id, an over-long field,
 * an image Slack can't download (messages, views and response_urls) come back refused, and the refusal
 * ledger behind the after-each check (test/support/refusal-guard.ts) reports each one the test did not declare.
 *
 * Slack's answers: `invalid_blocks` + `[ERROR] downloading image failed [json-pointer:/blocks/0/image_url]`
 * (slackapi/node-slack-sdk#1693, slackapi/python-slack-sdk#1782); action_id unique within its block
 * (https://docs.slack.dev/reference/block-kit/blocks/actions-block); a response_url answers HTTP 400 to an
 * invalid payload (https://docs.slack.dev/interactivity/handling-user-interaction#message_responses).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LogLevel, WebClient } from '@slack/web-api';
import { liveRefusalLedgers, type RefusalLedger } from '../../fakes/slack/refusals.js';
import { startFakeSlack, type FakeSlack } from '../fakes/slack.js';

const CHANNEL = 'C0REFUSAL01';
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

let fake: FakeSlack;
let client: WebClient;
let images: Server;
let imageBase: string;

/** This file's stand-in's ledger (one an earlier file of the same worker left listening is not it). */
let earlier: ReadonlySet<RefusalLedger> = new Set();
function ledger(): RefusalLedger {
  const all = [...liveRefusalLedgers()].filter((l) => !earlier.has(l));
  expect(all).toHaveLength(1);
  return all[0]!;
}

const button = (text: string, actionId: string) => ({
  type: 'button',
  text: { type: 'plain_text', text },
  action_id: actionId,
});
const imageBlock = (url: string) => ({ type: 'image', image_url: url, alt_text: 'picture' });

async function post(blocks: unknown[]): Promise<Record<string, unknown>> {
  await client.chat.postMessage({ channel: CHANNEL, text: 'fallback', blocks: blocks as never }).catch(() => undefined);
  return fake.callsTo('chat.postMessage').at(-1)!.response;
}

beforeAll(async () => {
  earlier = new Set(liveRefusalLedgers());
  fake = await startFakeSlack({ teamId: 'T0REFUSAL01' });
  fake.addChannel({ id: CHANNEL, name: 'refusals', is_member: true });
  client = new WebClient(fake.botToken, {
    slackApiUrl: fake.apiUrl,
    logLevel: LogLevel.ERROR,
    retryConfig: { retries: 0 },
  });
  images = createServer((req, res) => {
    if (req.url === '/pic.png') res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    else if (req.url === '/page.html') res.writeHead(200, { 'content-type': 'text/html' }).end('<p>not an image</p>');
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
  imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await fake.close();
  await new Promise<void>((resolve) => images.close(() => resolve()));
});
beforeEach(() => fake.reset());

describe('the Slack stand-in refuses what Slack refuses, and the suite notices', () => {
  it('a duplicate action_id in one actions block: invalid_blocks, reported unless declared', async () => {
    const blocks = [{ type: 'actions', elements: [button('◀ Previous', 'page'), button('Next ▶', 'page')] }];
    const answer = await post(blocks);
    expect(answer).toMatchObject({ ok: false, error: 'invalid_blocks' });
    expect(JSON.stringify(answer.response_metadata)).toContain('duplicate action_id: page');
    expect(ledger().takeUnexpected()).toEqual([
      expect.stringMatching(/^chat\.postMessage → invalid_blocks .*duplicate action_id: page/),
    ]);

    fake.expectRefusal('chat.postMessage', 'invalid_blocks');
    await post(blocks);
    expect(ledger().takeUnexpected()).toEqual([]);
  });

  it('an over-long button text (76 characters) is refused with its JSON pointer', async () => {
    fake.expectRefusal('chat.postMessage', 'invalid_blocks');
    const answer = await post([{ type: 'actions', elements: [button('x'.repeat(76), 'long')] }]);
    expect(JSON.stringify(answer.response_metadata)).toContain(
      'must be less than 76 characters [json-pointer:/blocks/0/elements/0/text/text]',
    );
    expect((await post([{ type: 'actions', elements: [button('x'.repeat(75), 'long')] }])).ok).toBe(true);
  });

  it('an image URL Slack cannot download refuses the whole message; a reachable image is accepted', async () => {
    fake.expectRefusal('chat.postMessage', 'invalid_blocks');
    for (const url of ['https://cdn.example.invalid/pic.png', `${imageBase}/missing.png`, `${imageBase}/page.html`]) {
      const answer = await post([{ type: 'section', text: { type: 'mrkdwn', text: 'profile' } }, imageBlock(url)]);
      expect(answer).toMatchObject({
        ok: false,
        error: 'invalid_blocks',
        response_metadata: { messages: ['[ERROR] downloading image failed [json-pointer:/blocks/1/image_url]'] },
      });
    }
    expect(fake.messages(CHANNEL)).toHaveLength(0);
    expect((await post([imageBlock(`${imageBase}/pic.png`)])).ok).toBe(true);
    expect(fake.messages(CHANNEL)).toHaveLength(1);
  });

  it('an accessory image in a view that cannot be downloaded: views.publish answers invalid_arguments', async () => {
    fake.expectRefusal('views.publish', 'invalid_arguments');
    const section = (url: string) => ({
      type: 'section',
      text: { type: 'mrkdwn', text: 'hi' },
      accessory: { type: 'image', image_url: url, alt_text: 'a' },
    });
    await client.views
      .publish({
        user_id: 'U0SOMEUSER1',
        view: { type: 'home', blocks: [section('https://example.invalid/a.png')] } as never,
      })
      .catch(() => undefined);
    expect(fake.callsTo('views.publish').at(-1)?.response).toMatchObject({
      ok: false,
      error: 'invalid_arguments',
      response_metadata: {
        messages: ['[ERROR] downloading image failed [json-pointer:/view/blocks/0/accessory/image_url]'],
      },
    });
    const ok = await client.views.publish({
      user_id: 'U0SOMEUSER1',
      view: { type: 'home', blocks: [section(`${imageBase}/pic.png`)] } as never,
    });
    expect(ok.ok).toBe(true);
  });

  it('a response_url answers 400 to invalid blocks and to an unreachable image, and the ledger reports both', async () => {
    const url = fake.responseUrl('bad', { channelId: CHANNEL, userId: 'U0SOMEUSER1' });
    const send = (body: unknown) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(
      (await send({ text: 'x', blocks: [{ type: 'actions', elements: [button('a', 'same'), button('b', 'same')] }] }))
        .status,
    ).toBe(400);
    expect((await send({ text: 'x', blocks: [imageBlock('https://example.invalid/x.png')] })).status).toBe(400);
    expect(ledger().takeUnexpected()).toEqual([
      expect.stringMatching(/^response_url → HTTP 400 invalid_blocks .*duplicate action_id: same/),
      expect.stringMatching(/^response_url → HTTP 400 invalid_blocks .*downloading image failed/),
    ]);
    expect((await send({ text: 'fine' })).status).toBe(200);
  });

  it('input blocks are refused in messages', async () => {
    fake.expectRefusal('chat.postMessage', 'invalid_blocks');
    const input = {
      type: 'input',
      label: { type: 'plain_text', text: 'Name' },
      element: { type: 'plain_text_input', action_id: 'name' },
    };
    expect(await post([input])).toMatchObject({ ok: false, error: 'invalid_blocks' });
  });

  it('faults the test injected are expected by construction, not reported', async () => {
    fake.failMethod('chat.postMessage', 'channel_not_found', 1);
    await post([{ type: 'divider' }]);
    expect(fake.callsTo('chat.postMessage').at(-1)?.response.error).toBe('channel_not_found');
    expect(ledger().takeUnexpected()).toEqual([]);
  });
});
