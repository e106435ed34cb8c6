// @ts-check
/**
 * The Workflows panel: the app's Workflow Builder steps with their input fields, each run as a workflow runs it
 * (Slack sends the app `function_executed`), and the runs' endings as Slack received them — the outputs, or the
 * message Slackbot shows the person who ran the workflow.
 */

/**
 * @typedef {import('./app.js').PageState} PageState
 * @typedef {PageState['workflows']['steps'][number]} Step
 * @typedef {PageState['workflows']['runs'][number]} Run
 * @typedef {import('./app.js').Outcome} Outcome
 * @typedef {(path: string, body: unknown) => Promise<Outcome>} Api
 */

import { byId, esc } from './dom.js';

/** @param {Step['inputs'][number]} input */
function fieldHtml(input) {
  const label = `<span>${esc(input.title)}${input.required ? ' <span class="req" title="required">*</span>' : ''}</span>`;
  const hint = input.description ? `<span class="wf-hint">${esc(input.description)}</span>` : '';
  // Slack fills it with whoever uses the workflow (the person chosen at the top of the page): nobody can set it.
  if (input.kind === 'runner')
    return `<label>${label}<input value="Person who used this workflow" aria-label="${esc(input.title)}" disabled />${hint}</label>`;
  return `<label>${label}<input name="${esc(input.name)}" value="${esc(input.example)}" aria-label="${esc(input.title)}" />${hint}</label>`;
}

/** @param {Step} step */
function stepHtml(step) {
  return (
    `<form class="wf-step" data-callback-id="${esc(step.callbackId)}" aria-label="${esc(step.title)}">` +
    `<h4>${esc(step.title)} <code>${esc(step.callbackId)}</code></h4>` +
    (step.description ? `<p class="muted small">${esc(step.description)}</p>` : '') +
    step.inputs.map(fieldHtml).join('') +
    `<button type="submit" class="bk-button bk-primary">Run step</button></form>`
  );
}

const STATE_LABELS = { running: '⏳ running', completed: '✅ completed', failed: '❌ failed' };

/** @param {Run} run */
function runHtml(run) {
  const pairs = (/** @type {{ title: string, value: string }[]} */ list) =>
    list.map((p) => `<dt>${esc(p.title)}</dt><dd>${esc(p.value)}</dd>`).join('');
  const ending =
    run.state === 'completed'
      ? `<div class="wf-label">Outputs (functions.completeSuccess)</div><dl class="wf-outputs">${pairs(run.outputs ?? [])}</dl>`
      : run.state === 'failed'
        ? `<div class="wf-label">Slackbot tells @${esc(run.by)} (functions.completeError)</div><div class="wf-error">${esc(run.error ?? '')}</div>`
        : '';
  return (
    `<li class="wf-run" data-state="${esc(run.state)}"><strong>${esc(run.title)}</strong> · by @${esc(run.by)} · ` +
    `<span class="wf-state">${esc(STATE_LABELS[run.state])}</span>` +
    `<dl class="wf-inputs">${pairs(run.inputs)}</dl>${ending}</li>`
  );
}

/** @param {PageState['workflows']} workflows */
export function renderWorkflows(workflows) {
  const steps = byId('wf-steps', HTMLDivElement);
  // Drawn once: what the person typed into the fields stays while the page polls.
  const html = workflows.steps.map(stepHtml).join('');
  if (steps.dataset.html !== html) {
    steps.innerHTML = html;
    steps.dataset.html = html;
  }
  const runs = byId('wf-runs', HTMLUListElement);
  const list = workflows.runs.length
    ? workflows.runs.map(runHtml).join('')
    : '<li class="muted">No run yet — fill a step in and press Run step.</li>';
  if (runs.dataset.html !== list) {
    runs.innerHTML = list;
    runs.dataset.html = list;
  }
}

/** @param {Api} api */
export function wireWorkflows(api) {
  byId('wf-steps', HTMLDivElement).addEventListener('submit', (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement)) return;
    event.preventDefault();
    /** @type {Record<string, string>} */
    const inputs = {};
    for (const [name, value] of new FormData(form)) if (typeof value === 'string') inputs[name] = value;
    void api('/playground/workflow', { callbackId: form.dataset.callbackId, inputs });
  });
}
