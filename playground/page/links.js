// @ts-check
/**
 * Links that stay on the page (local-links.ts on the server marks them): a recording or a voice preview plays
 * in the page's own audio player, instead of opening an address that exists only on the real platform.
 */

import { byId, toast } from './dom.js';

/**
 * @param {string} src a playground path (`/playground/media/…`)
 * @param {string} title
 */
export function playAudio(src, title) {
  if (!src.startsWith('/playground/')) return;
  const audio = byId('player-audio', HTMLAudioElement);
  byId('player-title', HTMLSpanElement).textContent = `🎧 ${title}`;
  byId('player', HTMLDivElement).hidden = false;
  audio.src = src;
  audio.play().catch((/** @type {unknown} */ err) => {
    // Autoplay refused or nothing to play: the controls are there; say so only for a real failure.
    if (err instanceof DOMException && err.name === 'NotAllowedError') return;
    toast(`Could not play ${title}: ${err instanceof Error ? err.message : String(err)}`, true);
  });
}

export function wirePlayer() {
  byId('player-close', HTMLButtonElement).addEventListener('click', () => {
    const audio = byId('player-audio', HTMLAudioElement);
    audio.pause();
    audio.removeAttribute('src');
    byId('player', HTMLDivElement).hidden = true;
  });
}
