/** Keys shorter than this are masked entirely: showing 4 characters of a short key gives too much of it away. */
const MIN_LENGTH_TO_SHOW_TAIL = 12;
const MASK = '••••';

/** The only way an API key may appear in logs or Slack: `••••` + its last 4 characters. */
export function maskKey(key: string): string {
  if (key.length < MIN_LENGTH_TO_SHOW_TAIL) return MASK;
  return MASK + key.slice(-4);
}

/** Replaces every occurrence of `apiKey` in `text` with its masked form (the platform may echo it back). */
export function redactKey(text: string, apiKey: string): string {
  if (apiKey === '') return text;
  return text.split(apiKey).join(maskKey(apiKey));
}
