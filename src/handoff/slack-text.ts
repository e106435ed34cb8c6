/**
 * A Slack message as the customer should read it. Slack's `text` carries its own markup — `<@U123>`
 * mentions, `<#C123|name>` channels, `<https://…|label>` links, `&amp;`-style entities — none of which means
 * anything outside Slack, so it becomes plain text before it is sent with send-human-response.
 */

/** `note:` at the start of a reply keeps it in Slack (a private note for the other agents). */
export function isPrivateNote(text: string | undefined): boolean {
  return /^\s*note:/i.test(text ?? '');
}

/** Looks up a Slack user's display name (for `<@U123>` without a label). */
export type NameOf = (userId: string) => Promise<string>;

const TOKEN = /<([^<>]*)>/g;

export async function toCustomerText(text: string, nameOf: NameOf): Promise<string> {
  const parts: string[] = [];
  let last = 0;
  for (const match of text.matchAll(TOKEN)) {
    parts.push(decodeEntities(text.slice(last, match.index)));
    parts.push(await plainToken(match[1] ?? '', nameOf));
    last = match.index + match[0].length;
  }
  parts.push(decodeEntities(text.slice(last)));
  return parts.join('').trim();
}

async function plainToken(inner: string, nameOf: NameOf): Promise<string> {
  const bar = inner.indexOf('|');
  const target = bar === -1 ? inner : inner.slice(0, bar);
  const label = bar === -1 ? undefined : decodeEntities(inner.slice(bar + 1));
  if (target.startsWith('@')) return `@${label ?? (await nameOf(target.slice(1)))}`;
  if (target.startsWith('#')) return `#${label ?? 'channel'}`;
  if (target.startsWith('!')) {
    // <!here>, <!channel>, <!subteam^S1|@team>, <!date^…|fallback>
    if (label) return label;
    const word = target.slice(1).split('^')[0] ?? '';
    return `@${word}`;
  }
  const url = decodeEntities(target);
  if (url.startsWith('mailto:')) return label ?? url.slice('mailto:'.length);
  if (!label || label === url || `http://${label}` === url || `https://${label}` === url) return url;
  return `${label} (${url})`;
}

function decodeEntities(text: string): string {
  // `&amp;` last: `&amp;lt;` is the literal text "&lt;", not "<".
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}
