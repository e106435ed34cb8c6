/**
 * Block Kit (and Slack mrkdwn) → HTML, for the playground page. Pure functions of their input.
 *
 * Everything here comes from the bot, which copies platform text (customer names, chat messages, call
 * summaries) into its posts, so every piece of text is escaped on the way out: the only markup in the result
 * is markup this module writes. Links are made only from http(s)/mailto URLs; anything else is shown as text.
 * Interactive elements carry `data-*` attributes (action id, block id, value…) that the page reads to send
 * the same interaction payload Slack would; the page never turns those values back into markup. Links to
 * places that exist only in real Slack or on the platform stay on the page (`localTarget`, local-links.ts).
 */
import { emojify } from '../src/handoff/emoji.js';
import { localLinkAttributes, type LocalTargets } from './local-links.js';
import { chartToHtml, dataTableToHtml } from './blockkit-charts.js';

export interface RenderContext {
  /** Display name of a user id (for `<@U…>` mentions); the id is shown when unknown. */
  userName?: (id: string) => string | undefined;
  /** Handle of a user group id (for `<!subteam^S…>` mentions without a label). */
  userGroupHandle?: (id: string) => string | undefined;
  /** Name of a channel id (for `<#C…>` links). */
  channelName?: (id: string) => string | undefined;
  /** Where a link opens inside the page instead (a thread, the audio player); others open in a new tab. */
  localTarget?: LocalTargets;
}

type Json = Record<string, unknown>;

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** Escapes text for HTML element content and (double- or single-quoted) attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Slack escapes only these three in message text; everything else arrives as is. */
function decodeSlackEntities(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** A URL we are willing to put in an href: http(s) and mailto only (no `javascript:`, `data:`…). */
export function safeUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  const url = raw.trim();
  if (!/^(https?:\/\/|mailto:)/i.test(url)) return undefined;
  try {
    return new URL(url).href;
  } catch {
    return undefined;
  }
}

function link(href: string, labelHtml: string, cls = '', ctx: RenderContext = {}): string {
  const local = ctx.localTarget?.(href);
  if (local)
    return `<a class="local-link${cls ? ` ${cls}` : ''}" href="#"${attrs(localLinkAttributes(local))}>${local.kind === 'audio' ? '🎧 ' : ''}${labelHtml}</a>`;
  return `<a${cls ? ` class="${cls}"` : ''} href="${escapeHtml(href)}" target="_blank" rel="noopener noreferrer">${labelHtml}</a>`;
}

/**
 * The emoji Slack shows for a shortcode name (`car`, `+1`, `smile`), or undefined for one it does not know (a
 * workspace's custom emoji, shown as typed). The one place the page looks emoji up: from the app's own table.
 */
function slackEmoji(name: string): string | undefined {
  const typed = `:${name}:`;
  const shown = emojify(typed);
  return shown === typed ? undefined : shown;
}

/** The character for a reaction / shortcode name, or `:name:` when unknown. */
export function emojiFor(name: string): string {
  return slackEmoji(name) ?? `:${name}:`;
}

function withEmoji(escaped: string): string {
  return escaped.replace(/:([a-z0-9_+-]+):/g, (whole, name: string) => slackEmoji(name) ?? whole);
}

/** Plain text (a `plain_text` object): escaped, line breaks kept, `:shortcodes:` turned into emoji when asked. */
export function plainToHtml(text: string, emoji = true): string {
  const escaped = escapeHtml(text);
  return (emoji ? withEmoji(escaped) : escaped).replace(/\n/g, '<br>');
}

// Placeholders for pieces already turned into HTML; these private-use characters are removed from the input.
const PH_OPEN = '\uE000';
const PH_CLOSE = '\uE001';
const PH_PATTERN = /\uE000(\d+)\uE001/g;

function slackDateHtml(body: string, ctx: RenderContext): string {
  // <!date^1700000000^{date_short_pretty} at {time}^optional_link|fallback>
  const [spec = '', ...rest] = body.split('|');
  const fallback = rest.join('|');
  const [, seconds = '', format = '', optionalLink] = spec.split('^');
  const ms = Number(seconds) * 1000;
  if (!/^\d+$/.test(seconds) || !Number.isFinite(ms)) return escapeHtml(fallback || body);
  const iso = new Date(ms).toISOString();
  const time = `<time class="bk-date" datetime="${escapeHtml(iso)}" data-format="${escapeHtml(format)}">${escapeHtml(fallback || iso)}</time>`;
  const href = safeUrl(optionalLink);
  return href ? link(href, time, '', ctx) : time;
}

/** One `<…>` control sequence of mrkdwn: a link, mention, channel, special mention or date. */
function controlToHtml(body: string, ctx: RenderContext): string {
  const [target = '', ...labelParts] = body.split('|');
  const label = labelParts.join('|');
  if (target.startsWith('@')) {
    const id = target.slice(1);
    const name = label || ctx.userName?.(id) || id;
    return `<span class="bk-mention">@${escapeHtml(name)}</span>`;
  }
  if (target.startsWith('#')) {
    const id = target.slice(1);
    const name = label || ctx.channelName?.(id) || id;
    return `<span class="bk-mention">#${escapeHtml(name)}</span>`;
  }
  if (target.startsWith('!date^')) return slackDateHtml(body.slice(1), ctx);
  if (target.startsWith('!subteam^')) {
    const handle = ctx.userGroupHandle?.(target.slice('!subteam^'.length));
    return `<span class="bk-mention">${escapeHtml(label || (handle ? `@${handle}` : '@group'))}</span>`;
  }
  if (target.startsWith('!')) return `<span class="bk-mention">@${escapeHtml(label || target.slice(1))}</span>`;
  const href = safeUrl(decodeSlackEntities(target));
  const text = escapeHtml(decodeSlackEntities(label || target));
  return href ? link(href, text, '', ctx) : text;
}

function inlineFormat(escaped: string): string {
  return withEmoji(escaped)
    .replace(/(^|[^\w*])\*(?!\s)([^*\n]+?)(?<!\s)\*(?![\w*])/g, '$1<strong>$2</strong>')
    .replace(/(^|[^\w_])_(?!\s)([^_\n]+?)(?<!\s)_(?![\w_])/g, '$1<em>$2</em>')
    .replace(/(^|[^\w~])~(?!\s)([^~\n]+?)(?<!\s)~(?![\w~])/g, '$1<del>$2</del>');
}

/** Slack mrkdwn → HTML: *bold*, _italic_, ~strike~, `code`, ```blocks```, > quotes, links, mentions, dates. */
export function mrkdwnToHtml(input: string, ctx: RenderContext = {}): string {
  const pieces: string[] = [];
  const hold = (html: string): string => {
    pieces.push(html);
    return `${PH_OPEN}${pieces.length - 1}${PH_CLOSE}`;
  };
  let text = input.replace(/[\uE000\uE001]/g, '');
  text = text.replace(/```([\s\S]*?)```/g, (_, code: string) =>
    hold(`<pre class="bk-pre">${escapeHtml(decodeSlackEntities(code.replace(/^\n/, '')))}</pre>`),
  );
  text = text.replace(/`([^`\n]+)`/g, (_, code: string) =>
    hold(`<code>${escapeHtml(decodeSlackEntities(code))}</code>`),
  );
  text = text.replace(/<([^<>\n]+)>/g, (_, body: string) => hold(controlToHtml(body, ctx)));

  // Quotes are recognised on the raw text: a literal `>` at the start of a line (escaped `&gt;` is just text).
  const out: string[] = [];
  let quote: string[] = [];
  const flushQuote = () => {
    if (quote.length > 0) out.push(`<blockquote>${quote.join('<br>')}</blockquote>`);
    quote = [];
  };
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const quoted = /^>\s?/.exec(line);
    const body = inlineFormat(escapeHtml(decodeSlackEntities(quoted ? line.slice(quoted[0].length) : line)));
    if (quoted) {
      quote.push(body);
      return;
    }
    flushQuote();
    out.push(body + (i < lines.length - 1 ? '<br>' : ''));
  });
  flushQuote();
  return out.join('').replace(PH_PATTERN, (_, n: string) => pieces[Number(n)] ?? '');
}

/** A text object (`plain_text` or `mrkdwn`) → HTML. Anything else renders as nothing. */
function textToHtml(t: unknown, ctx: RenderContext = {}): string {
  if (!isObj(t)) return '';
  const text = str(t.text) ?? '';
  return t.type === 'mrkdwn' ? mrkdwnToHtml(text, ctx) : plainToHtml(text, t.emoji !== false);
}

/** The words of a text object, without markup (for `title` attributes and confirm dialogs). */
export function textToPlain(t: unknown): string {
  if (!isObj(t)) return '';
  const text = str(t.text) ?? '';
  return t.type === 'mrkdwn'
    ? decodeSlackEntities(text.replace(/<[^<>|]*\|([^<>]*)>/g, '$1').replace(/<([^<>]*)>/g, '$1'))
    : text;
}

function attrs(pairs: Record<string, string | undefined>): string {
  return Object.entries(pairs)
    .filter((e): e is [string, string] => e[1] !== undefined)
    .map(([k, v]) => ` ${k}="${escapeHtml(v)}"`)
    .join('');
}

/** The block id the page and the submission agree on: the block's own, or a stable one from its position. */
export function blockIdOf(block: unknown, index: number): string {
  return isObj(block) && typeof block.block_id === 'string' && block.block_id !== '' ? block.block_id : `auto-${index}`;
}

interface Options {
  text: string;
  value: string;
  description?: string;
}

/** The options of a select / checkbox group / radio group, flattened out of option groups. */
export function optionsOf(element: Json): Array<Json & { value: string }> {
  const out: Array<Json & { value: string }> = [];
  const take = (o: unknown) => {
    if (isObj(o) && typeof o.value === 'string') out.push(o as Json & { value: string });
  };
  list(element.options).forEach(take);
  for (const group of list(element.option_groups)) if (isObj(group)) list(group.options).forEach(take);
  return out;
}

function optionHtml(o: Json & { value: string }, ctx: RenderContext): Options {
  return {
    text: textToHtml(o.text, ctx),
    value: o.value,
    ...(o.description !== undefined ? { description: textToHtml(o.description, ctx) } : {}),
  };
}

function confirmText(confirm: unknown): string | undefined {
  if (!isObj(confirm)) return undefined;
  return [textToPlain(confirm.title), textToPlain(confirm.text)].filter(Boolean).join('\n\n');
}

function selectedValues(element: Json): string[] {
  const one =
    isObj(element.initial_option) && typeof element.initial_option.value === 'string'
      ? [element.initial_option.value]
      : [];
  const many = list(element.initial_options).flatMap((o) => (isObj(o) && typeof o.value === 'string' ? [o.value] : []));
  return [...one, ...many];
}

/**
 * One element: a button, select, overflow menu, date picker, text/file input, checkbox or radio group, or an
 * image (shown as a link). `input` marks elements inside an input block (their values are part of the form).
 */
export function elementToHtml(el: unknown, blockId: string, ctx: RenderContext, input = false, label?: string): string {
  if (!isObj(el)) return '';
  const type = str(el.type) ?? '';
  const actionId = str(el.action_id) ?? '';
  const common = {
    'data-action-id': actionId,
    'data-block-id': blockId,
    'data-type': type,
    'data-input': input ? 'true' : undefined,
    // An input block's label names its field for assistive technology (and for tests that find fields by label).
    'aria-label': label,
  };
  const placeholder = isObj(el.placeholder) ? textToPlain(el.placeholder) : undefined;
  switch (type) {
    case 'button': {
      const style = str(el.style);
      const cls = `bk-button${style === 'primary' ? ' bk-primary' : style === 'danger' ? ' bk-danger' : ''}`;
      const a = attrs({ ...common, 'data-value': str(el.value), 'data-confirm': confirmText(el.confirm) });
      const href = safeUrl(str(el.url));
      const local = href ? ctx.localTarget?.(href) : undefined;
      // A link button that stays on the page still reports its click to the app, as Slack does.
      if (local)
        return `<button type="button" class="${cls} local-link"${a}${attrs(localLinkAttributes(local))}>${textToHtml(el.text, ctx)}</button>`;
      if (href)
        return `<a class="${cls}" href="${escapeHtml(href)}" target="_blank" rel="noopener noreferrer"${a}>${textToHtml(el.text, ctx)} ↗</a>`;
      return `<button type="button" class="${cls}"${a}>${textToHtml(el.text, ctx)}</button>`;
    }
    case 'static_select':
    case 'multi_static_select':
    case 'overflow': {
      const chosen = new Set(selectedValues(el));
      const multiple = type === 'multi_static_select';
      const first =
        type === 'overflow'
          ? '<option value="">⋯</option>'
          : multiple
            ? ''
            : `<option value="">${escapeHtml(placeholder ?? 'Select an option')}</option>`;
      const opts = optionsOf(el)
        .map(
          (o) =>
            `<option value="${escapeHtml(o.value)}"${chosen.has(o.value) ? ' selected' : ''}>${escapeHtml(textToPlain(o.text))}</option>`,
        )
        .join('');
      return `<select class="bk-select"${multiple ? ' multiple' : ''}${attrs({ ...common, 'data-confirm': confirmText(el.confirm) })}>${first}${opts}</select>`;
    }
    case 'external_select': {
      // Options come from the app as the person types (page/app.js asks through /playground/options).
      const list = `options-${blockId}-${actionId}`;
      const least = typeof el.min_query_length === 'number' ? el.min_query_length : 3;
      return (
        `<input class="bk-text" type="text" autocomplete="off"${attrs({ ...common, list, placeholder, 'data-min-query': String(least) })}>` +
        `<datalist id="${escapeHtml(list)}"></datalist>`
      );
    }
    case 'checkboxes':
    case 'radio_buttons': {
      const chosen = new Set(selectedValues(el));
      const kind = type === 'checkboxes' ? 'checkbox' : 'radio';
      const name = `${blockId}/${actionId}`;
      const items = optionsOf(el)
        .map((o) => {
          const h = optionHtml(o, ctx);
          return (
            `<label class="bk-option"><input type="${kind}" name="${escapeHtml(name)}" value="${escapeHtml(h.value)}"${chosen.has(h.value) ? ' checked' : ''}>` +
            `<span>${h.text}${h.description ? `<span class="bk-option-description">${h.description}</span>` : ''}</span></label>`
          );
        })
        .join('');
      return `<div class="bk-options"${attrs(common)}>${items}</div>`;
    }
    case 'plain_text_input':
    case 'email_text_input':
    case 'url_text_input':
    case 'number_input': {
      const initial = str(el.initial_value);
      const a = attrs({
        ...common,
        placeholder,
        maxlength: typeof el.max_length === 'number' ? String(el.max_length) : undefined,
        minlength: typeof el.min_length === 'number' ? String(el.min_length) : undefined,
      });
      if (el.multiline === true)
        return `<textarea class="bk-text" rows="4"${a}>${escapeHtml(initial ?? '')}</textarea>`;
      const inputType =
        type === 'email_text_input'
          ? 'email'
          : type === 'url_text_input'
            ? 'url'
            : type === 'number_input'
              ? 'number'
              : 'text';
      return `<input class="bk-text" type="${inputType}"${a}${attrs({ value: initial })}>`;
    }
    case 'datepicker':
      return `<input class="bk-text" type="date"${attrs({ ...common, value: str(el.initial_date) })}>`;
    case 'timepicker':
      return `<input class="bk-text" type="time"${attrs({ ...common, value: str(el.initial_time) })}>`;
    case 'file_input': {
      const types = list(el.filetypes).filter((t): t is string => typeof t === 'string');
      const max = typeof el.max_files === 'number' ? el.max_files : 10;
      return (
        `<input class="bk-file" type="file" multiple${attrs({ ...common, accept: types.length > 0 ? types.map((t) => `.${t}`).join(',') : undefined, 'data-max-files': String(max) })}>` +
        `<div class="bk-file-list" data-files-for="${escapeHtml(`${blockId}/${actionId}`)}"></div>`
      );
    }
    case 'image':
      return imageLink(el, 'bk-image-inline');
    default:
      return `<span class="bk-unsupported">[unsupported element: ${escapeHtml(type || 'unknown')}]</span>`;
  }
}

function imageLink(el: Json, cls: string): string {
  const label = `🖼 ${escapeHtml(textToPlain(el.title) || str(el.alt_text) || 'image')}`;
  const href = safeUrl(str(el.image_url));
  return href ? link(href, label, cls) : `<span class="${cls}">${label}</span>`;
}

function richTextToHtml(block: Json, ctx: RenderContext): string {
  const render = (el: unknown): string => {
    if (!isObj(el)) return '';
    switch (el.type) {
      case 'text': {
        let html = plainToHtml(str(el.text) ?? '', false);
        const style = isObj(el.style) ? el.style : {};
        if (style.code === true) html = `<code>${html}</code>`;
        if (style.bold === true) html = `<strong>${html}</strong>`;
        if (style.italic === true) html = `<em>${html}</em>`;
        if (style.strike === true) html = `<del>${html}</del>`;
        return html;
      }
      case 'link': {
        const href = safeUrl(str(el.url));
        const label = escapeHtml(str(el.text) ?? str(el.url) ?? '');
        return href ? link(href, label, '', ctx) : label;
      }
      case 'emoji':
        return escapeHtml(emojiFor(str(el.name) ?? ''));
      case 'user':
        return `<span class="bk-mention">@${escapeHtml(ctx.userName?.(str(el.user_id) ?? '') ?? str(el.user_id) ?? '')}</span>`;
      case 'channel':
        return `<span class="bk-mention">#${escapeHtml(ctx.channelName?.(str(el.channel_id) ?? '') ?? str(el.channel_id) ?? '')}</span>`;
      case 'rich_text_section':
        return list(el.elements).map(render).join('');
      case 'rich_text_preformatted':
        return `<pre class="bk-pre">${list(el.elements).map(render).join('')}</pre>`;
      case 'rich_text_quote':
        return `<blockquote>${list(el.elements).map(render).join('')}</blockquote>`;
      case 'rich_text_list':
        return `<ul>${list(el.elements)
          .map((item) => `<li>${render(item)}</li>`)
          .join('')}</ul>`;
      default:
        return '';
    }
  };
  return `<div class="bk-rich-text">${list(block.elements).map(render).join('')}</div>`;
}

/** One block → HTML. */
function blockToHtml(block: unknown, index: number, ctx: RenderContext = {}): string {
  if (!isObj(block)) return '';
  const blockId = blockIdOf(block, index);
  switch (block.type) {
    case 'header':
      return `<div class="bk-header">${textToHtml(block.text, ctx)}</div>`;
    case 'divider':
      return '<hr class="bk-divider">';
    case 'section': {
      const text = block.text !== undefined ? `<div class="bk-section-text">${textToHtml(block.text, ctx)}</div>` : '';
      const fields = list(block.fields);
      const grid =
        fields.length > 0
          ? `<div class="bk-fields">${fields.map((f) => `<div class="bk-field">${textToHtml(f, ctx)}</div>`).join('')}</div>`
          : '';
      const accessory =
        block.accessory !== undefined
          ? `<div class="bk-accessory">${elementToHtml(block.accessory, blockId, ctx)}</div>`
          : '';
      return `<div class="bk-section"><div class="bk-section-body">${text}${grid}</div>${accessory}</div>`;
    }
    case 'context': {
      const items = list(block.elements).map((el) => {
        if (isObj(el) && el.type === 'image') return imageLink(el, 'bk-context-image');
        return `<span class="bk-context-item">${textToHtml(el, ctx)}</span>`;
      });
      return `<div class="bk-context">${items.join('')}</div>`;
    }
    case 'actions':
      return `<div class="bk-actions">${list(block.elements)
        .map((el) => elementToHtml(el, blockId, ctx))
        .join('')}</div>`;
    case 'image':
      return `<div class="bk-image">${imageLink(block, 'bk-image-link')}</div>`;
    case 'input': {
      const optional = block.optional === true;
      const label = `<label class="bk-label">${textToHtml(block.label, ctx)}${optional ? ' <span class="bk-optional">(optional)</span>' : ''}</label>`;
      const hint = block.hint !== undefined ? `<div class="bk-hint">${textToHtml(block.hint, ctx)}</div>` : '';
      return (
        `<div class="bk-input"${attrs({ 'data-block-id': blockId, 'data-optional': optional ? 'true' : undefined })}>` +
        `${label}${elementToHtml(block.element, blockId, ctx, true, textToPlain(block.label))}${hint}<div class="bk-error" role="alert"></div></div>`
      );
    }
    case 'rich_text':
      return richTextToHtml(block, ctx);
    case 'file':
      return `<div class="bk-context">📎 file ${escapeHtml(str(block.external_id) ?? '')}</div>`;
    case 'data_visualization':
      return chartToHtml(block);
    case 'data_table':
      return dataTableToHtml(block);
    case 'video': {
      const href = safeUrl(str(block.video_url));
      const label = `🎬 ${escapeHtml(textToPlain(block.title) || 'video')}`;
      return `<div class="bk-image">${href ? link(href, label, '', ctx) : label}</div>`;
    }
    default:
      return `<div class="bk-unsupported">[unsupported block: ${escapeHtml(str(block.type) ?? 'unknown')}]</div>`;
  }
}

/** A list of blocks → HTML. */
export function blocksToHtml(blocks: unknown, ctx: RenderContext = {}): string {
  return list(blocks)
    .map((b, i) => blockToHtml(b, i, ctx))
    .join('');
}

/** A message body: its blocks when it has any, else its text as mrkdwn; legacy attachments after. */
export function messageToHtml(
  message: { text?: unknown; blocks?: unknown; attachments?: unknown },
  ctx: RenderContext = {},
): string {
  const blocks = list(message.blocks);
  const body =
    blocks.length > 0
      ? blocksToHtml(blocks, ctx)
      : `<div class="bk-text-body">${mrkdwnToHtml(str(message.text) ?? '', ctx)}</div>`;
  const attachments = list(message.attachments)
    .filter(isObj)
    .map((a) => {
      const inner =
        list(a.blocks).length > 0
          ? blocksToHtml(a.blocks, ctx)
          : mrkdwnToHtml(str(a.text) ?? str(a.fallback) ?? '', ctx);
      return `<div class="bk-attachment">${inner}</div>`;
    })
    .join('');
  return body + attachments;
}

/** A modal (or home tab) view → its title, buttons and body HTML. */
export function viewToHtml(
  view: unknown,
  ctx: RenderContext = {},
): { title: string; submit?: string; close: string; body: string } {
  const v = isObj(view) ? view : {};
  return {
    title: textToHtml(v.title, ctx),
    ...(v.submit !== undefined ? { submit: textToHtml(v.submit, ctx) } : {}),
    close: v.close !== undefined ? textToHtml(v.close, ctx) : 'Cancel',
    body: blocksToHtml(v.blocks, ctx),
  };
}
