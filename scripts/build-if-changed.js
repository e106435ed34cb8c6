// Compiles src/ into dist/ (`npm run build`) unless dist/ was built from exactly these inputs, so `npm start`,
// `npm run rekey` and `npm run bench` on a current build start at once. The inputs are fingerprinted by content
// (a checkout or a touch that changes nothing does not rebuild; any edit, added or removed file does). The
// fingerprint is taken before compiling and written only after a good build: a file edited meanwhile, or a
// failed build, builds again next time.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

const INPUTS = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];
const STAMP = 'dist/.build-inputs';
const ENTRY = 'dist/bot/main.js';

/** Every file at or under `path`, in a stable order. */
function filesOf(path) {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => filesOf(join(path, name)));
}

function fingerprint() {
  const hash = createHash('sha256');
  for (const file of INPUTS.flatMap(filesOf)) {
    hash.update(`${file}\0`);
    hash.update(createHash('sha256').update(readFileSync(file)).digest());
  }
  return hash.digest('hex');
}

const inputs = fingerprint();
const built = existsSync(STAMP) ? readFileSync(STAMP, 'utf8') : '';
if (built === inputs && existsSync(ENTRY)) process.exit(0);
const build = spawnSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
writeFileSync(STAMP, inputs);
