// @ts-check
/**
 * The Simulate panel: the platform switch (normal, slow, down, errors), the event, campaign and outcome pickers,
 * a burst of calls, the platform's lists, and a fired event's deliveries.
 */

/**
 * @typedef {import('./app.js').PageState['simulator']} Simulator
 * @typedef {import('./app.js').PageState['platform']} Platform
 * @typedef {import('./app.js').Simulation} Simulation
 * @typedef {import('./app.js').Burst} Burst
 * @typedef {import('./app.js').Outcome} Outcome
 * @typedef {(path: string, body: unknown) => Promise<Outcome>} Api
 */

import { byId, esc } from './dom.js';

/** @param {Simulator} sim */
export function renderSimulator(sim) {
  const trigger = byId('sim-trigger', HTMLSelectElement);
  const campaign = byId('sim-campaign', HTMLSelectElement);
  if (trigger.options.length === 0) {
    trigger.innerHTML = sim.triggers
      .map((t) => `<option value="${esc(t)}">${esc(TRIGGER_LABELS[t] ?? t)}</option>`)
      .join('');
    trigger.value = 'message_received';
  }
  const outcome = byId('sim-outcome', HTMLSelectElement);
  if (outcome.options.length === 0)
    outcome.innerHTML = sim.outcomes.map((o) => `<option value="${esc(o.name)}">${esc(o.label)}</option>`).join('');
  const burst = byId('sim-burst-campaign', HTMLSelectElement);
  const calling = sim.campaigns.filter((c) => c.type === 'outbound' || c.type === 'inbound');
  if (burst.options.length !== calling.length)
    burst.innerHTML = calling.map((c) => `<option value="${esc(c.id)}">${esc(c.name)}</option>`).join('');
  if (campaign.options.length !== sim.campaigns.length) {
    campaign.innerHTML = sim.campaigns
      .map((c) => `<option value="${esc(c.id)}">${esc(c.name)} (${esc(c.id)}, ${esc(c.type)})</option>`)
      .join('');
    const chat = sim.campaigns.find((c) => c.type === 'messages');
    if (chat) campaign.value = chat.id;
    showFieldsFor(trigger.value);
  }
  const list = (/** @type {string} */ id, /** @type {string[]} */ items, /** @type {string} */ none) => {
    const html = items.length ? items.map((i) => `<li>${i}</li>`).join('') : `<li class="muted">${esc(none)}</li>`;
    const el = byId(id, HTMLUListElement);
    if (el.dataset.html !== html) {
      el.innerHTML = html;
      el.dataset.html = html;
    }
  };
  list(
    'sim-sessions',
    sim.sessions.map(
      (s) =>
        `<code>${esc(s.id)}</code> · ${esc(s.campaignId)} · ${s.handoff ? '<strong>in human handoff</strong>' : 'bot / closed'}`,
    ),
    'none',
  );
  list(
    'sim-human',
    sim.humanResponses.map(
      (r) =>
        `<code>${esc(r.sessionId)}</code>${r.agentId ? ` as ${esc(r.agentId)}` : ''}: ${esc(r.message)}` +
        (r.attachments ?? [])
          .map((a, i) => ` <a href="${esc(a)}" target="_blank" rel="noopener">📎 file ${i + 1}</a>`)
          .join(''),
    ),
    'nothing yet — reply in a handoff thread',
  );
  list(
    'sim-subscriptions',
    sim.subscriptions.map((s) => `${esc(s.triggerName)} · campaign <code>${esc(s.campaignId)}</code>`),
    'none — run /campaign subscribe',
  );
  list(
    'sim-requests',
    sim.requests
      .slice()
      .reverse()
      .map((r) => esc(r)),
    'none',
  );
  byId('sim-key', HTMLElement).textContent = sim.apiKey;
}

/** @type {Record<string, string>} */
const TRIGGER_LABELS = {
  call_started: '📞 Call started',
  call_completed: '✅ Call completed',
  message_received: '💬 Customer message (message_received)',
  message_sent: '🤖 Agent message (message_sent)',
  message_session_completed: '🏁 Chat session completed',
};

/** What each event's text box is for; events without one hide it. @type {Record<string, string>} */
const TEXT_CAPTIONS = {
  call_completed: 'Call summary',
  message_received: 'Customer message',
  message_sent: 'Agent message',
};

/** Each event's own text, kept while another event is picked: a customer's message never becomes a call's summary. */
/** @type {Record<string, string>} */
const textOf = {};
let shownTrigger = '';

/**
 * Shows the fields of `trigger`: its own text (kept from the last time it was picked) and, for a completed call,
 * how it ends. The campaign and the customer stay as chosen.
 * @param {string} trigger
 */
function showFieldsFor(trigger) {
  const text = byId('sim-text', HTMLTextAreaElement);
  if (shownTrigger) textOf[shownTrigger] = text.value;
  shownTrigger = trigger;
  text.value = textOf[trigger] ?? '';
  byId('sim-outcome-label', HTMLLabelElement).hidden = trigger !== 'call_completed';
  const caption = TEXT_CAPTIONS[trigger];
  byId('sim-text-label', HTMLLabelElement).hidden = caption === undefined;
  byId('sim-text-caption', HTMLSpanElement).textContent = caption ?? '';
}

/** @param {Simulation | undefined} result */
function showSimulation(result) {
  const box = byId('sim-result', HTMLDivElement);
  if (!result) {
    box.textContent = '';
    return;
  }
  const lines = result.deliveries.map(
    (d) =>
      `<div class="${d.status >= 200 && d.status < 300 ? 'ok' : 'bad'}">POST ${esc(d.hook)} → ${esc(d.status)} <span class="muted mono">${esc(d.body)}</span></div>`,
  );
  if (result.problem) lines.push(`<div class="bad">${esc(result.problem)}</div>`);
  const handOver = result.handOver;
  if (handOver && handOver.linked.length > 0)
    lines.push(
      `<div class="ok">🔗 Session <code>${esc(handOver.sessionId)}</code> handed over: the playground pressed ` +
        `<strong>Link session</strong> on the chat’s card in ${esc(handOver.linked.join(', '))} as ${esc(handOver.by)} — ` +
        'reply in its thread. (A real platform’s webhooks carry no session id: there an agent links it once per chat.)</div>',
    );
  if (handOver?.problem) lines.push(`<div class="bad">${esc(handOver.problem)}</div>`);
  else if (result.sessionId && !handOver)
    lines.push(`<div>Platform session <code>${esc(result.sessionId)}</code>, linked to the chat’s thread.</div>`);
  box.innerHTML = lines.join('');
}

/** What each position of the switch does to the bot's requests. @type {Record<import('./app.js').PlatformMode, string>} */
const MODE_NOTES = {
  normal: 'answers at once',
  slow: 'answers after {slow}',
  down: 'refuses connections',
  errors: 'answers 500 with a request id',
};

/** @param {Platform} platform */
export function renderPlatformSwitch(platform) {
  const box = byId('platform-switch', HTMLFieldSetElement);
  const slow = `${Math.round(platform.slowMs / 100) / 10} s`;
  if (!box.querySelector('input')) {
    box.insertAdjacentHTML(
      'beforeend',
      platform.modes
        .map(
          (m) =>
            `<label class="mode" title="${esc(MODE_NOTES[m].replace('{slow}', slow))}"><input type="radio" name="platform-mode" value="${esc(m)}"> ${esc(m)}</label>`,
        )
        .join(''),
    );
  }
  for (const input of box.querySelectorAll('input'))
    if (input instanceof HTMLInputElement) input.checked = input.value === platform.mode;
  const badge = byId('platform-badge', HTMLDivElement);
  badge.hidden = platform.mode === 'normal';
  badge.dataset.mode = platform.mode;
  badge.textContent = `⚠ Platform ${platform.mode}: ${MODE_NOTES[platform.mode].replace('{slow}', slow)}`;
}

/** @param {Burst | undefined} burst */
function showBurst(burst) {
  const box = byId('sim-result', HTMLDivElement);
  if (!burst) return;
  const count = (/** @type {Record<string, number>} */ tally) =>
    Object.entries(tally)
      .map(([k, n]) => `${esc(n)} × ${esc(k)}`)
      .join(', ');
  const lines = [
    `<div class="${burst.problem ? 'bad' : 'ok'}">${esc(burst.calls)} calls ended: ${count(burst.statuses)}</div>`,
  ];
  if (Object.keys(burst.answers).length > 0) lines.push(`<div>The bot answered ${count(burst.answers)}</div>`);
  if (burst.problem) lines.push(`<div class="bad">${esc(burst.problem)}</div>`);
  box.innerHTML = lines.join('');
}

/**
 * @param {Api} api
 */
export function wireSimulator(api) {
  byId('platform-switch', HTMLFieldSetElement).addEventListener('change', (event) => {
    const input = event.target;
    if (input instanceof HTMLInputElement && input.checked) void api('/playground/platform', { mode: input.value });
  });
  byId('sim-trigger', HTMLSelectElement).addEventListener('change', (event) => {
    if (event.target instanceof HTMLSelectElement) showFieldsFor(event.target.value);
  });
  byId('sim-digest', HTMLButtonElement).addEventListener(
    'click',
    () => void api('/playground/report', { digest: true }),
  );
  byId('sim-usage-set', HTMLButtonElement).addEventListener('click', () => {
    void api('/playground/report', { usagePercent: Number(byId('sim-usage', HTMLInputElement).value) });
  });
  byId('sim-burst', HTMLButtonElement).addEventListener('click', async (event) => {
    const button = event.currentTarget;
    if (!(button instanceof HTMLButtonElement)) return;
    button.disabled = true;
    try {
      const outcome = await api('/playground/burst', {
        campaignId: byId('sim-burst-campaign', HTMLSelectElement).value,
        count: 20,
      });
      showBurst(outcome.burst);
    } finally {
      button.disabled = false;
    }
  });
  byId('simulate-form', HTMLFormElement).addEventListener('submit', async (event) => {
    event.preventDefault();
    const fire = byId('sim-fire', HTMLButtonElement);
    fire.disabled = true;
    try {
      const trigger = byId('sim-trigger', HTMLSelectElement).value;
      const outcome = await api('/playground/simulate', {
        trigger,
        campaignId: byId('sim-campaign', HTMLSelectElement).value,
        customerName: byId('sim-name', HTMLInputElement).value,
        customerNumber: byId('sim-number', HTMLInputElement).value,
        ...(TEXT_CAPTIONS[trigger] ? { text: byId('sim-text', HTMLTextAreaElement).value } : {}),
        ...(trigger === 'call_completed' ? { outcome: byId('sim-outcome', HTMLSelectElement).value } : {}),
      });
      showSimulation(outcome.simulation);
    } finally {
      fire.disabled = false;
    }
  });
}
