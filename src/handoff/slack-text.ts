/**
 * A Slack message as the customer should read it. Slack's `text` carries its own markup — `<@U123>`
 * mentions, `<#C123|name>` channels, `<https://…|label>` links, `&amp;`-style entities, `:emoji:` shortcodes,
 * and the formatting an agent typed (`*bold*`, `_italic_`, `~strike~`, `` `code` ``, `> quote`) — none of which
 * means anything in an SMS or a chat widget, so it becomes plain text before it is sent with
 * send-human-response. Slack's formats: https://docs.slack.dev/messaging/formatting-message-text
 */
import { emojify } from './emoji.js';

/** `note:` at the start of a reply keeps it in Slack (a private note for the other agents). */
export function isPrivateNote(text: string | undefined): boolean {
  return /^\s*note:/i.test(text ?? '');
}

/** Looks up a Slack user's display name (for `<@U123>` without a label). */
export type NameOf = (userId: string) => Promise<string>;

const TOKEN = /<([^<>]*)>/g;

/** Stands for a token or a code span while the text around it is unmarked; a private-use character, taken out of the agent's text first. */
const HOLE = /\uE000(\d+)\uE000/g;
const CODE = /```([\s\S]*?)```|`([^`\n]+)`/g;
/** `>` (sent as `&gt;`) quoting a line, `>>>` the rest of the message. */
const QUOTE = /^(?:&gt;){1,3}[ \t]?/gm;

export async function toCustomerText(text: string, nameOf: NameOf): Promise<string> {
  // Links, mentions and code keep their characters as typed: they are set aside while the rest is unmarked.
  text = text.replace(/\uE000/g, '');
  const kept: string[] = [];
  const hole = (value: string) => `\uE000${kept.push(value) - 1}\uE000`;
  let rest = '';
  let last = 0;
  for (const match of text.matchAll(TOKEN)) {
    rest += text.slice(last, match.index) + hole(await plainToken(match[1] ?? '', nameOf));
    last = match.index + match[0].length;
  }
  rest += text.slice(last);
  rest = rest.replace(CODE, (_, block: string | undefined, inline: string | undefined) =>
    hole(decodeEntities((block ?? inline ?? '').replace(/^\n|\n$/g, ''))),
  );
  const plain = decodeEntities(emojify(unmark(rest.replace(QUOTE, ''))));
  return plain.replace(HOLE, (_, i: string) => kept[Number(i)] ?? '').trim();
}

/**
 * Slack's formatting markers dropped, the words kept: a marker opens after a blank, punctuation or the start
 * and closes before one of those or the end, with no blank just inside — so `snake_case` and `2*3*4` stay.
 */
function unmark(text: string): string {
  let out = text;
  for (const m of ['\\*', '_', '~']) {
    const marked = new RegExp(
      `(^|[^\\p{L}\\p{N}${m}])${m}(?=\\S)([^\\n]*?[^\\s${m}]|[^\\s${m}])${m}(?=$|[^\\p{L}\\p{N}${m}])`,
      'gu',
    );
    // Twice: markers nested in one another (`*_both_*`) come off one layer per pass.
    for (let pass = 0; pass < 2; pass++) out = out.replace(marked, '$1$2');
  }
  return out;
}

async function plainToken(inner: string, nameOf: NameOf): Promise<string> {
  const bar = inner.indexOf('|');
  const target = bar === -1 ? inner : inner.slice(0, bar);
  // A label reads like the text around it (a mailto or URL target is kept exactly).
  const label = bar === -1 ? undefined : decodeEntities(emojify(unmark(inner.slice(bar + 1))));
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
