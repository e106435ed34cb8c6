/**
 * Slack's emoji shortcodes (`:tada:`, `:+1::skin-tone-3:`) as the Unicode emoji a customer's phone shows.
 * Slack names its emoji after iamcal's emoji-data; `emojibase-data` keeps those names (aliases included) per
 * hexcode, beside each emoji's Unicode and its skin-tone variants. A shortcode Slack doesn't know by default (a
 * workspace's custom emoji) stays as typed.
 */
import { createRequire } from 'node:module';

interface CompactEmoji {
  hexcode: string;
  unicode: string;
  skins?: readonly { hexcode: string; unicode: string }[];
}

/** Slack writes a skin tone as a second shortcode, `:skin-tone-2:` (light) … `:skin-tone-6:` (dark). */
const SKIN_TONES: Readonly<Record<string, string>> = {
  '2': '1F3FB',
  '3': '1F3FC',
  '4': '1F3FD',
  '5': '1F3FE',
  '6': '1F3FF',
};

const SHORTCODE = /:([a-z0-9_+'-]+):(?::skin-tone-([2-6]):)?/gi;

interface EmojiTable {
  /** shortcode → hexcode of its emoji. */
  byName: Map<string, string>;
  /** hexcode (with a skin tone's, e.g. `1F44D-1F3FB`) → Unicode. */
  unicode: Map<string, string>;
}

let table: EmojiTable | undefined;

/** Read on first use: about half a megabyte of JSON a bot that never relays a reply needn't hold. */
function emojiTable(): EmojiTable {
  if (table) return table;
  const require = createRequire(import.meta.url);
  const names = require('emojibase-data/en/shortcodes/iamcal.json') as Record<string, string | string[]>;
  const emojis = require('emojibase-data/en/compact.json') as CompactEmoji[];
  const unicode = new Map<string, string>();
  for (const e of emojis) {
    unicode.set(e.hexcode, e.unicode);
    for (const skin of e.skins ?? []) unicode.set(skin.hexcode, skin.unicode);
  }
  const byName = new Map<string, string>();
  for (const [hexcode, shortcodes] of Object.entries(names)) {
    for (const name of Array.isArray(shortcodes) ? shortcodes : [shortcodes]) byName.set(name.toLowerCase(), hexcode);
  }
  table = { byName, unicode };
  return table;
}

/** `text` with every shortcode Slack knows replaced by its emoji (with its skin tone, when one follows). */
export function emojify(text: string): string {
  if (!text.includes(':')) return text;
  const { byName, unicode } = emojiTable();
  return text.replace(SHORTCODE, (typed, name: string, tone: string | undefined) => {
    const hexcode = byName.get(name.toLowerCase());
    if (!hexcode) return typed;
    const plain = unicode.get(hexcode);
    if (!plain) return typed;
    const toned = tone === undefined ? undefined : unicode.get(`${hexcode}-${SKIN_TONES[tone]}`);
    // A skin tone on an emoji that takes none: the emoji, and the tone is dropped as Slack shows it.
    return toned ?? plain;
  });
}
