/**
 * Slack's emoji shortcodes (`:tada:`, `:+1::skin-tone-3:`) as the Unicode emoji a customer's phone shows.
 * Slack names its emoji after iamcal's emoji-data; `assets/emoji.json` (generated from emojibase-data by
 * `scripts/generate-assets.ts`) holds those names, aliases included, with each emoji's skin-tone forms. A
 * shortcode Slack doesn't know by default (a workspace's custom emoji) stays as typed.
 */
import { readFileSync } from 'node:fs';

/** `names`: shortcode → emoji; `tones`: emoji → its forms for `:skin-tone-2:` … `:skin-tone-6:`, in order. */
interface EmojiTable {
  names: Readonly<Record<string, string>>;
  tones: Readonly<Record<string, readonly string[]>>;
}

const SHORTCODE = /:([a-z0-9_+'-]+):(?::skin-tone-([2-6]):)?/gi;

/** Two levels up from this file, as from its build in dist/: the same folder either way. */
const TABLE_FILE = new URL('../../assets/emoji.json', import.meta.url);

let table: EmojiTable | undefined;

/** Read on first use: a bot that never relays a reply needn't hold it. */
function emojiTable(): EmojiTable {
  table ??= JSON.parse(readFileSync(TABLE_FILE, 'utf8')) as EmojiTable;
  return table;
}

/** `text` with every shortcode Slack knows replaced by its emoji (with its skin tone, when one follows). */
export function emojify(text: string): string {
  if (!text.includes(':')) return text;
  const { names, tones } = emojiTable();
  return text.replace(SHORTCODE, (typed, name: string, tone: string | undefined) => {
    const plain = Object.hasOwn(names, name.toLowerCase()) ? names[name.toLowerCase()] : undefined;
    if (plain === undefined) return typed;
    const toned = tone === undefined || !Object.hasOwn(tones, plain) ? undefined : tones[plain]?.[Number(tone) - 2];
    // A skin tone on an emoji that takes none: the emoji, and the tone is dropped as Slack shows it.
    return toned ?? plain;
  });
}
