/**
 * What the customer reads: Slack's markup in a reply turned into plain text, and `note:` kept in Slack.
 */
import { describe, expect, it } from 'vitest';
import { isPrivateNote, toCustomerText } from '../../src/handoff/slack-text.js';
import { renderMirroredReply, renderReplyNotice } from '../../src/handoff/notices.js';

const names: Record<string, string> = { U0ADA: 'ada' };
const nameOf = (id: string) => Promise.resolve(names[id] ?? id);

describe('toCustomerText', () => {
  it.each([
    ['Fish &amp; chips &lt;3', 'Fish & chips <3'],
    ['literal &amp;lt; stays', 'literal &lt; stays'],
    ['ask <@U0ADA> or <@U0BOB|bob>', 'ask @ada or @bob'],
    ['see <https://example.com/hours|our hours>', 'see our hours (https://example.com/hours)'],
    ['see <https://example.com/a?b=1&amp;c=2>', 'see https://example.com/a?b=1&c=2'],
    ['<https://example.com|example.com>', 'https://example.com'],
    ['mail <mailto:help@example.com|help@example.com>', 'mail help@example.com'],
    ['in <#C0123|support> <!here>', 'in #support @here'],
    ['<!subteam^S1|@oncall> <!date^1700000000^{date}|Nov 14>', '@oncall Nov 14'],
    ['Q&amp;A at 10:00 :tada: see you *Friday* &lt;3', 'Q&A at 10:00 🎉 see you Friday <3'],
    ['  *bold* _italic_ ~gone~ `code`  ', 'bold italic gone code'],
    ['*_both_* and _*both*_', 'both and both'],
    [':+1::skin-tone-4: :thumbsup: :THUMBSUP:', '👍🏽 👍️ 👍️'],
    [':our-custom-emoji: :tada::skin-tone-2: 12:30:45', ':our-custom-emoji: 🎉 12:30:45'],
    ['snake_case_name, 2*3*4, file_v2_final.txt', 'snake_case_name, 2*3*4, file_v2_final.txt'],
    ['&gt; you asked\nyes, *Friday*', 'you asked\nyes, Friday'],
    ['```\nline *one*\n:tada:\n```', 'line *one*\n:tada:'],
    ['see <https://example.com/my_page_x|*our* _page_>', 'see our page (https://example.com/my_page_x)'],
    ['*see <https://example.com/a_b_c>*', 'see https://example.com/a_b_c'],
    ['ping <@U0ADA> :wave:', 'ping @ada 👋'],
  ])('%s → %s', async (slack, plain) => {
    expect(await toCustomerText(slack, nameOf)).toBe(plain);
  });
});

describe('isPrivateNote', () => {
  it('is a note when the reply starts with note:, any case, after blanks', () => {
    expect(isPrivateNote('note: check the invoice')).toBe(true);
    expect(isPrivateNote('  NOTE:check')).toBe(true);
    expect(isPrivateNote('Please note: we close at 5')).toBe(false);
    expect(isPrivateNote(undefined)).toBe(false);
  });
});

describe('notices', () => {
  const address = { channel: 'C1', threadTs: '1.1', replyTs: '1.5' };

  it('shows a 400 that names something other than the session as the platform put it, escaped', () => {
    const text = JSON.stringify(
      renderReplyNotice(
        { kind: 'refused', platformMessage: 'message too long <!channel>', ref: '(code BAD_REQUEST)' },
        address,
        'U1',
      ),
    );
    expect(text).toContain('message too long &lt;!channel&gt;');
    expect(text).not.toContain('<!channel>');
  });

  it('escapes the agent name when a reply is shown in another channel', () => {
    const json = JSON.stringify(renderMirroredReply('<!channel> Dana', 'C1', 'Hi <@U0ADA> & you'));
    expect(json).not.toContain('<!channel>');
    expect(json).not.toContain('<@U0ADA>');
  });
});
