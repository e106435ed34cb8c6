// @ts-check
/**
 * Whether the page still talks to the same run of the bot. The playground's workspace lives in the bot's
 * process, so when the bot restarts (`npm run dev` after an edit, or a crash) everything it held is gone: the
 * page says so in a banner and starts over from the new run's state, instead of silently going blank. While
 * the bot does not answer at all, the banner says the page is waiting for it.
 */

import { byId } from './dom.js';

/** @type {{ instance: string, lost: boolean }} */
const seen = { instance: '', lost: false };

/** @param {string} text */
function show(text) {
  byId('restart-text', HTMLSpanElement).textContent = text;
  byId('restart-banner', HTMLDivElement).hidden = false;
  byId('restart-banner', HTMLDivElement).dataset.kind = seen.lost ? 'lost' : 'restarted';
  // A restart after an edit may bring a new page script too: offer to load it.
  byId('restart-reload', HTMLButtonElement).hidden = seen.lost;
}

/** A poll got no answer (connection refused, reset, or not JSON). */
export function noteLost() {
  if (seen.lost) return;
  seen.lost = true;
  show('The bot is not answering — it may be restarting. Waiting for it to come back…');
}

/**
 * A poll got the state of `instance`. True when that is a new run of the bot (the page must start over).
 * @param {string} instance
 */
export function noteAnswer(instance) {
  const wasLost = seen.lost;
  seen.lost = false;
  if (seen.instance !== '' && instance !== seen.instance) {
    seen.instance = instance;
    show(
      'The bot restarted, so the playground began afresh: its workspace lives in the bot’s memory, and what you saw before is gone. Seeded campaigns, routes and people are back.',
    );
    return true;
  }
  seen.instance = instance;
  if (wasLost) byId('restart-banner', HTMLDivElement).hidden = true;
  return false;
}

export function wireConnection() {
  byId('restart-reload', HTMLButtonElement).addEventListener('click', () => window.location.reload());
  byId('restart-dismiss', HTMLButtonElement).addEventListener('click', () => {
    byId('restart-banner', HTMLDivElement).hidden = true;
  });
}
