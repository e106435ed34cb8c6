/**
 * The README and docs/ stay a newcomer's way in, and true to the code: the README short, its first commands the
 * ones package.json and CI run, every relative link (file and heading) resolving, and docs/PRODUCT.md — the
 * contract the code cites — naming every variable `src/config.ts` reads and every `/campaign` subcommand, in the
 * order of the registry (help's order within each of its groups).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), 'utf8');

const README = read('README.md');
const DOCS = readdirSync(new URL('docs/', ROOT)).filter((f) => f.endsWith('.md'));
const PRODUCT = read('docs/PRODUCT.md');
const SCRIPTS = Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts);

/** The text of one `## heading` section of a Markdown document (up to the next `## `). */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no "## ${heading}" section`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

/** The first cell of each body row of the first Markdown table in `text`. */
function firstCells(text: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.startsWith('|'));
  const end = lines.findIndex((line, i) => i > start && !line.startsWith('|'));
  // Row 0 is the header, row 1 the separator.
  return lines.slice(start + 2, end < 0 ? undefined : end).map((row) => row.split(' | ')[0]!.slice(2));
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces → hyphens. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsIn(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1]!.trim())));
}

/** Relative links (`[text](path#anchor)`) of a Markdown file, outside code blocks. */
function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z]+:/i.test(target) && !target.startsWith('<'));
}

describe('README.md', () => {
  it('reads in ten minutes: at most 250 lines', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(250);
  });

  it('starts with the two commands a fresh clone runs: the playground, then the tests CI runs', () => {
    const block = /## Start and test\n[\s\S]*?```sh\n([\s\S]*?)```/.exec(README)?.[1] ?? '';
    const commands = block
      .split('\n')
      .map((line) => line.replace(/#.*$/, '').trim())
      .filter(Boolean);
    expect(commands).toEqual(['npm install && npm start', 'npm test']);
    // CI runs the same test command (.ci/run), and without configuration `npm start` is the playground
    // (test/playground/main.test.ts starts it).
    expect(read('.ci/run').split('\n')).toContain('npm test');
    expect(SCRIPTS).toEqual(expect.arrayContaining(['start', 'test']));
  });

  it('links to every file in docs/', () => {
    for (const doc of DOCS) expect(README, doc).toContain(`](docs/${doc})`);
  });

  it('shows the playground screenshot', () => {
    expect(README).toMatch(/!\[[^\]]+\]\(docs\/playground\.png\)/);
  });
});

describe('links', () => {
  const files = ['README.md', ...DOCS.map((d) => `docs/${d}`)];

  it.each(files)('%s: every relative link names a file that exists, and a heading in it', (file) => {
    const base = new URL(file, ROOT);
    const text = read(file);
    const broken = relativeLinks(text).filter((target) => {
      const [path = '', anchor] = target.split('#');
      const into = path === '' ? base : new URL(path, base);
      if (!existsSync(into)) return true;
      if (anchor === undefined || !into.pathname.endsWith('.md')) return false;
      return !anchorsIn(path === '' ? text : readFileSync(into, 'utf8')).has(anchor);
    });
    expect(broken).toEqual([]);
  });

  it.each(files)('%s: every `npm run <script>` it names is a script of package.json', (file) => {
    const named = [...read(file).matchAll(/npm run ([a-z:]+)/g)].map((m) => m[1]!);
    expect(named.filter((script) => !SCRIPTS.includes(script))).toEqual([]);
  });
});

describe('docs/PRODUCT.md, the contract the code cites', () => {
  it('names every variable src/config.ts reads, and no other, in the runtime contract', () => {
    const schema = /const envSchema = z\.object\(\{\n([\s\S]*?)\n\}\);/.exec(read('src/config.ts'))?.[1] ?? '';
    const readByConfig = [...schema.matchAll(/^ {2}([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]!);
    const documented = firstCells(section(PRODUCT, 'Runtime contract')).flatMap((cell) =>
      [...cell.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!),
    );
    expect(readByConfig.length).toBeGreaterThanOrEqual(19);
    expect([...documented].sort()).toEqual([...readByConfig].sort());
  });

  // Importing the command modules transforms most of src/: more than the default 20 s on a busy machine.
  it('lists every /campaign subcommand in the order of the registry', { timeout: 60_000 }, async () => {
    // The registry (src/commands/index.ts): the SUBCOMMANDS array, each entry imported from its own file.
    const index = read('src/commands/index.ts');
    const list = /const SUBCOMMANDS: readonly Subcommand\[\] = \[([\s\S]*?)\];/.exec(index)?.[1] ?? '';
    const names: string[] = [];
    for (const id of list
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const from = new RegExp(`import \\{ ${id} \\} from '\\./([\\w-]+)\\.js';`).exec(index)?.[1];
      const mod = (await import(`../../src/commands/${from ?? id}.ts`)) as Record<string, { name: string }>;
      names.push(mod[id]!.name);
    }
    expect(names.length).toBeGreaterThanOrEqual(20);

    const listed = firstCells(section(PRODUCT, 'Command grammar'))
      .map((cell) => /^`([a-z-]+)/.exec(cell)?.[1])
      .filter((name) => name !== undefined && name !== 'help');
    expect([...new Set(listed)]).toEqual(names);
  });
});
