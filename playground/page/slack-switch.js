// @ts-check
/**
 * The Slack switch, beside the platform's: how Slack treats the app (normal, rate-limited, down, failing,
 * answers lost), and per channel whether the bot is in it, it is archived or read-only. A badge over the
 * conversation says what is on, and what users would see.
 */

/**
 * @typedef {import('./app.js').PageState['slack']} Slack
 * @typedef {import('./app.js').Outcome} Outcome
 * @typedef {(path: string, body: unknown) => Promise<Outcome>} Api
 */

import { byId, esc } from './dom.js';

/** What each position does, and what people in Slack would notice. @type {Record<string, string>} */
const MODE_NOTES = {
  normal: 'answers as Slack does, within its usual limits',
  'rate-limited':
    'one post a second per channel, 20 a minute in the workspace: calls wait, a channel behind gets a roll-up',
  down: 'answers 503 to everything: the app’s posts wait and go out when Slack is back; Slack delivers nothing to the app',
  failing: 'answers ok:false service_unavailable: the app’s posts wait and go out when Slack is back',
  'answers-lost': 'a third of the posts are made but their answers lost: the app looks them up, nothing shows twice',
};

/** @type {Record<string, string>} */
const STATE_LABELS = {
  normal: 'normal',
  'bot-removed': 'bot removed',
  archived: 'archived',
  'read-only': 'read-only',
};

/** @param {Slack} slack */
export function renderSlackSwitch(slack) {
  const box = byId('slack-switch', HTMLFieldSetElement);
  if (!box.querySelector('input')) {
    box.insertAdjacentHTML(
      'beforeend',
      slack.modes
        .map(
          (m) =>
            `<label class="mode" title="${esc(MODE_NOTES[m] ?? '')}"><input type="radio" name="slack-mode" value="${esc(m)}"> ${esc(m)}</label>`,
        )
        .join(''),
    );
  }
  for (const input of box.querySelectorAll('input'))
    if (input instanceof HTMLInputElement) input.checked = input.value === slack.mode;
  const channels = byId('slack-channels', HTMLDivElement);
  const html = slack.channels
    .map(
      (c) =>
        `<label class="small"># ${esc(c.name)} <select data-slack-channel="${esc(c.id)}" aria-label="#${esc(c.name)} in Slack">${slack.states
          .map(
            (s) => `<option value="${esc(s)}"${s === c.state ? ' selected' : ''}>${esc(STATE_LABELS[s] ?? s)}</option>`,
          )
          .join('')}</select></label>`,
    )
    .join('');
  if (channels.dataset.html !== html) {
    channels.innerHTML = html;
    channels.dataset.html = html;
  }
  const odd = slack.channels.filter((c) => c.state !== 'normal');
  const badge = byId('slack-badge', HTMLDivElement);
  badge.hidden = slack.mode === 'normal' && odd.length === 0;
  badge.dataset.mode = slack.mode;
  const parts = slack.mode === 'normal' ? [] : [`Slack ${slack.mode}: ${MODE_NOTES[slack.mode] ?? ''}`];
  for (const c of odd) parts.push(`#${c.name} ${STATE_LABELS[c.state] ?? c.state}`);
  badge.textContent = `⚠ ${parts.join(' · ')}`;
}

/** @param {Api} api */
export function wireSlackSwitch(api) {
  byId('slack-switch', HTMLFieldSetElement).addEventListener('change', (event) => {
    const input = event.target;
    if (input instanceof HTMLInputElement && input.checked) void api('/playground/slack', { mode: input.value });
  });
  byId('slack-channels', HTMLDivElement).addEventListener('change', (event) => {
    const select = event.target;
    if (select instanceof HTMLSelectElement && select.dataset.slackChannel)
      void api('/playground/slack-channel', { channel: select.dataset.slackChannel, state: select.value });
  });
}
