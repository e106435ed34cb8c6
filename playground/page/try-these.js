// @ts-check
/**
 * The Try these panel: example commands built from the simulator's seed (a click puts one in the message box)
 * and the seeded campaigns, agents, phone numbers and templates (a click adds the id at the caret).
 */

/** @typedef {import('./app.js').TryThese} TryThese */

import { byId, esc } from './dom.js';

/**
 * @param {string} id
 * @param {string} [label]
 */
function idButton(id, label) {
  return `<button type="button" class="id-chip" data-insert="${esc(id)}" title="Add ${esc(id)} to the message">${esc(label ?? id)}</button>`;
}

/**
 * @param {string} id
 * @param {string} html
 */
function replace(id, html) {
  const el = byId(id, HTMLElement);
  if (el.dataset.html === html) return;
  el.innerHTML = html;
  el.dataset.html = html;
}

/**
 * The examples in groups by who may run them (the bot's own gates say), then routes into channels that a guest or
 * another organisation reads (each runs in its own channel).
 * @type {{ title: string, fits: (e: import('./app.js').TryExample) => boolean }[]}
 */
const GROUPS = [
  { title: 'Anyone', fits: (e) => !e.channel && e.who === 'anyone' },
  { title: 'Members — guests are refused customer data', fits: (e) => !e.channel && e.who === 'members' },
  { title: 'Admins', fits: (e) => !e.channel && e.who === 'admins' },
  { title: 'Guests and other organisations', fits: (e) => Boolean(e.channel) },
];

/**
 * @param {import('./app.js').TryExample} e
 * @param {Map<string, string>} channelNames
 */
function exampleHtml(e, channelNames) {
  const where = e.channel
    ? `<span class="who where" title="runs in this channel">in #${esc(channelNames.get(e.channel) ?? e.channel)}</span>`
    : '';
  const channel = e.channel ? ` data-fill-channel="${esc(e.channel)}"` : '';
  return `<button type="button" class="example" data-fill="${esc(e.command)}"${channel}><code>${esc(e.command)}</code>${where}<span class="example-note">${esc(e.note)}</span></button>`;
}

/**
 * @param {TryThese} tryThese
 * @param {{ id: string, name: string }[]} channels
 */
export function renderTryThese(tryThese, channels) {
  const names = new Map(channels.map((c) => [c.id, c.name]));
  replace(
    'try-examples',
    GROUPS.map(
      (g) =>
        `<h3>${esc(g.title)}</h3>` +
        tryThese.examples
          .filter(g.fits)
          .map((e) => exampleHtml(e, names))
          .join(''),
    ).join(''),
  );
  replace(
    'try-campaigns',
    tryThese.campaigns
      .map(
        (c) =>
          `<li>${idButton(c.id)} <strong>${esc(c.name)}</strong> <span class="muted">${esc(c.type)}</span>` +
          (c.agents.length
            ? `<div class="agents">agents: ${c.agents.map((a) => `${idButton(a.id)} <span class="muted">${esc(a.name)}</span>`).join(' · ')}</div>`
            : '') +
          '</li>',
      )
      .join(''),
  );
  replace(
    'try-numbers',
    tryThese.numbers
      .map(
        (n) =>
          `<li>${idButton(n.id)} ${esc(n.number)} <span class="muted">${n.campaignId ? `linked to ${esc(n.campaignId)}` : 'not linked'}</span></li>`,
      )
      .join(''),
  );
  replace(
    'try-templates',
    tryThese.templates.map((t) => `<li>${idButton(t.id)} <span class="muted">${esc(t.title)}</span></li>`).join(''),
  );
}
