/**
 * `npm run rekey`: re-encrypts every stored secret (platform API keys, hook tokens, Slack installations) with
 * the first key of `SECRETS_KEY`.
 *
 * Rotation: set `SECRETS_KEY=<new>,<old>` on every replica (the new key encrypts, both decrypt), run this with
 * the same environment, then drop `<old>`. It reads the bot's configuration the same way the bot does and
 * prints counts and key names only, never a value.
 */
import { pathToFileURL } from 'node:url';
import { parseConfig, problemsHeading, readProcessEnv } from '../config.js';
import { createStore, rekeyStore } from '../store/index.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface RekeyOptions {
  /** Store key prefix (tests isolate themselves with their own); the bot's default otherwise. */
  keyPrefix?: string;
}

/** Runs the rekey against the store `env` configures; writes its report with `write`; resolves with the exit code. */
export async function runRekey(env: Env, write: (line: string) => void, options: RekeyOptions = {}): Promise<number> {
  const parsed = parseConfig(env);
  const problems = parsed.ok ? [] : [...parsed.problems];
  if (parsed.ok && !parsed.config.redisUrl && !parsed.config.redisCluster)
    problems.push(
      'REDIS_URL: required (or REDIS_CLUSTER_NODES): rekey rewrites the secrets the bot stores in Redis (in-memory mode keeps none across restarts)',
    );
  if (!parsed.ok || problems.length > 0) {
    write(`rekey: ${problemsHeading(problems)}:`);
    for (const problem of problems) write(`  - ${problem}`);
    return 1;
  }
  const { config } = parsed;
  const store = createStore({
    ...(config.redisUrl ? { redisUrl: config.redisUrl } : {}),
    ...(config.redisCluster ? { redisCluster: config.redisCluster } : {}),
    ...(config.secretsKeys ? { secretsKey: config.secretsKeys } : {}),
    ...(options.keyPrefix ? { keyPrefix: options.keyPrefix } : {}),
  });
  try {
    const report = await rekeyStore(store);
    const kinds = Object.entries(report.rewritten);
    const total = kinds.reduce((sum, [, n]) => sum + n, 0);
    const ring = config.secretsKeys?.length ?? 0;
    write(
      `rekey: rewrote ${total} secret${total === 1 ? '' : 's'} with the first of ${ring} SECRETS_KEY key${ring === 1 ? '' : 's'}` +
        `${kinds.length > 0 ? ` (${kinds.map(([kind, n]) => `${kind}: ${n}`).join(', ')})` : ''}; ${report.current} already current.`,
    );
    for (const where of report.busy) write(`  changed during the run, run rekey again: ${where}`);
    for (const where of report.unreadable)
      write(`  opens with no key of SECRETS_KEY (left as is; was a key dropped too early?): ${where}`);
    return report.unreadable.length + report.busy.length > 0 ? 1 : 0;
  } finally {
    await store.close();
  }
}

// Run as a script (`npm run rekey`), not when imported.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runRekey(readProcessEnv(), (line) => process.stdout.write(`${line}\n`)).then(
    (code) => (process.exitCode = code),
    (err: unknown) => {
      process.stderr.write(`rekey failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
