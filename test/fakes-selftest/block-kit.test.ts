/**
 * The stand-in's Block Kit validator against Slack's published limits: each limit passes at the limit and is
 * refused one over, naming the offending field's JSON pointer the way Slack's `response_metadata.messages` do.
 *
 * Limits, by page:
 * - https://docs.slack.dev/reference/block-kit/blocks (50 blocks a message, 100 a modal or Home tab)
 * - https://docs.slack.dev/reference/block-kit/blocks/section-block (text 3000; ≤ 10 fields × 2000)
 * - https://docs.slack.dev/reference/block-kit/blocks/header-block (plain_text, 150)
 * - https://docs.slack.dev/reference/block-kit/blocks/actions-block (≤ 25 elements; block_id ≤ 255, unique)
 * - https://docs.slack.dev/reference/block-kit/blocks/context-block (≤ 10 elements)
 * - https://docs.slack.dev/reference/block-kit/blocks/input-block (label, hint 2000; modals and Home tabs)
 * - https://docs.slack.dev/reference/block-kit/blocks/image-block (image_url 3000, alt_text 2000)
 * - https://docs.slack.dev/reference/block-kit/block-elements/button-element (text 75, value 2000, url 3000,
 *   action_id 255 and unique within the containing block)
 * - https://docs.slack.dev/reference/block-kit/block-elements/select-menu-element (≤ 100 options or groups;
 *   placeholder 150)
 * - https://docs.slack.dev/reference/block-kit/block-elements/overflow-menu-element (1–5 options)
 * - https://docs.slack.dev/reference/block-kit/block-elements/checkboxes-element and
 *   https://docs.slack.dev/reference/block-kit/block-elements/radio-button-group-element (≤ 10 options)
 * - https://docs.slack.dev/reference/block-kit/block-elements/plain-text-input-element (min/max_length ≤ 3000)
 * - https://docs.slack.dev/reference/block-kit/block-elements/file-input-element (max_files 1–10)
 * - https://docs.slack.dev/reference/block-kit/composition-objects/option-object (text 75, value 150)
 * - https://docs.slack.dev/reference/block-kit/composition-objects/option-group-object
 * - https://docs.slack.dev/reference/block-kit/composition-objects/confirmation-dialog-object (100/300/30/30)
 * - https://docs.slack.dev/reference/block-kit/composition-objects/text-object (1..3000 characters)
 * - https://docs.slack.dev/reference/views/modal-views (title/submit/close 24; private_metadata 3000;
 *   callback_id 255; external_id 255; submit required with an input block)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { blockKitErrors, imageUrls, messageErrors, viewErrors } from '../../fakes/slack/block-kit.js';
import { controlSequenceErrors } from '../../fakes/slack/mrkdwn.js';
import { renderHome } from '../../src/home/render.js';
import { checkboxes, fileInput, modal, textInput } from '../../src/slack/modals.js';

const s = (n: number): string => 'x'.repeat(n);
const plain = (text: string) => ({ type: 'plain_text', text });
const md = (text: string) => ({ type: 'mrkdwn', text });
const option = (i: number, text = `Option ${i}`, value = `v${i}`) => ({ text: plain(text), value });
const options = (n: number) => Array.from({ length: n }, (_, i) => option(i));
const button = (extra: Record<string, unknown> = {}) => ({
  type: 'button',
  text: plain('Go'),
  action_id: 'go',
  ...extra,
});
const actions = (...elements: unknown[]) => ({ type: 'actions', elements });
const input = (element: unknown, extra: Record<string, unknown> = {}) => ({
  type: 'input',
  label: plain('Field'),
  element,
  ...extra,
});
const confirm = (extra: Record<string, unknown> = {}) => ({
  title: plain('Sure?'),
  text: plain('Really.'),
  confirm: plain('Yes'),
  deny: plain('No'),
  ...extra,
});

const inMessage = (...blocks: unknown[]): string[] => messageErrors({ text: 'fallback', blocks });
const inModal = (blocks: unknown[], extra: Record<string, unknown> = {}): string[] =>
  viewErrors({ type: 'modal', title: plain('Title'), submit: plain('Save'), blocks, ...extra }, 'modal');

/** [what, limit, errors for a value of size n, pointer of the refused field] */
type LimitCase = [string, number, (n: number) => string[], string];

const cases: LimitCase[] = [
  ['blocks in a message', 50, (n) => inMessage(...Array.from({ length: n }, () => ({ type: 'divider' }))), '/blocks'],
  ['blocks in a modal', 100, (n) => inModal(Array.from({ length: n }, () => ({ type: 'divider' }))), '/view/blocks'],
  ['section text', 3000, (n) => inMessage({ type: 'section', text: md(s(n)) }), '/blocks/0/text/text'],
  [
    'section fields',
    10,
    (n) => inMessage({ type: 'section', fields: Array.from({ length: n }, () => md('f')) }),
    '/blocks/0/fields',
  ],
  ['section field text', 2000, (n) => inMessage({ type: 'section', fields: [md(s(n))] }), '/blocks/0/fields/0/text'],
  ['header text', 150, (n) => inMessage({ type: 'header', text: plain(s(n)) }), '/blocks/0/text/text'],
  ['button text', 75, (n) => inMessage(actions(button({ text: plain(s(n)) }))), '/blocks/0/elements/0/text/text'],
  ['button value', 2000, (n) => inMessage(actions(button({ value: s(n) }))), '/blocks/0/elements/0/value'],
  ['button url', 3000, (n) => inMessage(actions(button({ url: s(n) }))), '/blocks/0/elements/0/url'],
  ['action_id', 255, (n) => inMessage(actions(button({ action_id: s(n) }))), '/blocks/0/elements/0/action_id'],
  ['block_id', 255, (n) => inMessage({ type: 'divider', block_id: s(n) }), '/blocks/0/block_id'],
  [
    'context elements',
    10,
    (n) => inMessage({ type: 'context', elements: Array.from({ length: n }, () => md('c')) }),
    '/blocks/0/elements',
  ],
  [
    'actions elements',
    25,
    (n) => inMessage(actions(...Array.from({ length: n }, (_, i) => button({ action_id: `b${i}` })))),
    '/blocks/0/elements',
  ],
  [
    'static_select options',
    100,
    (n) => inMessage(actions({ type: 'static_select', action_id: 'pick', options: options(n) })),
    '/blocks/0/elements/0/options',
  ],
  [
    'multi_static_select options',
    100,
    (n) => inModal([input({ type: 'multi_static_select', action_id: 'pick', options: options(n) })]),
    '/view/blocks/0/element/options',
  ],
  [
    'option_groups',
    100,
    (n) =>
      inMessage(
        actions({
          type: 'static_select',
          action_id: 'pick',
          option_groups: Array.from({ length: n }, (_, i) => ({ label: plain(`G${i}`), options: [option(i)] })),
        }),
      ),
    '/blocks/0/elements/0/option_groups',
  ],
  [
    'overflow options',
    5,
    (n) => inMessage(actions({ type: 'overflow', action_id: 'more', options: options(n) })),
    '/blocks/0/elements/0/options',
  ],
  [
    'checkboxes options',
    10,
    (n) => inModal([input({ type: 'checkboxes', options: options(n) })]),
    '/view/blocks/0/element/options',
  ],
  [
    'radio_buttons options',
    10,
    (n) => inModal([input({ type: 'radio_buttons', options: options(n) })]),
    '/view/blocks/0/element/options',
  ],
  [
    'option text',
    75,
    (n) => inMessage(actions({ type: 'static_select', action_id: 'pick', options: [option(0, s(n))] })),
    '/blocks/0/elements/0/options/0/text/text',
  ],
  [
    'option value',
    150,
    (n) => inMessage(actions({ type: 'static_select', action_id: 'pick', options: [option(0, 'A', s(n))] })),
    '/blocks/0/elements/0/options/0/value',
  ],
  [
    'select placeholder',
    150,
    (n) => inMessage(actions({ type: 'users_select', action_id: 'who', placeholder: plain(s(n)) })),
    '/blocks/0/elements/0/placeholder/text',
  ],
  [
    'plain_text_input max_length',
    3000,
    (n) => inModal([input({ type: 'plain_text_input', max_length: n })]),
    '/view/blocks/0/element/max_length',
  ],
  [
    'plain_text_input min_length',
    3000,
    (n) => inModal([input({ type: 'plain_text_input', min_length: n })]),
    '/view/blocks/0/element/min_length',
  ],
  [
    'file_input max_files',
    10,
    (n) => inModal([input({ type: 'file_input', max_files: n })]),
    '/view/blocks/0/element/max_files',
  ],
  [
    'image alt_text',
    2000,
    (n) => inMessage({ type: 'image', image_url: 'https://img.example/a.png', alt_text: s(n) }),
    '/blocks/0/alt_text',
  ],
  ['image image_url', 3000, (n) => inMessage({ type: 'image', image_url: s(n), alt_text: 'a' }), '/blocks/0/image_url'],
  [
    'image element alt_text (section accessory)',
    2000,
    (n) =>
      inMessage({
        type: 'section',
        text: md('t'),
        accessory: { type: 'image', image_url: 'https://img.example/a.png', alt_text: s(n) },
      }),
    '/blocks/0/accessory/alt_text',
  ],
  [
    'input label',
    2000,
    (n) => inModal([{ ...input({ type: 'plain_text_input' }), label: plain(s(n)) }]),
    '/view/blocks/0/label/text',
  ],
  [
    'input hint',
    2000,
    (n) => inModal([input({ type: 'plain_text_input' }, { hint: plain(s(n)) })]),
    '/view/blocks/0/hint/text',
  ],
  ['modal title', 24, (n) => inModal([], { title: plain(s(n)) }), '/view/title/text'],
  ['modal submit', 24, (n) => inModal([], { submit: plain(s(n)) }), '/view/submit/text'],
  ['modal close', 24, (n) => inModal([], { close: plain(s(n)) }), '/view/close/text'],
  ['private_metadata', 3000, (n) => inModal([], { private_metadata: s(n) }), '/view/private_metadata'],
  ['callback_id', 255, (n) => inModal([], { callback_id: s(n) }), '/view/callback_id'],
  ['external_id', 255, (n) => inModal([], { external_id: s(n) }), '/view/external_id'],
  [
    'confirm title',
    100,
    (n) => inMessage(actions(button({ confirm: confirm({ title: plain(s(n)) }) }))),
    '/blocks/0/elements/0/confirm/title/text',
  ],
  [
    'confirm text',
    300,
    (n) => inMessage(actions(button({ confirm: confirm({ text: plain(s(n)) }) }))),
    '/blocks/0/elements/0/confirm/text/text',
  ],
  [
    'confirm button',
    30,
    (n) => inMessage(actions(button({ confirm: confirm({ confirm: plain(s(n)) }) }))),
    '/blocks/0/elements/0/confirm/confirm/text',
  ],
  [
    'deny button',
    30,
    (n) => inMessage(actions(button({ confirm: confirm({ deny: plain(s(n)) }) }))),
    '/blocks/0/elements/0/confirm/deny/text',
  ],
];

describe.each(cases)('%s (limit %i)', (_what, limit, errorsFor, pointer) => {
  it('passes at the limit', () => {
    expect(errorsFor(limit)).toEqual([]);
  });

  it('is refused one over, naming the field', () => {
    const errors = errorsFor(limit + 1);
    expect(errors).toEqual([expect.stringMatching(/^\[ERROR\] .+ \[json-pointer:.+\]$/)]);
    expect(errors[0]).toContain(`[json-pointer:${pointer}]`);
  });
});

describe('Slack’s wording and minimums', () => {
  it('words a too-long field as Slack does', () => {
    const errors = inMessage(actions(button(), button({ action_id: 'other', text: plain(s(76)) })));
    expect(errors).toEqual(['[ERROR] must be less than 76 characters [json-pointer:/blocks/0/elements/1/text/text]']);
  });

  it('refuses file_input max_files below 1 and an overflow without options', () => {
    expect(inModal([input({ type: 'file_input', max_files: 1 })])).toEqual([]);
    expect(inModal([input({ type: 'file_input', max_files: 0 })])).toEqual([
      expect.stringContaining('[json-pointer:/view/blocks/0/element/max_files]'),
    ]);
    expect(inMessage(actions({ type: 'overflow', action_id: 'more', options: [] }))).toEqual([
      expect.stringContaining('[json-pointer:/blocks/0/elements/0/options]'),
    ]);
  });

  it('refuses an empty text object, mrkdwn where only plain_text goes, and unknown types', () => {
    expect(inMessage({ type: 'section', text: md('') })).toEqual([
      '[ERROR] must be more than 0 characters [json-pointer:/blocks/0/text/text]',
    ]);
    expect(inMessage({ type: 'header', text: md('Title') })).toEqual([
      expect.stringContaining('[json-pointer:/blocks/0/text/type]'),
    ]);
    expect(inMessage({ type: 'carousel_of_dreams' })).toEqual([
      '[ERROR] unsupported type: carousel_of_dreams [json-pointer:/blocks/0/type]',
    ]);
    // An input element is not an actions element.
    expect(inMessage(actions({ type: 'plain_text_input', action_id: 'x' }))).toEqual([
      '[ERROR] unsupported type: plain_text_input [json-pointer:/blocks/0/elements/0/type]',
    ]);
  });
});

describe('uniqueness', () => {
  it('refuses a duplicate action_id within an actions block (Slack answers invalid_blocks)', () => {
    expect(inMessage(actions(button({ action_id: 'a' }), button({ action_id: 'b' })))).toEqual([]);
    expect(inMessage(actions(button({ action_id: 'a' }), button({ action_id: 'a' })))).toEqual([
      '[ERROR] duplicate action_id: a [json-pointer:/blocks/0/elements/1/action_id]',
    ]);
  });

  it('lets the same action_id appear in different blocks', () => {
    expect(inMessage(actions(button({ action_id: 'a' })), actions(button({ action_id: 'a' })))).toEqual([]);
    expect(
      inModal([
        input({ type: 'plain_text_input', action_id: 'value' }),
        input({ type: 'plain_text_input', action_id: 'value' }),
      ]),
    ).toEqual([]);
  });

  it('refuses a block_id used twice anywhere in the message or view', () => {
    const errors = inMessage(
      { type: 'divider', block_id: 'b1' },
      { type: 'section', text: md('t') },
      { type: 'divider', block_id: 'b1' },
    );
    expect(errors).toEqual(['[ERROR] duplicate block_id: b1 [json-pointer:/blocks/2/block_id]']);
    expect(
      inModal([{ type: 'divider', block_id: 'x' }, input({ type: 'plain_text_input' }, { block_id: 'x' })]),
    ).toEqual(['[ERROR] duplicate block_id: x [json-pointer:/view/blocks/1/block_id]']);
  });
});

describe('surfaces', () => {
  const field = input({ type: 'plain_text_input', action_id: 'value' });

  it('refuses an input block in a message, in blocks and in attachments', () => {
    expect(inMessage(field)).toEqual([expect.stringContaining('[json-pointer:/blocks/0/type]')]);
    expect(messageErrors({ text: 't', attachments: [{ blocks: [field] }] })).toEqual([
      expect.stringContaining('[json-pointer:/attachments/0/blocks/0/type]'),
    ]);
    // blockKitErrors alone is surface-neutral: views call it too.
    expect(blockKitErrors([field], 50)).toEqual([]);
  });

  it('accepts an input block in a modal (with submit) and on a Home tab', () => {
    expect(inModal([field])).toEqual([]);
    expect(viewErrors({ type: 'home', blocks: [field] }, 'home')).toEqual([]);
  });

  it('needs submit on a modal with an input block', () => {
    expect(viewErrors({ type: 'modal', title: plain('Title'), blocks: [field] }, 'modal')).toEqual([
      `[ERROR] submit is required when an 'input' block is within the blocks array [json-pointer:/view/submit]`,
    ]);
  });

  it('refuses a view of the wrong kind', () => {
    expect(viewErrors({ type: 'home', blocks: [] }, 'modal')).toEqual([
      '[ERROR] must be modal [json-pointer:/view/type]',
    ]);
  });
});

describe('imageUrls', () => {
  it('finds image blocks and image elements wherever they are nested', () => {
    const blocks = [
      { type: 'image', image_url: 'https://img.example/block.png', alt_text: 'block' },
      {
        type: 'section',
        text: md('t'),
        accessory: { type: 'image', image_url: 'https://img.example/accessory.png', alt_text: 'acc' },
      },
      { type: 'divider' },
      {
        type: 'context',
        elements: [md('by'), { type: 'image', image_url: 'https://img.example/avatar.png', alt_text: 'avatar' }],
      },
      // A Slack-hosted file has no URL to fetch.
      { type: 'image', slack_file: { id: 'F0123' }, alt_text: 'hosted' },
    ];
    expect(imageUrls(blocks)).toEqual([
      { url: 'https://img.example/block.png', pointer: '/blocks/0/image_url' },
      { url: 'https://img.example/accessory.png', pointer: '/blocks/1/accessory/image_url' },
      { url: 'https://img.example/avatar.png', pointer: '/blocks/3/elements/1/image_url' },
    ]);
    expect(imageUrls([{ type: 'section', text: md('no images') }])).toEqual([]);
    expect(imageUrls('not blocks')).toEqual([]);
  });
});

describe('what the bot renders today', () => {
  const goldenDir = fileURLToPath(new URL('../events/golden/', import.meta.url));
  const golden = readdirSync(goldenDir).filter((f) => f.endsWith('.json'));

  it('has golden fixtures to check', () => {
    expect(golden.length).toBeGreaterThan(10);
  });

  it.each(golden)('golden %s passes as a message', (file) => {
    const json = JSON.parse(readFileSync(`${goldenDir}${file}`, 'utf8')) as Record<string, unknown>;
    // Thread replies are stored as `{ kind: 'message', payload }`.
    const payload = (json.kind === 'message' ? json.payload : json) as Record<string, unknown>;
    expect(Array.isArray(payload.blocks)).toBe(true);
    expect(messageErrors(payload)).toEqual([]);
  });

  it('the Home tab passes as a home view', () => {
    const home = renderHome({
      connection: null,
      routes: [],
      deadLetters: 2,
      quota: { problem: 'down' },
      isAdmin: true,
      myConversations: { shown: [], total: 0 },
      now: 0,
    });
    expect(viewErrors(home as unknown as Record<string, unknown>, 'home')).toEqual([]);
  });

  it('a modal built from every field helper passes', () => {
    const view = modal({
      callbackId: 'settings',
      title: 'A title longer than twenty-four characters',
      submit: 'Save',
      privateMetadata: s(100),
      blocks: [
        textInput('name', 'Name', { placeholder: 'Your name', hint: 'As customers see it', maxLength: 3000 }),
        fileInput('upload', 'Upload', { maxFiles: 50, filetypes: ['csv'] }),
        checkboxes(
          'flags',
          'Flags',
          Array.from({ length: 12 }, (_, i) => ({ value: `f${i}`, text: `Flag ${i}` })),
          { optional: true, initial: ['f1'] },
        ),
      ],
    });
    expect(viewErrors(view as unknown as Record<string, unknown>, 'modal')).toEqual([]);
  });
});

describe('mrkdwn control sequences', () => {
  const section = (text: string) => [{ type: 'section', text: { type: 'mrkdwn', text } }];

  it.each([
    'hi <@U0ADA> in <#C0123|support> <!here> <!subteam^S1|@oncall> <!date^1700000000^{date}|Nov 14>',
    'see <https://example.com/a?b=1&amp;c=2|the docs> or <mailto:help@example.com|mail us>',
    '&gt; a quote\n> another quote, and 1 &lt; 2 &amp; 3 &gt; 2',
  ])('takes %s', (text) => {
    expect(messageErrors({ blocks: section(text) })).toEqual([]);
    expect(controlSequenceErrors(text)).toEqual([]);
  });

  it.each([
    ['`/campaign subscribe <campaignId|*>`', "unescaped '<'"],
    ['usage: bookings <campaignId>', "unescaped '<'"],
    ['Fish & chips', "unescaped '&'"],
    ['1 > 0', "unescaped '>'"],
    ['a stray < sign', "unescaped '<'"],
  ])('refuses %s', (text, problem) => {
    const errors = messageErrors({ blocks: section(text) });
    expect(errors.join('\n')).toContain(problem);
    expect(errors.join('\n')).toContain('[json-pointer:/blocks/0/text/text]');
  });
});
