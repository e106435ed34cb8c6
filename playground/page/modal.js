// @ts-check
/**
 * The open modal: drawn from the state (keeping what the person typed when the bot updates the same view), its
 * menus with an external data source, Submit and Close. Requests go through the page's `api` (app.js).
 */

/**
 * @typedef {import('./app.js').PageModal} PageModal
 * @typedef {import('./app.js').Outcome} Outcome
 * @typedef {(path: string, body: unknown) => Promise<Outcome>} Api
 */

import { byId, collectValues, localizeDates, restoreValues, showFieldErrors } from './dom.js';

/** The view drawn last (id, title, buttons, body): a new one replaces the form; the same one keeps its values. */
let shownKey = '';

/** After a restart nothing drawn before means anything. */
export function forgetModal() {
  shownKey = '';
}

/** @param {PageModal | null} modal */
export function renderModal(modal) {
  const backdrop = byId('modal', HTMLDivElement);
  if (!modal) {
    backdrop.hidden = true;
    shownKey = '';
    return;
  }
  const key = `${modal.id}|${modal.title}|${modal.submit ?? ''}|${modal.body}`;
  const body = byId('modal-body', HTMLDivElement);
  if (key !== shownKey) {
    const sameView = shownKey.startsWith(`${modal.id}|`);
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
    shownKey = key;
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
 * @param {Api} api
 */
export async function suggestOptions(input, api) {
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

/** @param {Api} api */
export async function submitModal(api) {
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

/** @param {Api} api */
export async function closeModal(api) {
  const viewId = modalViewId();
  if (!viewId) return;
  byId('modal', HTMLDivElement).hidden = true;
  shownKey = '';
  await api('/playground/view-closed', { viewId });
}
