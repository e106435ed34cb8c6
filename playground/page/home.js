// @ts-check
/**
 * The app's Home tab as the person at the page sees it, and who is on shift: the sidebar's People list (a dot
 * for each agent on shift; a click becomes that person) and the "You are" box's shift button, which runs the
 * real `/campaign shift on|off` as that person.
 */

/**
 * @typedef {import('./app.js').PageState} PageState
 * @typedef {import('./app.js').PagePerson} PagePerson
 * @typedef {import('./app.js').Outcome} Outcome
 * @typedef {(path: string, body: unknown) => Promise<Outcome>} Api
 */

import { byId, esc, localizeDates } from './dom.js';

/** Who the Home tab was last opened for, with the roster it showed: either changing opens it again. */
let openedFor = '';

/** @param {PageState} state */
function homeKey(state) {
  const onShift = state.workspace.people.filter((p) => p.onShift).map((p) => p.id);
  return [state.workspace.you.id, ...onShift].join(',');
}

/**
 * Opens the Home tab for whoever the person is now: Slack sends the app `app_home_opened` each time it is opened.
 * @param {PageState | null} state
 * @param {Api} api
 */
export function openHome(state, api) {
  openedFor = state ? homeKey(state) : '';
  void api('/playground/home', {});
}

/**
 * Draws the Home tab the bot published for the person. Someone else at the page, or a roster that changed, is
 * the tab opened again — as that person would see it on opening it.
 * @param {PageState} state
 * @param {Api} api
 */
export function renderHome(state, api) {
  if (homeKey(state) !== openedFor) openHome(state, api);
  byId('channel-title', HTMLHeadingElement).textContent = '🏠 Campaign — Home';
  byId('channel-purpose', HTMLDivElement).textContent =
    `The app’s Home tab as @${state.workspace.you.name} sees it, published by the bot each time it is opened.`;
  const home = byId('home', HTMLDivElement);
  const html = state.home
    ? `<div data-view-id="${esc(state.home.id)}">${state.home.html}</div>`
    : '<div class="empty">Loading the Home tab…</div>';
  if (home.dataset.html !== html) {
    home.innerHTML = html;
    home.dataset.html = html;
    localizeDates(home);
  }
}

/**
 * The "You are" box (the switcher, the role, the shift line) and the sidebar's People (who is on shift).
 * @param {PageState['workspace']} workspace
 */
export function renderPeople(workspace) {
  const select = byId('you-select', HTMLSelectElement);
  const options = workspace.people
    .map((p) => `<option value="${esc(p.id)}">${esc(p.name)} (${esc(p.role)})</option>`)
    .join('');
  if (select.dataset.html !== options) {
    select.innerHTML = options;
    select.dataset.html = options;
  }
  if (document.activeElement !== select) select.value = workspace.you.id;
  byId('you-role', HTMLSpanElement).textContent = workspace.you.role;
  byId('you-about', HTMLDivElement).textContent = workspace.you.about;
  const list = byId('people-list', HTMLUListElement);
  const html = workspace.people
    .map(
      (p) =>
        `<li><button type="button" class="person-link${p.id === workspace.you.id ? ' active' : ''}" data-person-id="${esc(p.id)}" title="${esc(`Be ${p.realName}: ${p.about}`)}">` +
        `<span class="shift-dot${p.onShift ? ' on' : ''}" aria-hidden="true"></span>${esc(p.name)} <span class="muted">${esc(p.role)}</span>` +
        (p.onShift ? ' <span class="on-shift">on shift</span>' : '') +
        '</button></li>',
    )
    .join('');
  if (list.dataset.html !== html) {
    list.innerHTML = html;
    list.dataset.html = html;
  }
  const on = workspace.you.onShift;
  byId('shift-state', HTMLSpanElement).textContent = on ? '🟢 on shift' : '⚪ off shift';
  const toggle = byId('shift-toggle', HTMLButtonElement);
  toggle.textContent = on ? 'Go off shift' : 'Go on shift';
  toggle.dataset.shift = on ? 'off' : 'on';
}

/**
 * @param {Api} api
 * @param {() => string} channelNow the channel the shift command runs in (where its answer shows)
 */
export function wirePeople(api, channelNow) {
  byId('people-list', HTMLUListElement).addEventListener('click', (event) => {
    const person = event.target instanceof Element ? event.target.closest('[data-person-id]') : null;
    if (person instanceof HTMLElement) void api('/playground/you', { userId: person.dataset.personId });
  });
  byId('shift-toggle', HTMLButtonElement).addEventListener('click', (event) => {
    const button = event.currentTarget;
    if (!(button instanceof HTMLButtonElement)) return;
    void api('/playground/command', { channel: channelNow(), text: `shift ${button.dataset.shift ?? 'on'}` });
  });
}
