// @ts-check
/**
 * The playground page's script (plain JS modules, type-checked by tsc with ./tsconfig.json; DOM helpers in dom.js,
 * the modal in modal.js, the Try these panel in try-these.js, `@` completion in mentions.js, the Simulate panel
 * and platform switch in simulator.js, file uploads in uploads.js, the audio player in links.js, the restart
 * banner in connection.js, the Home tab and who is on shift in home.js, the Workflows panel in workflows.js).
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
 * @typedef {{ id: string, name: string, dm: boolean, purpose: string, audience: string, messages: PageMessage[],
 *   threads: Record<string, PageMessage[]> }} PageChannel
 * @typedef {{ id: string, title: string, submit?: string, close: string, body: string, depth: number, errors: Record<string, string> }} PageModal
 * @typedef {{ event: Record<string, unknown>, deliveries: { hook: string, status: number, body: string }[], problem?: string, sessionId?: string,
 *   handOver?: { sessionId: string, by: string, linked: string[], problem?: string } }} Simulation
 * @typedef {{ calls: number, answers: Record<string, number>, statuses: Record<string, number>, problem?: string }} Burst
 * @typedef {{ id: string, name: string, realName: string, role: 'admin' | 'member' | 'guest', about: string, onShift: boolean }} PagePerson
 * @typedef {import('./mentions.js').PageUserGroup} PageUserGroup
 * @typedef {{ command: string, note: string, who: 'anyone' | 'members' | 'admins', mentions?: string[], channel?: string }} TryExample
 * @typedef {{ callbackId: string, title: string, description: string,
 *   inputs: { name: string, title: string, description: string, kind: 'text' | 'runner', required: boolean, example: string }[] }} WorkflowStep
 * @typedef {{ id: string, title: string, by: string, inputs: { title: string, value: string }[], state: 'running' | 'completed' | 'failed',
 *   outputs?: { title: string, value: string }[], error?: string }} WorkflowRun
 * @typedef {{ examples: TryExample[],
 *   campaigns: { id: string, name: string, type: string, agents: { id: string, name: string }[] }[],
 *   numbers: { id: string, number: string, campaignId: string | null }[], templates: { id: string, title: string }[] }} TryThese
 * @typedef {'normal' | 'slow' | 'down' | 'errors'} PlatformMode
 * @typedef {{
 *   version: string,
 *   instance: string,
 *   workspace: { name: string, you: PagePerson, people: PagePerson[], userGroups: PageUserGroup[], bot: { name: string } },
 *   channels: PageChannel[],
 *   modal: PageModal | null,
 *   home: { id: string, html: string } | null,
 *   shortcuts: { callbackId: string, name: string }[],
 *   tryThese: TryThese,
 *   workflows: { steps: WorkflowStep[], runs: WorkflowRun[] },
 *   platform: { mode: PlatformMode, modes: PlatformMode[], slowMs: number },
 *   slack: { mode: string, modes: string[], states: string[], channels: { id: string, name: string, state: string }[] },
 *   simulator: {
 *     triggers: string[], outcomes: { name: string, label: string }[], campaigns: { id: string, name: string, type: string }[],
 *     sessions: { id: string, campaignId: string, handoff: boolean }[],
 *     subscriptions: { triggerName: string, campaignId: string }[],
 *     humanResponses: { sessionId: string, message: string, agentId?: string, attachments?: string[] }[],
 *     requests: string[], apiKey: string, last?: Simulation
 *   }
 * }} PageState
 * @typedef {{ ok: boolean, error?: string, errors?: Record<string, string>, simulation?: Simulation, burst?: Burst, file?: { id: string, name: string, size: number },
 *   options?: { text: string, value: string }[] }} Outcome
 */

import { noteAnswer, noteLost, wireConnection } from './connection.js';
import { byId, collectValues, esc, messageHtml, replaceScrolled, toast } from './dom.js';
import { openHome, renderHome, renderPeople, wirePeople } from './home.js';
import { playAudio, wirePlayer } from './links.js';
import { attachMentions, fillWithMentions, takeMentions } from './mentions.js';
import { closeModal, forgetModal, renderModal, submitModal, suggestOptions } from './modal.js';
import { renderPlatformSwitch, renderSimulator, wireSimulator } from './simulator.js';
import { renderSlackSwitch, wireSlackSwitch } from './slack-switch.js';
import { renderTryThese } from './try-these.js';
import { attachPicked, dropPending, hasPending, takePending, uploadInto } from './uploads.js';
import { renderWorkflows, wireWorkflows } from './workflows.js';

const POLL_MS = 400;
/** While the bot does not answer, polls back off to this (each failed poll is a line in the browser's console). */
const LOST_POLL_MAX_MS = 8000;
/**
 * When this page was loaded (Slack ts seconds): ephemeral messages are gone on reload in Slack, so the page
 * shows only those that arrived since.
 */
const LOADED_AT = Date.now() / 1000;

/** @typedef {'try' | 'simulate' | 'workflows'} Tab */
/** @type {Tab[]} */
const TABS = ['try', 'simulate', 'workflows'];

/** @type {{ state: PageState | null, version: string, channel: string, view: 'channel' | 'home', thread: { channel: string, ts: string } | null,
 *   tab: Tab, seen: Record<string, number> }} */
const ui = {
  state: null,
  version: '',
  channel: 'C0GENERAL01',
  view: 'channel',
  thread: null,
  tab: 'try',
  seen: {},
};

/** After the bot restarted: what the page pointed at (threads, files, a modal) belongs to the run that is gone. */
function startOver() {
  ui.thread = null;
  ui.seen = {};
  dropPending();
  forgetModal();
}

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

/** @returns {Promise<boolean>} whether the bot answered */
async function poll() {
  /** @type {PageState | { version: string, instance: string, unchanged: true }} */
  let next;
  try {
    const res = await fetch(`/playground/state?since=${encodeURIComponent(ui.version)}`, {
      headers: { accept: 'application/json' },
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    next = await res.json();
  } catch {
    // The bot is restarting or stopping: say so, and the next poll tries again.
    noteLost();
    return false;
  }
  if (noteAnswer(next.instance)) startOver();
  if ('unchanged' in next) return true;
  ui.version = next.version;
  ui.state = withoutOldEphemerals(next);
  render();
  return true;
}

/**
 * Ephemeral messages from before this page was loaded dropped, as Slack drops them on reload.
 * @param {PageState} state
 */
function withoutOldEphemerals(state) {
  /** @param {PageMessage} m */
  const keep = (m) => !m.ephemeral || Number(m.ts) >= LOADED_AT;
  for (const c of state.channels) {
    c.messages = c.messages.filter(keep);
    for (const ts of Object.keys(c.threads)) c.threads[ts] = (c.threads[ts] ?? []).filter(keep);
  }
  return state;
}

/** Polls on, every POLL_MS while the bot answers; backing off, doubling up to LOST_POLL_MAX_MS, while it does not. */
async function pollLoop(delay = POLL_MS) {
  const answered = await poll();
  const next = answered ? POLL_MS : Math.min(delay * 2, LOST_POLL_MAX_MS);
  setTimeout(() => void pollLoop(next), next);
}

function currentChannel() {
  return ui.state?.channels.find((c) => c.id === ui.channel) ?? ui.state?.channels[0];
}

function render() {
  const state = ui.state;
  if (!state) return;
  byId('workspace-name', HTMLDivElement).textContent = state.workspace.name;
  renderPeople(state.workspace);
  renderChannelList(state);
  renderMain(state);
  renderThread(state);
  renderTryThese(state.tryThese, state.channels);
  renderPlatformSwitch(state.platform);
  renderSlackSwitch(state.slack);
  renderSimulator(state.simulator);
  renderWorkflows(state.workflows);
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
      return `<li><button type="button" class="channel-link${active ? ' active' : ''}${unread ? ' unread' : ''}" data-channel-id="${esc(c.id)}">${c.dm ? '@' : '#'} ${esc(c.name)}</button></li>`;
    })
    .join('');
  byId('home-link', HTMLButtonElement).classList.toggle('active', ui.view === 'home');
}

/** @param {PageState} state */
function renderMain(state) {
  const messages = byId('messages', HTMLDivElement);
  const home = byId('home', HTMLDivElement);
  const composer = byId('composer', HTMLFormElement);
  const audience = byId('channel-audience', HTMLDivElement);
  if (ui.view === 'home') {
    messages.hidden = true;
    composer.hidden = true;
    home.hidden = false;
    audience.hidden = true;
    renderHome(state, api);
    return;
  }
  messages.hidden = false;
  home.hidden = true;
  const channel = currentChannel();
  if (!channel) return;
  // The app's direct messages are read here; commands go in a channel.
  composer.hidden = channel.dm;
  byId('channel-title', HTMLHeadingElement).textContent = `${channel.dm ? '@' : '#'} ${channel.name}`;
  byId('channel-purpose', HTMLDivElement).textContent = channel.purpose;
  audience.textContent = channel.audience;
  audience.hidden = channel.audience === '';
  byId('composer-input', HTMLTextAreaElement).placeholder = `Message #${channel.name} — try /campaign help`;
  const html = channel.messages.length
    ? channel.messages.map((m) => messageHtml(m, channel.id, false)).join('')
    : `<div class="empty">Nothing in #${esc(channel.name)} yet. Type <code>/campaign help</code> below.</div>`;
  replaceScrolled(messages, html);
}

/**
 * The side panel's tabs, and the thread pane beside the channel while a thread is open (as in Slack).
 * @param {PageState} state
 */
function renderThread(state) {
  for (const tab of TABS) {
    byId(`tab-${tab}`, HTMLButtonElement).setAttribute('aria-selected', String(ui.tab === tab));
    byId(`panel-${tab}`, HTMLElement).hidden = ui.tab !== tab;
  }
  const list = byId('thread-messages', HTMLDivElement);
  const pane = byId('panel-thread', HTMLElement);
  const thread = ui.thread;
  const channel = thread ? state.channels.find((c) => c.id === thread.channel) : undefined;
  const parent = thread && channel ? channel.messages.find((m) => m.ts === thread.ts) : undefined;
  const open = Boolean(thread && channel && parent);
  pane.hidden = !open;
  byId('app', HTMLDivElement).classList.toggle('with-thread', open);
  if (!thread || !channel || !parent) {
    replaceScrolled(list, '');
    byId('thread-channel', HTMLSpanElement).textContent = '';
    return;
  }
  byId('thread-channel', HTMLSpanElement).textContent = `#${channel.name}`;
  const replies = channel.threads[thread.ts] ?? [];
  // As Slack counts them: messages only visible to you are not replies of the thread.
  const count = replies.filter((m) => !m.ephemeral).length;
  const html =
    messageHtml(parent, channel.id, true) +
    `<div class="thread-divider">${count} ${count === 1 ? 'reply' : 'replies'}</div>` +
    replies.map((m) => messageHtml(m, channel.id, true)).join('');
  replaceScrolled(list, html);
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
  render();
  byId('reply-input', HTMLTextAreaElement).focus();
}

/**
 * A permalink the bot gave (e.g. "open thread" in `/campaign handoffs`): the channel, with the thread beside it.
 * @param {string} channel
 * @param {string} ts
 */
function gotoThread(channel, ts) {
  const found = ui.state?.channels.find((c) => c.id === channel);
  if (!found?.messages.some((m) => m.ts === ts)) {
    toast('That message is not in this playground (any more).', true);
    return;
  }
  ui.view = 'channel';
  ui.channel = channel;
  openThread(channel, ts);
}

/**
 * A command from the Try these panel goes into the message box (with its mentions chosen), ready to send — in
 * the example's own channel when it names one.
 * @param {string} text
 * @param {string | undefined} channel
 */
function fillComposer(text, channel) {
  if (ui.view === 'home' || (channel && channel !== ui.channel)) {
    ui.view = 'channel';
    if (channel) ui.channel = channel;
    render();
  }
  const box = byId('composer-input', HTMLTextAreaElement);
  fillWithMentions(box, text, ui.state?.workspace.people ?? []);
  box.focus();
  box.setSelectionRange(box.value.length, box.value.length);
}

/**
 * An id from the Try these panel goes in at the caret.
 * @param {string} id
 */
function insertIntoComposer(id) {
  const box = byId('composer-input', HTMLTextAreaElement);
  const at = box.selectionStart;
  const before = box.value.slice(0, at);
  const pad = before === '' || before.endsWith(' ') ? '' : ' ';
  box.value = `${before}${pad}${id} ${box.value.slice(box.selectionEnd)}`;
  box.focus();
  const caret = before.length + pad.length + id.length + 1;
  box.setSelectionRange(caret, caret);
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

/** The workspace's user groups. */
function groups() {
  return ui.state?.workspace.userGroups ?? [];
}

/**
 * @param {string} typed
 * @param {HTMLTextAreaElement} box where it was typed (its chosen `@name`s become mentions)
 */
async function send(typed, box) {
  const trimmed = typed.trim();
  if (trimmed === '' && !hasPending('message')) return;
  if (trimmed.startsWith('/')) {
    const [command = '', ...rest] = takeMentions(box, trimmed, true, groups()).split(/\s+/);
    if (command !== '/campaign') {
      toast(`${command} is not a command here — this workspace has /campaign.`, true);
      return;
    }
    await api('/playground/command', { channel: ui.channel, text: rest.join(' ') });
    return;
  }
  const text = takeMentions(box, typed, false, groups());
  const files = takePending('message');
  await api('/playground/message', { channel: ui.channel, text, files });
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
      openHome(ui.state, api);
      render();
      return;
    }
    const example = target.closest('[data-fill]');
    if (example instanceof HTMLElement) {
      fillComposer(example.dataset.fill ?? '', example.dataset.fillChannel);
      return;
    }
    const id = target.closest('[data-insert]');
    if (id instanceof HTMLElement) {
      insertIntoComposer(id.dataset.insert ?? '');
      return;
    }
    const tab = target.closest('[data-tab]');
    if (tab instanceof HTMLElement) {
      ui.tab = TABS.find((t) => t === tab.dataset.tab) ?? 'try';
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
    // A link that stays on the page (a thread permalink, a recording, a voice preview); as a link button, it is
    // also reported to the app, like Slack does.
    const local = target.closest('[data-goto-thread], [data-audio-src]');
    if (local instanceof HTMLElement) {
      event.preventDefault();
      if (local.dataset.audioSrc) playAudio(local.dataset.audioSrc, local.dataset.audioTitle ?? 'audio');
      else gotoThread(local.dataset.gotoChannel ?? '', local.dataset.gotoThread ?? '');
      if (local.dataset.actionId !== undefined) void fireAction(local, undefined);
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

  byId('you-select', HTMLSelectElement).addEventListener('change', (event) => {
    if (event.target instanceof HTMLSelectElement) void api('/playground/you', { userId: event.target.value });
  });

  // Who `@` offers: the people, then the user groups (a group's handle is what is typed after `@`).
  const people = () => [
    ...(ui.state?.workspace.people ?? []),
    ...groups().map((g) => ({ id: g.id, name: g.handle, realName: g.name, role: 'user group' })),
  ];
  const composer = byId('composer-input', HTMLTextAreaElement);
  const replyBox = byId('reply-input', HTMLTextAreaElement);
  // Before the Enter-to-send handlers: Enter in the open list chooses a person (and prevents the send).
  attachMentions(composer, people);
  attachMentions(replyBox, people);

  byId('composer', HTMLFormElement).addEventListener('submit', (event) => {
    event.preventDefault();
    const text = composer.value;
    composer.value = '';
    void send(text, composer);
  });
  composer.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.defaultPrevented) {
      event.preventDefault();
      byId('composer', HTMLFormElement).requestSubmit();
    }
  });
  byId('attach', HTMLInputElement).addEventListener('change', (event) => void attachPicked(event, 'message'));
  // A reply's files go to the customer as links (the Simulate panel shows what the platform received).
  byId('reply-attach', HTMLInputElement).addEventListener('change', (event) => void attachPicked(event, 'reply'));

  byId('reply-form', HTMLFormElement).addEventListener('submit', (event) => {
    event.preventDefault();
    const typed = replyBox.value;
    if (!ui.thread || (typed.trim() === '' && !hasPending('reply'))) return;
    replyBox.value = '';
    const text = takeMentions(replyBox, typed, false, groups());
    const files = takePending('reply');
    void api('/playground/reply', { channel: ui.thread.channel, threadTs: ui.thread.ts, text, files });
  });
  replyBox.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.defaultPrevented) {
      event.preventDefault();
      byId('reply-form', HTMLFormElement).requestSubmit();
    }
  });
  byId('thread-close', HTMLButtonElement).addEventListener('click', () => {
    ui.thread = null;
    render();
  });

  byId('modal-form', HTMLFormElement).addEventListener('submit', (event) => {
    event.preventDefault();
    void submitModal(api);
  });
  byId('modal-close', HTMLButtonElement).addEventListener('click', () => void closeModal(api));
  for (const kind of ['focusin', 'input']) {
    byId('modal-body', HTMLDivElement).addEventListener(kind, (event) => {
      const input = event.target;
      if (input instanceof HTMLInputElement && input.dataset.type === 'external_select')
        void suggestOptions(input, api);
    });
  }
  byId('modal-x', HTMLButtonElement).addEventListener('click', () => void closeModal(api));
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && !byId('modal', HTMLDivElement).hidden) void closeModal(api);
  });

  wireSimulator(api);
  wireSlackSwitch(api);
  wireWorkflows(api);
  // The shift button's answer shows in the channel the person is in (#general from the Home tab: everyone is there).
  wirePeople(api, () => (ui.view === 'channel' && !currentChannel()?.dm ? ui.channel : 'C0GENERAL01'));
  wirePlayer();
  wireConnection();
}

wire();
void pollLoop();
