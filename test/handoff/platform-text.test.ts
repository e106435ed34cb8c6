/**
 * Platform and customer text as Slack shows it in handoff threads: delivered through the hook, read back
 * from what the Slack stand-in accepted. Nothing the platform sends may format, link or mention anything.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlackMessage } from '../fakes/slack.js';
import type { Harness } from '../support/harness.js';
import { startEventsHarness } from '../events/support.js';
import { notices, openConversation, reactions } from './support.js';

let h: Harness;
beforeAll(async () => {
  h = await startEventsHarness();
});
afterAll(async () => {
  await h.close();
});

type TextObject = { type: string; text: string; verbatim?: boolean };

/** Every text object in a message's blocks (section text and fields, context elements). */
function textObjects(m: SlackMessage): TextObject[] {
  return ((m.blocks ?? []) as Array<{ text?: TextObject; fields?: TextObject[]; elements?: TextObject[] }>).flatMap(
    (b) => [
      ...(b.text ? [b.text] : []),
      ...(b.fields ?? []),
      ...(b.elements ?? []).filter((e) => e.type === 'mrkdwn' || e.type === 'plain_text'),
    ],
  );
}

/** The chat.postMessage call that posted `ts`, as Slack answered it. */
function postCall(ts: string) {
  return h.slack.callsTo('chat.postMessage').find((c) => (c.response as { ts?: string }).ts === ts);
}

describe('customer text in handoff threads', () => {
  it('keeps a name with * _ ~ ` inside the card’s bold header, and never lets Slack auto-link a typed @channel', async () => {
    const conv = await openConversation(h);
    await conv.customer('Please call me back @channel @here — see www.example.com or #general', {
      customerName: 'Ann *VIP* _Marie_ ~x~ `y`',
    });
    const [line] = await conv.waitThread(1);
    const card = await conv.card();
    expect(postCall(card.ts)?.response.ok).toBe(true);
    expect(postCall(line!.ts)?.response.ok).toBe(true);

    // mrkdwn has no escape for * _ ~ `: where one could open or close formatting it is shown as its look-alike.
    expect(textObjects(card)[0]?.text).toBe(`💬 Chat with *Ann ∗VIP∗ ˍMarieˍ ∼x∼ ˋyˋ* (${conv.customerNumber})`);

    // `verbatim: true` keeps Slack from turning plain @channel, URLs or #names into mentions and links
    // (https://api.slack.com/reference/block-kit/composition-objects#text).
    const objects = [...textObjects(card), ...textObjects(line!)];
    expect(objects.some((t) => t.text.includes('@channel @here'))).toBe(true);
    for (const t of objects.filter((o) => o.type === 'mrkdwn')) expect(t).toMatchObject({ verbatim: true });
  });

  it('escapes the platform’s error code and request id in the not-sent notice', async () => {
    const conv = await openConversation(h);
    await conv.customer('Anyone?');
    await conv.linkSession(conv.session());
    h.platform.inject({
      path: `/campaign-chat/${conv.campaignId}/send-human-response`,
      status: 400,
      body: JSON.stringify({
        error: {
          message: 'human handoff is not enabled for the campaign',
          code: 'BAD_<!channel>',
          requestId: 'req_<@U0ADMIN01>',
        },
      }),
      times: 1,
    });
    const ts = await conv.reply('On it.');
    const [channel] = conv.channels;
    await h.slack.waitFor(() => reactions(h, channel!, ts).includes('warning'));
    const notice = await h.slack.waitFor(() => notices(conv.thread(), 'your reply was not sent')[0]);
    expect(postCall(notice.ts)?.response.ok).toBe(true);
    const text = JSON.stringify(notice.blocks);
    expect(text).toContain('(code BAD_&lt;!channel&gt;, request id req_&lt;@U0ADMIN01&gt;)');
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('<@U0ADMIN01>');
  });
});
