// @ts-check
/** Files going into the Slack stand-in: the composers' attachments (until sent) and a modal's upload field. */

/** @typedef {import('./app.js').Outcome} Outcome */

import { byId, esc, toast } from './dom.js';

/** @typedef {'message' | 'reply'} Composer */

/** Files attached in each composer and not sent yet. */
/** @type {Record<Composer, { id: string, name: string }[]>} */
const pending = { message: [], reply: [] };

/** @param {Composer} composer */
export function hasPending(composer) {
  return pending[composer].length > 0;
}

/**
 * The ids of the files attached in `composer`, which is empty again.
 * @param {Composer} composer
 */
export function takePending(composer) {
  const ids = pending[composer].map((f) => f.id);
  pending[composer] = [];
  renderPending();
  return ids;
}

/** Forgets every attachment not sent (the bot restarted: its files are gone). */
export function dropPending() {
  pending.message = [];
  pending.reply = [];
  renderPending();
}

function renderPending() {
  for (const [id, files] of /** @type {const} */ ([
    ['pending-files', pending.message],
    ['pending-reply-files', pending.reply],
  ])) {
    byId(id, HTMLDivElement).innerHTML = files
      .map((f) => `<span class="pending-file">📎 ${esc(f.name)}</span>`)
      .join('');
  }
}

/**
 * Files picked in an attach button, uploaded into the Slack stand-in and attached in `composer`.
 * @param {Event} event
 * @param {Composer} composer
 */
export async function attachPicked(event, composer) {
  const input = event.target;
  if (!(input instanceof HTMLInputElement) || !input.files) return;
  for (const file of input.files) {
    const uploaded = await upload(file);
    if (uploaded) pending[composer].push(uploaded);
  }
  input.value = '';
  renderPending();
}

/**
 * Uploads one file into the Slack stand-in.
 * @param {File} file
 * @returns {Promise<{ id: string, name: string } | undefined>}
 */
async function upload(file) {
  const q = new URLSearchParams({ name: file.name, type: file.type });
  try {
    const res = await fetch(`/playground/upload?${q}`, {
      method: 'POST',
      headers: { 'x-playground': '1' },
      body: file,
    });
    /** @type {Outcome} */
    const outcome = await res.json();
    if (!outcome.ok || !outcome.file) {
      toast(outcome.error ?? `Could not upload ${file.name}.`, true);
      return undefined;
    }
    return { id: outcome.file.id, name: outcome.file.name };
  } catch {
    toast(`Could not upload ${file.name}.`, true);
    return undefined;
  }
}

/**
 * A modal's upload field: each picked file goes into the Slack stand-in; the field keeps their ids.
 * @param {HTMLInputElement} input
 */
export async function uploadInto(input) {
  const files = [...(input.files ?? [])];
  const max = Number(input.dataset.maxFiles ?? '10');
  const listEl = input.parentElement?.querySelector('.bk-file-list');
  if (listEl) listEl.textContent = `Uploading ${files.length} file${files.length === 1 ? '' : 's'}…`;
  /** @type {{ id: string, name: string }[]} */
  const done = [];
  for (const file of files.slice(0, max)) {
    const uploaded = await upload(file);
    if (uploaded) done.push(uploaded);
  }
  input.dataset.fileIds = JSON.stringify(done.map((f) => f.id));
  if (listEl) listEl.textContent = done.length ? `Uploaded: ${done.map((f) => f.name).join(', ')}` : '';
  if (files.length > max) toast(`Slack takes at most ${max} files here; the first ${max} were kept.`, true);
}
