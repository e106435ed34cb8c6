// @ts-check
/** The Simulate platform panel: its event and campaign pickers, the platform's lists, and a fired event's deliveries. */

/**
 * @typedef {import('./app.js').PageState['simulator']} Simulator
 * @typedef {import('./app.js').Simulation} Simulation
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
  if (campaign.options.length !== sim.campaigns.length) {
    campaign.innerHTML = sim.campaigns
      .map((c) => `<option value="${esc(c.id)}">${esc(c.name)} (${esc(c.id)}, ${esc(c.type)})</option>`)
      .join('');
    pickCampaignFor(sim, trigger.value);
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

/**
 * Picks a campaign that fits the event (calls need an outbound one, chat events a messages one) and names the text field.
 * @param {Simulator | undefined} sim
 * @param {string} trigger
 */
export function pickCampaignFor(sim, trigger) {
  if (!sim) return;
  const wanted = trigger.startsWith('call') ? 'outbound' : 'messages';
  const found = sim.campaigns.find((c) => c.type === wanted);
  if (found) byId('sim-campaign', HTMLSelectElement).value = found.id;
  byId('sim-text-caption', HTMLSpanElement).textContent =
    trigger === 'call_completed'
      ? 'Call summary'
      : trigger === 'message_received'
        ? 'Customer message'
        : trigger === 'message_sent'
          ? 'Agent message'
          : 'Text (not used by this event)';
}

/** @param {Simulation | undefined} result */
export function showSimulation(result) {
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
  if (result.sessionId)
    lines.push(
      `<div>Platform session: <code>${esc(result.sessionId)}</code> (use it in <strong>Link session</strong>)</div>`,
    );
  box.innerHTML = lines.join('');
}
