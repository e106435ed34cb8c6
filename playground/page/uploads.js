// @ts-check
/** Files going into the Slack stand-in: the composer's attachments and a modal's upload field. */

/** @typedef {import('./app.js').Outcome} Outcome */

import { toast } from './dom.js';

/**
 * Uploads one file into the Slack stand-in.
 * @param {File} file
 * @returns {Promise<{ id: string, name: string } | undefined>}
 */
export async function upload(file) {
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
