/**
 * Writes the small files the bot ships in `assets/` from the package they come from (a devDependency, so a
 * production install does not carry the 49 MB of emojibase-data):
 *
 * - `assets/emoji.json`: Slack's emoji shortcodes (iamcal's names, aliases included) → Unicode, and the five
 *   skin-tone forms of those that take one — what `src/handoff/emoji.ts` reads. From emojibase-data (MIT).
 *   Its licence is `assets/emoji.LICENSE`.
 *
 *   npm run assets            rewrite them (after upgrading the package)
 *   npm run assets -- --check exit 1 when a committed file differs from what the packages give
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const ASSETS = new URL('../assets/', import.meta.url);

interface CompactEmoji {
  hexcode: string;
  unicode: string;
  skins?: readonly { hexcode: string; unicode: string }[];
}

/** Slack's `:skin-tone-2:` … `:skin-tone-6:`, as the modifiers' hexcodes, in that order. */
const TONES = ['1F3FB', '1F3FC', '1F3FD', '1F3FE', '1F3FF'];

/** `{ names: shortcode → emoji, tones: emoji → its five skin-tone forms }`, as `src/handoff/emoji.ts` reads it. */
function emojiTable(): string {
  const pkg = require('emojibase-data/package.json') as { version: string; license: string };
  const shortcodes = require('emojibase-data/en/shortcodes/iamcal.json') as Record<string, string | string[]>;
  const emojis = require('emojibase-data/en/compact.json') as CompactEmoji[];
  const byHex = new Map(emojis.map((e) => [e.hexcode, e]));
  const names: Record<string, string> = {};
  const tones: Record<string, string[]> = {};
  for (const [hexcode, given] of Object.entries(shortcodes)) {
    const emoji = byHex.get(hexcode);
    if (!emoji) continue; // a name with no emoji in this version: the shortcode stays as typed
    for (const name of [given].flat()) names[name.toLowerCase()] = emoji.unicode;
    // Only the plain "emoji + modifier" forms: Slack's second shortcode tones the one emoji before it.
    const skins = TONES.map((tone) => emoji.skins?.find((s) => s.hexcode === `${hexcode}-${tone}`)?.unicode);
    if (skins.every((s) => s !== undefined)) tones[emoji.unicode] = skins;
  }
  const source = `emojibase-data ${pkg.version} (${pkg.license}, Copyright (c) 2017-2019 Miles Johnson): en/shortcodes/iamcal.json, en/compact.json`;
  return `${JSON.stringify({ source, names, tones })}\n`;
}

/** Files copied as they are: the package's licence beside what came from it. */
const COPIED: Record<string, string> = {
  'emoji.LICENSE': require.resolve('emojibase-data/LICENSE'),
};

/** Every asset: its path under `assets/` and its bytes. */
export function generatedAssets(): Array<[string, Buffer]> {
  return [
    ['emoji.json', Buffer.from(emojiTable())],
    ...Object.entries(COPIED).map(([path, file]): [string, Buffer] => [path, readFileSync(file)]),
  ];
}

function main(check: boolean): void {
  const stale: string[] = [];
  for (const [path, bytes] of generatedAssets()) {
    const url = new URL(path, ASSETS);
    if (!check) writeFileSync(url, bytes);
    else if (!readFileOr(url)?.equals(bytes)) stale.push(path);
  }
  if (stale.length > 0) {
    process.stderr.write(`assets/ differs from its packages (run npm run assets): ${stale.join(', ')}\n`);
    process.exit(1);
  }
}

function readFileOr(url: URL): Buffer | undefined {
  try {
    return readFileSync(url);
  } catch {
    return undefined;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) main(process.argv.includes('--check'));
