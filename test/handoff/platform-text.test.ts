/**
 * Platform and customer text as Slack shows it in handoff threads: delivered through the hook, read back
 * from what the Slack stand-in accepted. Nothing the platform sends may format, link or mention anything.
 */
import { describe, expect, it } from 'vitest';
import type { SlackMessage } from '../fakes/slack.js';
import { useHarness } from '../support/harness.js';
import { startEventsHarness } from '../events/support.js';
import { notices, openConversation, reactions, sends } from './support.js';

const h = useHarness(() => startEventsHarness());

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

describe('what the customer reads of an agent’s reply', () => {
  it('gets the reply as the agent meant it: entities decoded, emoji as emoji, no formatting marks, names for mentions', async () => {
    const conv = await openConversation(h);
    await conv.customer('Is the Q&A on?');
    const sessionId = conv.session();
    await conv.linkSession(sessionId);
    // What Slack's Events API delivers for what the agent typed (entities, shortcodes, markers, a mention).
    const ts = await conv.reply(
      'Q&amp;A at 10:00 :tada: see you *Friday* &lt;3 — _ask_ <@U0ADMIN01> :+1::skin-tone-3: `code_v2` ~maybe~',
    );
    await h.slack.waitFor(() => reactions(h, conv.channels[0]!, ts).includes('white_check_mark'));
    expect(sends(h, conv.campaignId).map((s) => s.body)).toEqual([
      { sessionId, message: 'Q&A at 10:00 🎉 see you Friday <3 — ask @ada 👍🏼 code_v2 maybe' },
    ]);
  });

  it('tells only the agent, on an SMS campaign, that a long reply went out as several SMS', async () => {
    const conv = await openConversation(h);
    await conv.customer('Tell me everything');
    await conv.linkSession(conv.session());
    const long = `Here is everything 🎉 ${'we are open every day from nine to five. '.repeat(3)}`;
    const ts = await conv.reply(long);
    const [channel] = conv.channels;
    await h.slack.waitFor(() => reactions(h, channel!, ts).includes('white_check_mark'));
    const told = await h.slack.waitFor(() => h.slack.ephemerals(channel).find((e) => e.text.includes('SMS')));
    // 143 characters with an emoji: UCS-2, 67 a segment once joined.
    expect(told.text).toBe('Your reply went out as 3 SMS');
    expect(JSON.stringify(told.blocks)).toContain('143 characters');
    const short = await conv.reply('See you soon.');
    await h.slack.waitFor(() => reactions(h, channel!, short).includes('white_check_mark'));
    expect(h.slack.ephemerals(channel).filter((e) => e.text.includes('SMS'))).toHaveLength(1);
  });
});

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
    expect(text).toContain(
      '"type":"context","elements":[{"type":"mrkdwn","text":"HTTP 400 · code BAD_&lt;!channel&gt; · request id req_&lt;@U0ADMIN01&gt;"',
    );
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('<@U0ADMIN01>');
  });
});
