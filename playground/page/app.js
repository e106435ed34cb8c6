// @ts-check
/**
 * The playground page's script (plain JS modules, type-checked by tsc with ./tsconfig.json; DOM helpers in dom.js,
 * the Simulate panel in simulator.js, file uploads in uploads.js).
 *
 * It polls GET /playground/state and draws what the bot did in the Slack stand-in; everything a person does
 * goes back through the small JSON API, which signs it like Slack and sends it to the bot's real routes.
 * Message and view bodies arrive as HTML the server built from Block Kit with every text escaped
 * (blockkit-html.ts); every other string from the server is put in the page as text (`esc` / textContent).
 */

/**
 * @typedef {{ id: string, name: string, size: number, type: string, audio: boolean }} PageFile
 * @typedef {{ ts: string, threadTs?: string, author: string, authorKind: 'bot' | 'user', html: string, files: PageFile[],
 *   reactions: { name: string, emoji: string, count: number }[], replyCount: number, ephemeral: boolean, edited: boolean }} PageMessage
 * @typedef {{ id: string, name: string, purpose: string, messages: PageMessage[], threads: Record<string, PageMessage[]> }} PageChannel
 * @typedef {{ id: string, title: string, submit?: string, close: string, body: string, depth: number, errors: Record<string, string> }} PageModal
 * @typedef {{ event: Record<string, unknown>, deliveries: { hook: string, status: number, body: string }[], problem?: string, sessionId?: string }} Simulation
 * @typedef {{
 *   version: string,
 *   workspace: { name: string, you: { id: string, name: string }, bot: { name: string } },
 *   channels: PageChannel[],
 *   modal: PageModal | null,
 *   home: { id: string, html: string } | null,
 *   shortcuts: { callbackId: string, name: string }[],
 *   simulator: {
 *     triggers: string[], campaigns: { id: string, name: string, type: string }[],
 *     sessions: { id: string, campaignId: string, handoff: boolean }[],
 *     subscriptions: { triggerName: string, campaignId: string }[],
 *     humanResponses: { sessionId: string, message: string, agentId?: string, attachments?: string[] }[],
 *     requests: string[], apiKey: string, last?: Simulation
 *   }
 * }} PageState
 * @typedef {{ ok: boolean, error?: string, errors?: Record<string, string>, simulation?: Simulation, file?: { id: string, name: string, size: number },
 *   options?: { text: string, value: string }[] }} Outcome
 */

import {
  byId,
  collectValues,
  esc,
  localizeDates,
  messageHtml,
  replaceScrolled,
  restoreValues,
  showFieldErrors,
  toast,
} from './dom.js';
import { pickCampaignFor, renderSimulator, showSimulation } from './simulator.js';
import { upload, uploadInto } from './uploads.js';

const POLL_MS = 400;

/** @type {{ state: PageState | null, version: string, channel: string, view: 'channel' | 'home', thread: { channel: string, ts: string } | null,
 *   tab: 'simulate' | 'thread', seen: Record<string, number>, modalKey: string, pendingFiles: { id: string, name: string }[],
 *   pendingReplyFiles: { id: string, name: string }[] }} */
const ui = {
  state: null,
  version: '',
  channel: 'C0GENERAL01',
  view: 'channel',
  thread: null,
  tab: 'simulate',
  seen: {},
  modalKey: '',
  pendingFiles: [],
  pendingReplyFiles: [],
};

// ------------------------------------------------------------------------------------------------ helpers

/**
 * POST to the playground API; shows failures as a toast and resolves with the outcome.
 * @param {string} path
 * @param {unknown} body
 * @returns {Promise<Outcome>}
 */
async function api(path, body) {
  try {
    const res = await fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-playground': '1' },
      body: JSON.stringify(body),
    });
    /** @type {Outcome} */
    const outcome = await res.json();
    if (!outcome.ok && outcome.error) toast(outcome.error, true);
    void poll();
    return outcome;
  } catch (err) {
    toast(`The playground did not answer: ${err instanceof Error ? err.message : String(err)}`, true);
    return { ok: false };
  }
}

// ------------------------------------------------------------------------------------------------ state

async function poll() {
  try {
    const res = await fetch(`/playground/state?since=${encodeURIComponent(ui.version)}`, {
      headers: { accept: 'application/json' },
    });
    /** @type {PageState | { version: string, unchanged: true }} */
    const next = await res.json();
    if ('unchanged' in next) return;
    ui.version = next.version;
    ui.state = next;
    render();
  } catch {
    // The bot restarted or is stopping; the next poll tries again.
  }
}

function currentChannel() {
  return ui.state?.channels.find((c) => c.id === ui.channel) ?? ui.state?.channels[0];
}

function render() {
  const state = ui.state;
  if (!state) return;
  byId('workspace-name', HTMLDivElement).textContent = state.workspace.name;
  byId('you-name', HTMLElement).textContent = state.workspace.you.name;
  renderChannelList(state);
  renderMain(state);
  renderThread(state);
  renderSimulator(state.simulator);
  renderModal(state.modal);
}

/** @param {PageState} state */
function renderChannelList(state) {
  const listEl = byId('channel-list', HTMLUListElement);
  listEl.innerHTML = state.channels
    .map((c) => {
      const count = c.messages.length + Object.values(c.threads).reduce((n, t) => n + t.length, 0);
      const active = ui.view === 'channel' && c.id === ui.channel;
      if (active) ui.seen[c.id] = count;
      const unread = !active && count > (ui.seen[c.id] ?? 0);
      return `<li><button type="button" class="channel-link${active ? ' active' : ''}${unread ? ' unread' : ''}" data-channel-id="${esc(c.id)}"># ${esc(c.name)}</button></li>`;
    })
    .join('');
  byId('home-link', HTMLButtonElement).classList.toggle('active', ui.view === 'home');
}

/** @param {PageState} state */
function renderMain(state) {
  const messages = byId('messages', HTMLDivElement);
  const home = byId('home', HTMLDivElement);
  const composer = byId('composer', HTMLFormElement);
  if (ui.view === 'home') {
    messages.hidden = true;
    composer.hidden = true;
    home.hidden = false;
    byId('channel-title', HTMLHeadingElement).textContent = '🏠 Campaign — Home';
    byId('channel-purpose', HTMLDivElement).textContent =
      'The app’s Home tab, published by the bot each time it is opened.';
    const html = state.home
      ? `<div data-view-id="${esc(state.home.id)}">${state.home.html}</div>`
      : '<div class="empty">Loading the Home tab…</div>';
    if (home.dataset.html !== html) {
      home.innerHTML = html;
      home.dataset.html = html;
      localizeDates(home);
    }
    return;
  }
  messages.hidden = false;
  composer.hidden = false;
  home.hidden = true;
  const channel = currentChannel();
  if (!channel) return;
  byId('channel-title', HTMLHeadingElement).textContent = `# ${channel.name}`;
  byId('channel-purpose', HTMLDivElement).textContent = channel.purpose;
  byId('composer-input', HTMLTextAreaElement).placeholder = `Message #${channel.name} — try /campaign help`;
  const html = channel.messages.length
    ? channel.messages.map((m) => messageHtml(m, channel.id, false)).join('')
    : `<div class="empty">Nothing in #${esc(channel.name)} yet. Type <code>/campaign help</code> below.</div>`;
  replaceScrolled(messages, html);
}

/** @param {PageState} state */
function renderThread(state) {
  byId('tab-simulate', HTMLButtonElement).setAttribute('aria-selected', String(ui.tab === 'simulate'));
  byId('tab-thread', HTMLButtonElement).setAttribute('aria-selected', String(ui.tab === 'thread'));
  byId('panel-simulate', HTMLElement).hidden = ui.tab !== 'simulate';
  byId('panel-thread', HTMLElement).hidden = ui.tab !== 'thread';
  const list = byId('thread-messages', HTMLDivElement);
  const form = byId('reply-form', HTMLFormElement);
  const empty = byId('thread-empty', HTMLParagraphElement);
  const thread = ui.thread;
  const channel = thread ? state.channels.find((c) => c.id === thread.channel) : undefined;
  const parent = thread && channel ? channel.messages.find((m) => m.ts === thread.ts) : undefined;
  if (!thread || !channel || !parent) {
    form.hidden = true;
    empty.hidden = false;
    replaceScrolled(list, '');
    byId('thread-channel', HTMLSpanElement).textContent = '';
    return;
  }
  form.hidden = false;
  empty.hidden = true;
  byId('thread-channel', HTMLSpanElement).textContent = `#${channel.name}`;
  const replies = channel.threads[thread.ts] ?? [];
  const html =
    messageHtml(parent, channel.id, true) +
    `<div class="thread-divider">${replies.length} ${replies.length === 1 ? 'reply' : 'replies'}</div>` +
    replies.map((m) => messageHtml(m, channel.id, true)).join('');
  replaceScrolled(list, html);
}

// ------------------------------------------------------------------------------------------------ modal

/** @param {PageModal | null} modal */
function renderModal(modal) {
  const backdrop = byId('modal', HTMLDivElement);
  if (!modal) {
    backdrop.hidden = true;
    ui.modalKey = '';
    return;
  }
  const key = `${modal.id}|${modal.title}|${modal.submit ?? ''}|${modal.body}`;
  const body = byId('modal-body', HTMLDivElement);
  if (key !== ui.modalKey) {
    const sameView = ui.modalKey.startsWith(`${modal.id}|`);
    const before = sameView ? collectValues(body) : {};
    byId('modal-title', HTMLHeadingElement).innerHTML = modal.title;
    body.innerHTML = modal.body;
    body.dataset.viewId = modal.id;
    localizeDates(body);
    if (sameView) restoreValues(body, before);
    const submit = byId('modal-submit', HTMLButtonElement);
    submit.hidden = modal.submit === undefined;
    submit.innerHTML = modal.submit ?? '';
    byId('modal-close', HTMLButtonElement).innerHTML = modal.close;
    ui.modalKey = key;
    backdrop.hidden = false;
    const first = body.querySelector('input:not([type=hidden]), textarea, select');
    if (!sameView && first instanceof HTMLElement) first.focus();
  }
  showFieldErrors(body, modal.errors);
}

/**
 * Typing into a menu with an external data source: Slack asks the app for options once `min_query_length`
 * characters are typed (the playground signs that request), and lists what the app answered.
 * @param {HTMLInputElement} input
 */
async function suggestOptions(input) {
  const list = document.getElementById(input.getAttribute('list') ?? '');
  if (!(list instanceof HTMLDataListElement)) return;
  if (input.value.length < Number(input.dataset.minQuery ?? '3')) return;
  const outcome = await api('/playground/options', {
    viewId: modalViewId(),
    blockId: input.dataset.blockId ?? '',
    actionId: input.dataset.actionId ?? '',
    value: input.value,
  });
  list.replaceChildren(
    ...(outcome.options ?? []).map((o) => {
      const option = document.createElement('option');
      option.value = o.value;
      option.label = o.text;
      return option;
    }),
  );
}

function modalViewId() {
  return byId('modal-body', HTMLDivElement).dataset.viewId ?? '';
}

async function submitModal() {
  const submit = byId('modal-submit', HTMLButtonElement);
  submit.disabled = true;
  try {
    const outcome = await api('/playground/view-submission', {
      viewId: modalViewId(),
      values: collectValues(byId('modal-body', HTMLDivElement)),
    });
    if (outcome.errors) showFieldErrors(byId('modal-body', HTMLDivElement), outcome.errors);
  } finally {
    submit.disabled = false;
  }
}

async function closeModal() {
  const viewId = modalViewId();
  if (!viewId) return;
  byId('modal', HTMLDivElement).hidden = true;
  ui.modalKey = '';
  await api('/playground/view-closed', { viewId });
}

// ------------------------------------------------------------------------------------------------ actions

/**
 * A button, link button, select or overflow menu was used in a message, the Home tab or a modal.
 * @param {HTMLElement} el
 * @param {string[] | undefined} selected
 */
async function fireAction(el, selected) {
  const confirmText = el.dataset.confirm;
  if (confirmText && !window.confirm(confirmText)) return;
  const actionId = el.dataset.actionId ?? '';
  const blockId = el.dataset.blockId;
  const value = el.dataset.value;
  const common = {
    actionId,
    ...(blockId ? { blockId } : {}),
    ...(value !== undefined ? { value } : {}),
    ...(selected ? { selected } : {}),
  };
  const viewHost = el.closest('[data-view-id]');
  if (viewHost instanceof HTMLElement) {
    await api('/playground/action', {
      container: 'view',
      viewId: viewHost.dataset.viewId,
      values: collectValues(viewHost),
      ...common,
    });
    return;
  }
  const msg = el.closest('.msg');
  if (!(msg instanceof HTMLElement)) return;
  await api('/playground/action', {
    container: 'message',
    channel: msg.dataset.channel,
    ts: msg.dataset.ts,
    ephemeral: msg.dataset.ephemeral === 'true',
    ...(msg.dataset.threadTs ? { threadTs: msg.dataset.threadTs } : {}),
    ...common,
  });
}

/**
 * @param {string} channel
 * @param {string} ts
 */
function openThread(channel, ts) {
  ui.thread = { channel, ts };
  ui.tab = 'thread';
  render();
  byId('reply-input', HTMLTextAreaElement).focus();
}

/**
 * @param {HTMLElement} anchor
 * @param {string} channel
 * @param {string} ts
 */
function showShortcutMenu(anchor, channel, ts) {
  const menu = byId('shortcut-menu', HTMLDivElement);
  const shortcuts = ui.state?.shortcuts ?? [];
  menu.innerHTML = shortcuts
    .map((s) => `<button type="button" data-shortcut="${esc(s.callbackId)}">${esc(s.name)}</button>`)
    .join('');
  menu.dataset.channel = channel;
  menu.dataset.ts = ts;
  const box = anchor.getBoundingClientRect();
  menu.style.top = `${Math.round(box.bottom + 4)}px`;
  menu.style.left = `${Math.round(Math.max(8, box.right - 260))}px`;
  menu.hidden = false;
}

/** @param {string} text */
async function send(text) {
  const trimmed = text.trim();
  if (trimmed === '' && ui.pendingFiles.length === 0) return;
  if (trimmed.startsWith('/')) {
    const [command = '', ...rest] = trimmed.split(/\s+/);
    if (command !== '/campaign') {
      toast(`${command} is not a command here — this workspace has /campaign.`, true);
      return;
    }
    await api('/playground/command', { channel: ui.channel, text: rest.join(' ') });
    return;
  }
  const files = ui.pendingFiles.map((f) => f.id);
  ui.pendingFiles = [];
  renderPendingFiles();
  await api('/playground/message', { channel: ui.channel, text, files });
}

function renderPendingFiles() {
  for (const [id, files] of /** @type {const} */ ([
    ['pending-files', ui.pendingFiles],
    ['pending-reply-files', ui.pendingReplyFiles],
  ])) {
    byId(id, HTMLDivElement).innerHTML = files
      .map((f) => `<span class="pending-file">📎 ${esc(f.name)}</span>`)
      .join('');
  }
}

/**
 * Files picked in an attach button, uploaded into the Slack stand-in and added to `into`.
 * @param {Event} event
 * @param {{ id: string, name: string }[]} into
 */
async function attach(event, into) {
  const input = event.target;
  if (!(input instanceof HTMLInputElement) || !input.files) return;
  for (const file of input.files) {
    const uploaded = await upload(file);
    if (uploaded) into.push(uploaded);
  }
  input.value = '';
  renderPendingFiles();
}

// ------------------------------------------------------------------------------------------------ wiring

function wire() {
  document.addEventListener('click', (event) => {
    const target = event.target instanceof Element ? event.target : null;
    if (!target) return;
    const menu = byId('shortcut-menu', HTMLDivElement);
    const shortcut = target.closest('[data-shortcut]');
    if (shortcut instanceof HTMLElement) {
      menu.hidden = true;
      void api('/playground/shortcut', {
        channel: menu.dataset.channel,
        ts: menu.dataset.ts,
        callbackId: shortcut.dataset.shortcut,
      });
      return;
    }
    if (!menu.hidden && !target.closest('#shortcut-menu')) menu.hidden = true;

    const channelLink = target.closest('[data-channel-id]');
    if (channelLink instanceof HTMLElement) {
      ui.view = 'channel';
      ui.channel = channelLink.dataset.channelId ?? ui.channel;
      render();
      return;
    }
    if (target.closest('#home-link')) {
      ui.view = 'home';
      render();
      void api('/playground/home', {});
      return;
    }
    const tryChip = target.closest('[data-try]');
    if (tryChip instanceof HTMLElement) {
      void send(tryChip.dataset.try ?? '');
      return;
    }
    const tab = target.closest('[data-tab]');
    if (tab instanceof HTMLElement) {
      ui.tab = tab.dataset.tab === 'thread' ? 'thread' : 'simulate';
      render();
      return;
    }
    const threadOpener = target.closest('[data-open-thread]');
    if (threadOpener instanceof HTMLElement) {
      const msg = threadOpener.closest('.msg');
      if (msg instanceof HTMLElement)
        openThread(msg.dataset.channel ?? ui.channel, threadOpener.dataset.openThread ?? '');
      return;
    }
    const more = target.closest('[data-shortcuts]');
    if (more instanceof HTMLElement) {
      const msg = more.closest('.msg');
      if (msg instanceof HTMLElement) showShortcutMenu(more, msg.dataset.channel ?? ui.channel, msg.dataset.ts ?? '');
      return;
    }
    const actionEl = target.closest('button[data-action-id], a[data-action-id]');
    if (actionEl instanceof HTMLElement && actionEl.dataset.input !== 'true') {
      // A link button opens its URL (the browser follows the link) and is also reported to the app, like Slack.
      if (actionEl instanceof HTMLButtonElement) event.preventDefault();
      void fireAction(actionEl, undefined);
    }
  });

  document.addEventListener('change', (event) => {
    const el = event.target;
    if (el instanceof HTMLSelectElement && el.dataset.actionId !== undefined && el.dataset.input !== 'true') {
      const chosen = [...el.selectedOptions].map((o) => o.value).filter((v) => v !== '');
      if (el.dataset.type === 'overflow') el.value = '';
      if (chosen.length > 0) void fireAction(el, chosen);
      return;
    }
    if (el instanceof HTMLInputElement && el.type === 'file' && el.dataset.type === 'file_input') void uploadInto(el);
  });

  byId('composer', HTMLFormElement).addEventListener('submit', (event) => {
    event.preventDefault();
    const input = byId('composer-input', HTMLTextAreaElement);
    const text = input.value;
    input.value = '';
    void send(text);
  });
  byId('composer-input', HTMLTextAreaElement).addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      byId('composer', HTMLFormElement).requestSubmit();
    }
  });
  byId('attach', HTMLInputElement).addEventListener('change', (event) => void attach(event, ui.pendingFiles));
  // A reply's files go to the customer as links (the Simulate panel shows what the platform received).
  byId('reply-attach', HTMLInputElement).addEventListener(
    'change',
    (event) => void attach(event, ui.pendingReplyFiles),
  );

  byId('reply-form', HTMLFormElement).addEventListener('submit', (event) => {
    event.preventDefault();
    const input = byId('reply-input', HTMLTextAreaElement);
    const text = input.value;
    if (!ui.thread || (text.trim() === '' && ui.pendingReplyFiles.length === 0)) return;
    input.value = '';
    const files = ui.pendingReplyFiles.map((f) => f.id);
    ui.pendingReplyFiles = [];
    renderPendingFiles();
    void api('/playground/reply', { channel: ui.thread.channel, threadTs: ui.thread.ts, text, files });
  });
  byId('reply-input', HTMLTextAreaElement).addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      byId('reply-form', HTMLFormElement).requestSubmit();
    }
  });
  byId('thread-close', HTMLButtonElement).addEventListener('click', () => {
    ui.thread = null;
    ui.tab = 'simulate';
    render();
  });

  byId('modal-form', HTMLFormElement).addEventListener('submit', (event) => {
    event.preventDefault();
    void submitModal();
  });
  byId('modal-close', HTMLButtonElement).addEventListener('click', () => void closeModal());
  for (const kind of ['focusin', 'input']) {
    byId('modal-body', HTMLDivElement).addEventListener(kind, (event) => {
      const input = event.target;
      if (input instanceof HTMLInputElement && input.dataset.type === 'external_select') void suggestOptions(input);
    });
  }
  byId('modal-x', HTMLButtonElement).addEventListener('click', () => void closeModal());
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && !byId('modal', HTMLDivElement).hidden) void closeModal();
  });

  byId('sim-trigger', HTMLSelectElement).addEventListener('change', (event) => {
    if (event.target instanceof HTMLSelectElement) pickCampaignFor(ui.state?.simulator, event.target.value);
  });
  byId('sim-digest', HTMLButtonElement).addEventListener(
    'click',
    () => void api('/playground/report', { digest: true }),
  );
  byId('sim-usage-set', HTMLButtonElement).addEventListener('click', () => {
    void api('/playground/report', { usagePercent: Number(byId('sim-usage', HTMLInputElement).value) });
  });
  byId('simulate-form', HTMLFormElement).addEventListener('submit', async (event) => {
    event.preventDefault();
    const fire = byId('sim-fire', HTMLButtonElement);
    fire.disabled = true;
    try {
      const outcome = await api('/playground/simulate', {
        trigger: byId('sim-trigger', HTMLSelectElement).value,
        campaignId: byId('sim-campaign', HTMLSelectElement).value,
        customerName: byId('sim-name', HTMLInputElement).value,
        customerNumber: byId('sim-number', HTMLInputElement).value,
        text: byId('sim-text', HTMLTextAreaElement).value,
      });
      showSimulation(outcome.simulation);
    } finally {
      fire.disabled = false;
    }
  });
}

wire();
void poll();
setInterval(() => void poll(), POLL_MS);
