/**
 * `npm start` (and `rekey`, `bench`) build through scripts/build-if-changed.js: a fresh checkout builds, a
 * current build starts at once, and any change of the sources — an edit, a file added or removed — builds
 * again, as does a missing entry point or a build that failed. Run in a scratch project whose `build` script
 * counts its runs, so the rule is what is tested, not the compiler.
 */
import { spawnSync } from 'node:child_process';
import {
  mkdtempSync,
  readFileSync,
  rmSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
  mkdirSync,
  existsSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const SCRIPT = resolve('scripts/build-if-changed.js');
const dir = mkdtempSync(join(tmpdir(), 'build-if-changed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The scratch project's build: fails on a source saying so, else writes the entry point and counts itself.
const BUILD = `
const fs = require('node:fs');
if (fs.readFileSync('src/a.ts', 'utf8').includes('broken')) process.exit(2);
fs.mkdirSync('dist/bot', { recursive: true });
fs.writeFileSync('dist/bot/main.js', '');
fs.appendFileSync('builds.log', 'built\\n');
`;

const file = (path: string) => join(dir, path);
const write = (path: string, text: string) => writeFileSync(file(path), text);
const builds = () =>
  existsSync(file('builds.log')) ? readFileSync(file('builds.log'), 'utf8').split('\n').length - 1 : 0;
const start = () => spawnSync(process.execPath, [SCRIPT], { cwd: dir, encoding: 'utf8' }).status;

describe('build-if-changed', () => {
  it('builds a fresh checkout once, then only when the sources change', { timeout: 120_000 }, () => {
    write('package.json', JSON.stringify({ private: true, scripts: { build: 'node build.cjs' } }));
    write('build.cjs', BUILD);
    write('tsconfig.json', '{}');
    mkdirSync(file('src/bot'), { recursive: true });
    write('src/a.ts', 'export const a = 1;\n');
    write('src/bot/main.ts', 'export {};\n');

    expect(start()).toBe(0);
    expect(builds()).toBe(1);
    expect(start()).toBe(0);
    expect(builds()).toBe(1); // current: not built again

    // Touched, not changed (a checkout, an editor saving unchanged): still current.
    const later = new Date(Date.now() + 60_000);
    utimesSync(file('src/a.ts'), later, later);
    expect(start()).toBe(0);
    expect(builds()).toBe(1);

    write('src/a.ts', 'export const a = 2;\n');
    expect(start()).toBe(0);
    expect(builds()).toBe(2);

    write('src/bot/b.ts', 'export const b = 1;\n');
    expect(start()).toBe(0);
    expect(builds()).toBe(3);
    unlinkSync(file('src/bot/b.ts'));
    expect(start()).toBe(0);
    expect(builds()).toBe(4);

    write('tsconfig.json', '{ "compilerOptions": {} }');
    expect(start()).toBe(0);
    expect(builds()).toBe(5);

    unlinkSync(file('dist/bot/main.js'));
    expect(start()).toBe(0);
    expect(builds()).toBe(6);
    expect(start()).toBe(0);
    expect(builds()).toBe(6);
  });

  it(
    'fails with the build, and builds again next time rather than taking the failure for current',
    { timeout: 60_000 },
    () => {
      write('src/a.ts', 'broken\n');
      expect(start()).toBe(2);
      write('src/a.ts', 'export const a = 3;\n');
      const before = builds();
      expect(start()).toBe(0);
      expect(builds()).toBe(before + 1);
      // Back to the broken text the failed build saw: not current (it never built), so it is tried and fails again.
      write('src/a.ts', 'broken\n');
      expect(start()).toBe(2);
    },
  );
});
