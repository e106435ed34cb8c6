/**
 * The playground's Block Kit → HTML renderer. What matters most: text that came from the platform (customer
 * names, chat messages, summaries) can never become markup, links or script in the page.
 */
import { describe, expect, it } from 'vitest';
import {
  blocksToHtml,
  elementToHtml,
  escapeHtml,
  messageToHtml,
  mrkdwnToHtml,
  plainToHtml,
  safeUrl,
  viewToHtml,
} from '../../playground/blockkit-html.js';
import { fields, header, section, context, divider, actions, button } from '../../src/slack/blocks.js';
// @ts-expect-error -- the page's script is plain JS for the browser, type-checked by its own tsconfig
import { slackDateText as pageSlackDateText } from '../../playground/page/dom.js';

/** The page's date formatter, typed here. */
const slackDateText = pageSlackDateText as (format: string, when: Date, now: Date, locale?: string) => string;

const HOSTILE = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '"><svg onload=alert(1)>',
  "' onmouseover='alert(1)",
  '</div><iframe src="javascript:alert(1)">',
  '&lt;script&gt;alert(1)&lt;/script&gt;',
  '<javascript:alert(1)|click me>',
  '<data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==|x>',
  '*<b onclick=alert(1)>bold</b>*',
  '```</pre><script>alert(1)</script>```',
  '`<script>`',
  '\uE0000\uE001 <@U1|<script>> <#C1|"><img>>',
  '<!date^1700000000^{date}^javascript:alert(1)|<script>>',
];

/** Tags and attributes the renderer itself writes; anything else in the output would have come from the input. */
const TAGS = new Set([
  'div',
  'span',
  'strong',
  'em',
  'del',
  'code',
  'pre',
  'br',
  'blockquote',
  'a',
  'time',
  'hr',
  'label',
  'button',
  'select',
  'option',
  'input',
  'textarea',
  'ul',
  'li',
]);
const ATTRIBUTES =
  /^(aria-label|class|href|target|rel|type|value|name|placeholder|maxlength|minlength|accept|datetime|role|title|data-[a-z-]+)$/;
const FLAGS = new Set(['multiple', 'selected', 'checked']);

/**
 * Parses every tag of the output: each must be one of ours, with only our attributes, every value double-quoted
 * and free of quotes and angle brackets (so nothing can break out of it), and hrefs only http(s)/mailto.
 */
function assertNoInjectedMarkup(html: string): void {
  const text = html.replace(/<[^<>]*>/g, '');
  expect(text).not.toMatch(/[<>"]/);
  for (const [tag] of html.matchAll(/<[^<>]*>/g)) {
    const m = /^<\/?([a-z0-9]+)((?:\s[a-z-]+(?:="[^"<>]*")?)*)>$/.exec(tag);
    expect(m, `malformed or foreign tag: ${tag}`).not.toBeNull();
    expect(TAGS.has(m![1]!), `foreign element in ${tag}`).toBe(true);
    for (const [, name, value] of m![2]!.matchAll(/\s([a-z-]+)(?:="([^"]*)")?/g)) {
      expect(ATTRIBUTES.test(name!) || FLAGS.has(name!), `foreign attribute ${name} in ${tag}`).toBe(true);
      if (name === 'href') expect(value).toMatch(/^(https?:\/\/|mailto:)/);
    }
  }
}

describe('escaping', () => {
  it('escapes the five HTML-significant characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;',
    );
  });

  it.each(HOSTILE)('mrkdwn %j never becomes markup', (text) => {
    assertNoInjectedMarkup(mrkdwnToHtml(text, { userName: () => '<script>x</script>', channelName: () => '"><img>' }));
  });

  it.each(HOSTILE)('plain text %j never becomes markup', (text) => {
    assertNoInjectedMarkup(plainToHtml(text));
  });

  it.each(HOSTILE)('%j in every block and element field stays text', (text) => {
    const t = { type: 'mrkdwn', text };
    const p = { type: 'plain_text', text };
    const blocks = [
      { type: 'header', text: p },
      {
        type: 'section',
        text: t,
        fields: [t, p],
        accessory: { type: 'button', text: p, action_id: text, value: text, url: text },
      },
      { type: 'context', elements: [t, p, { type: 'image', image_url: text, alt_text: text }] },
      {
        type: 'actions',
        block_id: text,
        elements: [{ type: 'button', text: p, action_id: text, value: text, confirm: { title: p, text: t } }],
      },
      {
        type: 'actions',
        elements: [{ type: 'static_select', action_id: 'a', placeholder: p, options: [{ text: p, value: text }] }],
      },
      { type: 'image', image_url: `https://ok.example/${text}`, alt_text: text, title: p },
      {
        type: 'input',
        block_id: text,
        label: p,
        hint: t,
        element: { type: 'plain_text_input', action_id: text, initial_value: text, placeholder: p },
      },
      {
        type: 'input',
        label: p,
        element: { type: 'checkboxes', action_id: 'c', options: [{ text: t, value: text, description: t }] },
      },
      {
        type: 'rich_text',
        elements: [
          {
            type: 'rich_text_section',
            elements: [
              { type: 'text', text },
              { type: 'link', url: text, text },
            ],
          },
        ],
      },
      { type: text },
    ];
    const html = blocksToHtml(blocks);
    assertNoInjectedMarkup(html);
    // The hostile text is still there, as text, for the reader to see.
    expect(html).toContain(escapeHtml(text.replace(/[\uE000\uE001]/g, '')).slice(0, 5));
  });

  it('keeps a hostile value intact inside attributes (the page sends it back as the action value)', () => {
    const html = elementToHtml(
      { type: 'button', action_id: 'go', value: '"><script>', text: { type: 'plain_text', text: 'Go' } },
      'b1',
      {},
    );
    expect(html).toContain('data-value="&#34;&#62;&#60;script&#62;"');
  });

  it('renders message text and legacy attachments escaped', () => {
    const html = messageToHtml({
      text: 'Hi <script>',
      attachments: [{ text: '<img src=x>', color: 'red;background:url(x)' }],
    });
    assertNoInjectedMarkup(html);
    expect(html).not.toContain('style=');
  });
});

describe('links', () => {
  it('allows only http(s) and mailto URLs', () => {
    expect(safeUrl('https://example.com/a?b=1')).toBe('https://example.com/a?b=1');
    expect(safeUrl('mailto:a@example.com')).toBe('mailto:a@example.com');
    expect(safeUrl('javascript:alert(1)')).toBeUndefined();
    expect(safeUrl(' JavaScript:alert(1)')).toBeUndefined();
    expect(safeUrl('data:text/html,x')).toBeUndefined();
    expect(safeUrl('//evil.example')).toBeUndefined();
  });

  it('turns Slack links into anchors that open in a new tab, and refuses other schemes', () => {
    expect(mrkdwnToHtml('<https://rec.example/a.mp3|Recording>')).toBe(
      '<a href="https://rec.example/a.mp3" target="_blank" rel="noopener noreferrer">Recording</a>',
    );
    expect(mrkdwnToHtml('<javascript:alert(1)|Recording>')).toBe('Recording');
  });

  it('shows images as links', () => {
    expect(
      blocksToHtml([{ type: 'image', image_url: 'https://cdn.example/p.png', alt_text: 'Profile picture' }]),
    ).toContain(
      '<a class="bk-image-link" href="https://cdn.example/p.png" target="_blank" rel="noopener noreferrer">🖼 Profile picture</a>',
    );
  });
});

describe('mrkdwn', () => {
  it('formats bold, italic, strike, code, quotes and line breaks', () => {
    expect(mrkdwnToHtml('*Calls* _today_ ~none~ `camp-1`')).toBe(
      '<strong>Calls</strong> <em>today</em> <del>none</del> <code>camp-1</code>',
    );
    expect(mrkdwnToHtml('a\nb')).toBe('a<br>b');
    expect(mrkdwnToHtml('> quoted\n> more\nafter')).toBe('<blockquote>quoted<br>more</blockquote>after');
  });

  it('leaves Slack-escaped text as the characters it stands for', () => {
    expect(mrkdwnToHtml('Tom &amp; Jerry &lt;3')).toBe('Tom &#38; Jerry &#60;3');
    // An escaped `>` at the start of a line is text, not a quote.
    expect(mrkdwnToHtml('&gt; not a quote')).toBe('&#62; not a quote');
  });

  it('does not format inside words or code', () => {
    expect(mrkdwnToHtml('call_started and snake_case_name')).toBe('call_started and snake_case_name');
    expect(mrkdwnToHtml('`*not bold*`')).toBe('<code>*not bold*</code>');
  });

  it('names mentioned users and channels', () => {
    const ctx = { userName: (id: string) => (id === 'U1' ? 'ada' : undefined), channelName: () => 'support' };
    expect(mrkdwnToHtml('<@U1> in <#C1>', ctx)).toBe(
      '<span class="bk-mention">@ada</span> in <span class="bk-mention">#support</span>',
    );
    expect(mrkdwnToHtml('<@U2>', ctx)).toBe('<span class="bk-mention">@U2</span>');
  });

  it('turns Slack dates into <time> elements with the fallback as text', () => {
    expect(mrkdwnToHtml('<!date^1700000000^{date_short_pretty} at {time}|2023-11-14 22:13 UTC>')).toBe(
      '<time class="bk-date" datetime="2023-11-14T22:13:20.000Z" data-format="{date_short_pretty} at {time}">2023-11-14 22:13 UTC</time>',
    );
  });

  it('fills a date’s tokens as Slack words them: "ago" as a relative age, "pretty" days as words', () => {
    // Local times: the page shows dates in the reader's time zone, as Slack does.
    const now = new Date(2026, 11, 5, 13, 19, 30);
    const en = (format: string, when: Date, at = now) => slackDateText(format, when, at, 'en-US');
    const time = (d: Date) => d.toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit' });
    const waiting = new Date(2026, 11, 5, 13, 7);
    // The handoff card's "waiting since {time} ({ago})".
    expect(`since ${en('{time}', waiting)} (${en('{ago}', waiting)})`).toBe(`since ${time(waiting)} (12 minutes ago)`);
    expect(en('{ago}', new Date(2026, 11, 5, 13, 19))).toBe('Just now');
    expect(en('{ago}', new Date(2026, 11, 5, 9, 0))).toBe('4 hours ago');
    expect(en('{ago}', new Date(2026, 11, 3, 12, 0))).toBe('2 days ago');
    expect(en('{date_short_pretty} at {time}', waiting)).toBe(`Today at ${time(waiting)}`);
    const monday = new Date(2026, 11, 7, 9, 0);
    expect(en('next digest {date_short_pretty} at {time}', monday)).toBe(`Next digest Dec 7, 2026 at ${time(monday)}`);
    expect(en('{date_pretty}', new Date(2026, 11, 6, 9, 0))).toBe('Tomorrow');
    expect(en('{date_num}', monday)).toBe('2026-12-07');
    expect(en('{date_long}', monday)).toBe('Monday, December 7th, 2026');
    expect(en('{unknown} {date_num}', monday)).toBe('{unknown} 2026-12-07');
  });

  it('turns known emoji shortcodes into emoji and leaves unknown ones', () => {
    // Emoji in their fully-qualified form (with U+FE0F where Unicode gives one), as the app's emoji table has them.
    expect(mrkdwnToHtml(':white_check_mark: done :not_an_emoji: 10:30:00')).toBe(
      '\u2705\uFE0F done :not_an_emoji: 10:30:00',
    );
    expect(mrkdwnToHtml(':car: :smile: :thumbsup:')).toBe('🚗 😄 👍\uFE0F');
  });
});

describe('blocks', () => {
  it('renders what the bot posts: header, section with fields, context, divider, actions with buttons', () => {
    const html = blocksToHtml([
      header('Campaign stats'),
      fields([
        ['Calls', '1,284'],
        ['Connection rate', '62%'],
      ]),
      context('Last call: today'),
      divider(),
      actions(
        [
          button('Next', 'page_next', { value: '{"p":2}', style: 'primary' }),
          button('Recording', 'rec', { url: 'https://rec.example/x.mp3' }),
        ],
        'paging',
      ),
      section('*Top campaigns*'),
    ]);
    expect(html).toContain('<div class="bk-header">Campaign stats</div>');
    expect(html).toContain('<div class="bk-field"><strong>Calls</strong><br>1,284</div>');
    expect(html).toContain('<div class="bk-context"><span class="bk-context-item">Last call: today</span></div>');
    expect(html).toContain('<hr class="bk-divider">');
    expect(html).toContain(
      '<button type="button" class="bk-button bk-primary" data-action-id="page_next" data-block-id="paging" data-type="button" data-value="{&#34;p&#34;:2}">Next</button>',
    );
    expect(html).toContain(
      '<a class="bk-button" href="https://rec.example/x.mp3" target="_blank" rel="noopener noreferrer" data-action-id="rec"',
    );
    expect(html).toContain('<div class="bk-section-text"><strong>Top campaigns</strong></div>');
  });

  it('names blocks without a block_id by position, the same way the submission does', () => {
    expect(blocksToHtml([divider(), actions([button('Go', 'go')])])).toContain('data-block-id="auto-1"');
  });

  it('marks unsupported blocks and elements instead of dropping them', () => {
    expect(blocksToHtml([{ type: 'call' }])).toContain('[unsupported block: call]');
    expect(elementToHtml({ type: 'users_select', action_id: 'u' }, 'b', {})).toContain(
      '[unsupported element: users_select]',
    );
  });
});

describe('modals', () => {
  it('renders inputs, selects, checkboxes and file uploads as form fields', () => {
    const view = {
      type: 'modal',
      title: { type: 'plain_text', text: 'Clone a voice' },
      submit: { type: 'plain_text', text: 'Clone' },
      blocks: [
        {
          type: 'input',
          block_id: 'name',
          label: { type: 'plain_text', text: 'Name' },
          element: { type: 'plain_text_input', action_id: 'value', initial_value: 'Riley' },
        },
        {
          type: 'input',
          block_id: 'lang',
          label: { type: 'plain_text', text: 'Language' },
          element: {
            type: 'static_select',
            action_id: 'value',
            initial_option: { text: { type: 'plain_text', text: 'English' }, value: 'en' },
            options: [
              { text: { type: 'plain_text', text: 'English' }, value: 'en' },
              { text: { type: 'plain_text', text: 'Español' }, value: 'es' },
            ],
          },
        },
        {
          type: 'input',
          block_id: 'noise',
          optional: true,
          label: { type: 'plain_text', text: 'Options' },
          element: {
            type: 'checkboxes',
            action_id: 'value',
            options: [{ text: { type: 'plain_text', text: 'Remove background noise' }, value: 'yes' }],
          },
        },
        {
          type: 'input',
          block_id: 'files',
          label: { type: 'plain_text', text: 'Samples' },
          element: { type: 'file_input', action_id: 'value', filetypes: ['mp3', 'wav'], max_files: 10 },
        },
      ],
    };
    const { title, submit, close, body } = viewToHtml(view);
    expect(title).toBe('Clone a voice');
    expect(submit).toBe('Clone');
    expect(close).toBe('Cancel');
    expect(body).toContain(
      '<input class="bk-text" type="text" data-action-id="value" data-block-id="name" data-type="plain_text_input" data-input="true" aria-label="Name" value="Riley">',
    );
    expect(body).toContain('<option value="en" selected>English</option><option value="es">Español</option>');
    expect(body).toContain('<input type="checkbox" name="noise/value" value="yes">');
    expect(body).toContain('<span class="bk-optional">(optional)</span>');
    expect(body).toContain(
      'type="file" multiple data-action-id="value" data-block-id="files" data-type="file_input" data-input="true" aria-label="Samples" accept=".mp3,.wav" data-max-files="10"',
    );
  });
});
