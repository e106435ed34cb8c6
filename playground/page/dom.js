// @ts-check
/** The page's DOM helpers, form values and message HTML: functions of their arguments and the document, no page state. */

/**
 * @template {HTMLElement} T
 * @param {string} id
 * @param {new () => T} type
 * @returns {T}
 */
export function byId(id, type) {
  const el = document.getElementById(id);
  if (!(el instanceof type)) throw new Error(`missing #${id}`);
  return el;
}

/** @param {unknown} text */
export function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** @param {string} ts */
function timeOf(ts) {
  return new Date(Number(ts.split('.')[0]) * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

/** @param {number} bytes */
function size(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * @param {string} text
 * @param {boolean} [error]
 */
export function toast(text, error = false) {
  const box = byId('toasts', HTMLDivElement);
  const el = document.createElement('div');
  el.className = `toast${error ? ' error' : ''}`;
  el.textContent = text;
  box.append(el);
  setTimeout(() => el.remove(), error ? 8000 : 4000);
}

/** Slack dates (`<!date^…>`) arrive with a UTC fallback; show them in the reader's time, as Slack does. */
/** @param {ParentNode} root */
export function localizeDates(root) {
  for (const el of root.querySelectorAll('time.bk-date')) {
    const when = new Date(el.getAttribute('datetime') ?? '');
    if (Number.isNaN(when.getTime())) continue;
    if (!el.getAttribute('title')) el.setAttribute('title', el.textContent ?? '');
    el.textContent = slackDateText(el.getAttribute('data-format') ?? '', when, new Date());
  }
}

const DAY_MS = 86_400_000;

/**
 * A date's format string with Slack's tokens filled in, in the reader's time zone and locale, as the date element's
 * reference words each token (https://docs.slack.dev/reference/block-kit/block-elements/date-element); the
 * text around the tokens stays, and Slack capitalises the first letter ("Today at 1:07 PM").
 * @param {string} format
 * @param {Date} when
 * @param {Date} now
 * @param {string} [locale] the reader's by default
 */
export function slackDateText(format, when, now, locale) {
  /** @param {Intl.DateTimeFormatOptions} o */
  const date = (o) => when.toLocaleDateString(locale, o);
  const ordinal = () => {
    const d = when.getDate();
    const suffix =
      d % 10 === 1 && d !== 11 ? 'st' : d % 10 === 2 && d !== 12 ? 'nd' : d % 10 === 3 && d !== 13 ? 'rd' : 'th';
    return `${date({ month: 'long' })} ${d}${suffix}`;
  };
  const dayOff = Math.round((startOfDay(when) - startOfDay(now)) / DAY_MS);
  /** @param {() => string} otherwise */
  const pretty = (otherwise) => ({ [-1]: 'yesterday', 0: 'today', 1: 'tomorrow' })[dayOff] ?? otherwise();
  const longDate = () => `${date({ weekday: 'long' })}, ${ordinal()}, ${when.getFullYear()}`;
  const fullDate = () => date({ month: 'long', day: 'numeric', year: 'numeric' });
  const shortDate = () => date({ month: 'short', day: 'numeric', year: 'numeric' });
  const pad = (/** @type {number} */ n) => String(n).padStart(2, '0');
  /** @type {Record<string, () => string>} */
  const tokens = {
    date_num: () => `${when.getFullYear()}-${pad(when.getMonth() + 1)}-${pad(when.getDate())}`,
    date_slash: () => `${pad(when.getDate())}/${pad(when.getMonth() + 1)}/${when.getFullYear()}`,
    date_long: longDate,
    date_long_full: fullDate,
    date_long_pretty: () => pretty(longDate),
    date: () => date({ month: 'long', day: 'numeric' }),
    date_pretty: () => pretty(() => date({ month: 'long', day: 'numeric' })),
    date_short: shortDate,
    date_short_pretty: () => pretty(shortDate),
    day_divider_pretty: () =>
      pretty(() =>
        when.getFullYear() === now.getFullYear() ? `${date({ weekday: 'long' })}, ${ordinal()}` : longDate(),
      ),
    time: () => when.toLocaleTimeString(locale, { hour: 'numeric', minute: '2-digit' }),
    time_secs: () => when.toLocaleTimeString(locale, { hour: 'numeric', minute: '2-digit', second: '2-digit' }),
    ago: () => ago(now.getTime() - when.getTime()),
  };
  const text = (format || '{date_short} {time}').replace(/\{([a-z_]+)\}/g, (token, name) => tokens[name]?.() ?? token);
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** @param {Date} d */
function startOfDay(d) {
  return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
}

/**
 * How long ago, in the whole units Slack's `{ago}` words it ("3 minutes ago", "4 hours ago", "2 days ago").
 * @param {number} ms
 */
function ago(ms) {
  const units = /** @type {const} */ ([
    ['year', 365 * DAY_MS],
    ['month', 30 * DAY_MS],
    ['day', DAY_MS],
    ['hour', 3_600_000],
    ['minute', 60_000],
  ]);
  const [unit, size] = units.find(([, size]) => Math.abs(ms) >= size) ?? ['', 0];
  if (!unit) return 'just now';
  const n = Math.floor(Math.abs(ms) / size);
  const span = `${n} ${unit}${n === 1 ? '' : 's'}`;
  return ms >= 0 ? `${span} ago` : `in ${span}`;
}

/**
 * @param {HTMLElement} body
 * @param {Record<string, string>} errors
 */
export function showFieldErrors(body, errors) {
  for (const block of body.querySelectorAll('.bk-input')) {
    if (!(block instanceof HTMLElement)) continue;
    const message = errors[block.dataset.blockId ?? ''] ?? '';
    const slot = block.querySelector('.bk-error');
    if (slot) slot.textContent = message;
    block.classList.toggle('invalid', message !== '');
  }
}

/**
 * The form's values by block id and action id: text, chosen option values, or uploaded file ids.
 * @param {ParentNode} root
 * @returns {Record<string, Record<string, string | string[] | null>>}
 */
export function collectValues(root) {
  /** @type {Record<string, Record<string, string | string[] | null>>} */
  const values = {};
  for (const el of root.querySelectorAll('[data-input="true"]')) {
    if (!(el instanceof HTMLElement)) continue;
    const blockId = el.dataset.blockId ?? '';
    const actionId = el.dataset.actionId ?? '';
    /** @type {string | string[] | null} */
    let value = null;
    switch (el.dataset.type) {
      case 'checkboxes':
        value = [...el.querySelectorAll('input:checked')].map((i) => (i instanceof HTMLInputElement ? i.value : ''));
        break;
      case 'radio_buttons': {
        const checked = el.querySelector('input:checked');
        value = checked instanceof HTMLInputElement ? checked.value : null;
        break;
      }
      case 'multi_static_select':
        value = el instanceof HTMLSelectElement ? [...el.selectedOptions].map((o) => o.value) : [];
        break;
      case 'file_input':
        value = /** @type {string[]} */ (JSON.parse(el.dataset.fileIds ?? '[]'));
        break;
      default:
        if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement)
          value = el.value === '' ? null : el.value;
    }
    (values[blockId] ??= {})[actionId] = value;
  }
  return values;
}

/**
 * After the bot updates an open view, Slack keeps what the person typed in fields that are still there.
 * @param {ParentNode} root
 * @param {Record<string, Record<string, string | string[] | null>>} values
 */
export function restoreValues(root, values) {
  for (const el of root.querySelectorAll('[data-input="true"]')) {
    if (!(el instanceof HTMLElement)) continue;
    const value = values[el.dataset.blockId ?? '']?.[el.dataset.actionId ?? ''];
    if (value === undefined || value === null) continue;
    if (el.dataset.type === 'checkboxes' || el.dataset.type === 'radio_buttons') {
      const chosen = new Set(Array.isArray(value) ? value : [value]);
      for (const i of el.querySelectorAll('input')) if (i instanceof HTMLInputElement) i.checked = chosen.has(i.value);
    } else if (el.dataset.type === 'file_input') {
      el.dataset.fileIds = JSON.stringify(value);
    } else if ((el instanceof HTMLInputElement && el.type !== 'file') || el instanceof HTMLTextAreaElement) {
      el.value = Array.isArray(value) ? (value[0] ?? '') : value;
    } else if (el instanceof HTMLSelectElement) {
      const chosen = new Set(Array.isArray(value) ? value : [value]);
      for (const o of el.options) o.selected = chosen.has(o.value);
    }
  }
}

/** An image shows as Slack shows it; other files as a link to download. */
const IMAGE_TYPES = new Set(['PNG', 'JPEG', 'GIF']);

/** @param {import('./app.js').PageFile} f */
function fileHtml(f) {
  const href = `/playground/files/${encodeURIComponent(f.id)}`;
  if (IMAGE_TYPES.has(f.type))
    return `<a class="file image" href="${href}"><img src="${href}" alt="${esc(f.name)}"></a>`;
  const player = f.audio ? `<audio class="player" controls preload="none" src="${href}"></audio>` : '';
  return `<a class="file" href="${href}">📎 ${esc(f.name)} <span class="muted">${esc(f.type)} · ${esc(size(f.size))}</span></a>${player}`;
}

/**
 * @param {import('./app.js').PageMessage} m
 * @param {string} channel
 * @param {boolean} inThread
 */
export function messageHtml(m, channel, inThread) {
  const files = m.files.length ? `<div class="files">${m.files.map((f) => fileHtml(f)).join('')}</div>` : '';
  const reactions = m.reactions.length
    ? `<div class="reactions">${m.reactions.map((r) => `<span class="reaction" title=":${esc(r.name)}:" data-reaction="${esc(r.name)}">${esc(r.emoji)} ${esc(r.count)}</span>`).join('')}</div>`
    : '';
  const replies =
    !inThread && m.replyCount > 0
      ? `<button type="button" class="replies" data-open-thread="${esc(m.ts)}">${esc(m.replyCount)} ${m.replyCount === 1 ? 'reply' : 'replies'}</button>`
      : '';
  const tools = m.ephemeral
    ? ''
    : `<div class="msg-tools">${inThread ? '' : `<button type="button" title="Reply in thread" data-open-thread="${esc(m.ts)}">💬</button>`}<button type="button" title="More actions" data-shortcuts="${esc(m.ts)}">⋯</button></div>`;
  return (
    `<div class="msg${m.ephemeral ? ' ephemeral' : ''}" data-channel="${esc(channel)}" data-ts="${esc(m.ts)}" data-ephemeral="${m.ephemeral}"${m.threadTs ? ` data-thread-ts="${esc(m.threadTs)}"` : ''}>` +
    `<div class="avatar ${m.authorKind}">${esc(m.author.slice(0, 1).toUpperCase())}</div>` +
    `<div class="msg-main"><div class="msg-head"><span class="author">${esc(m.author)}</span>${m.authorKind === 'bot' ? '<span class="app-badge">APP</span>' : ''}` +
    `<span class="msg-time">${esc(timeOf(m.ts))}</span>${m.edited ? '<span class="msg-time">(edited)</span>' : ''}${m.ephemeral ? '<span class="eph-label">Only visible to you</span>' : ''}</div>` +
    `<div class="msg-body">${m.html}</div>${files}${reactions}${replies}</div>${tools}</div>`
  );
}

/**
 * Replaces a list's content, keeping the reader at the bottom when they were there.
 * @param {HTMLElement} el
 * @param {string} html
 */
export function replaceScrolled(el, html) {
  if (el.dataset.html === html) return;
  const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < 40 || !el.dataset.html;
  el.innerHTML = html;
  el.dataset.html = html;
  localizeDates(el);
  if (atBottom) el.scrollTop = el.scrollHeight;
}
