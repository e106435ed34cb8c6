import { maskSecretShapes } from '../util/secret-shapes.js';

/** Keys shorter than this are masked entirely: showing 4 characters of a short key gives too much of it away. */
const MIN_LENGTH_TO_SHOW_TAIL = 12;
const MASK = '••••';

/** The only way an API key may appear in logs or Slack: `••••` + its last 4 characters. */
export function maskKey(key: string): string {
  if (key.length < MIN_LENGTH_TO_SHOW_TAIL) return MASK;
  return MASK + key.slice(-4);
}

/**
 * Replaces every occurrence of `apiKey` in `text` with its masked form, and masks Slack and hook tokens (the
 * platform may echo back what it was sent, e.g. a hookUrl, and its messages are shown in Slack).
 */
export function redactKey(text: string, apiKey: string): string {
  return maskSecretShapes(apiKey === '' ? text : text.split(apiKey).join(maskKey(apiKey)));
}
