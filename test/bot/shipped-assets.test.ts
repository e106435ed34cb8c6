/**
 * The files the bot reads from `assets/` (emoji names) are what their package gives, and the production install
 * does not need the package: product code imports production dependencies only.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { describe, expect, it } from 'vitest';
import { generatedAssets } from '../../scripts/generate-assets.js';
import { emojify } from '../../src/handoff/emoji.js';

const ROOT = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

describe('assets/', () => {
  it('holds exactly what scripts/generate-assets.ts makes of its packages (npm run assets after an upgrade)', () => {
    const assets = generatedAssets();
    expect(assets.map(([path]) => path).sort()).toEqual(['emoji.LICENSE', 'emoji.json']);
    for (const [path, bytes] of assets)
      expect(readFileSync(new URL(`assets/${path}`, ROOT)).equals(bytes), path).toBe(true);
  });

  it('keeps the licence beside what it covers: MIT for the emoji data', () => {
    expect(readFileSync(new URL('assets/emoji.LICENSE', ROOT), 'utf8')).toMatch(/^MIT License/);
  });

  it('holds nothing else: what the bot reads beside its code is generated', () => {
    const shipped = readdirSync(new URL('assets/', ROOT), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name)
      .sort();
    expect(shipped).toEqual(
      generatedAssets()
        .map(([path]) => path)
        .sort(),
    );
  });

  it('is small: a table of the names Slack uses, not the whole emoji database', () => {
    expect(readFileSync(new URL('assets/emoji.json', ROOT)).length).toBeLessThan(100_000);
    // Every alias Slack knows, the skin tones of those that take one.
    expect(emojify(':thumbsup: :+1::skin-tone-6: :face_with_rolling_eyes: :flag-fr:')).toBe('👍️ 👍🏿 🙄 🇫🇷');
  });
});

/** Bare specifiers (`pkg`, `@scope/pkg/sub`) imported, required or resolved anywhere under src/. */
function importedPackages(dir: URL): Set<string> {
  const found = new Set<string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const source = readFileSync(`${entry.parentPath}/${entry.name}`, 'utf8');
    const specifiers = source.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\brequire(?:\.resolve)?\(\s*)'([^'.][^']*)'/g);
    for (const [, spec] of specifiers) {
      const name = spec!.startsWith('@') ? spec!.split('/').slice(0, 2).join('/') : spec!.split('/')[0]!;
      if (!name.startsWith('node:') && !builtinModules.includes(name)) found.add(name);
    }
  }
  return found;
}

/** Loaded only when the bot runs from TypeScript source (src/bot/main.ts): never in the image. */
const FROM_SOURCE_ONLY = ['tsx'];

describe('the production install', () => {
  it('carries every package product code imports; the asset package is a devDependency', () => {
    const used = importedPackages(new URL('src/', ROOT));
    expect(used.size).toBeGreaterThan(5);
    for (const name of used)
      if (!FROM_SOURCE_ONLY.includes(name)) expect(Object.keys(pkg.dependencies), name).toContain(name);
    expect(Object.keys(pkg.devDependencies)).toContain('emojibase-data');
    expect(Object.keys(pkg.dependencies)).not.toContain('emojibase-data');
  });
});
