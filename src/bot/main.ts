/**
 * Process entry point: parse config once, build the bot, serve, and shut down cleanly on signals.
 *
 * This is the one place that decides between a real deployment and the playground: with no
 * deployment variable set at all (`isUnconfigured`), the bot runs against an embedded Slack stand-in and
 * platform simulator with a page on PORT. Setting any deployment variable means a real deployment, where a
 * missing value is an error — never a fallback to the playground.
 */
import type { Logger } from '../logger.js';
import { isUnconfigured, parseConfig, problemsHeading, readProcessEnv, type Config } from '../config.js';
import { stdoutLogOutput, type BoundedLogOutput } from '../log-output.js';
import type { PlaygroundModule } from './playground-module.js';

/** From the signal to the exit, whatever is still running then. */
const SHUTDOWN_GRACE_MS = 10_000;
/** How long buffered log lines may take to reach a slow log reader before the exit. */
const LOG_FLUSH_MS = 2_000;

async function main(): Promise<void> {
  const env = readProcessEnv();
  const logOutput = stdoutLogOutput();
  if (isUnconfigured(env)) {
    await playground(env, logOutput);
    return;
  }
  const parsed = parseConfig(env);
  if (!parsed.ok) {
    const out = process.stderr;
    out.write(`campaign bot will not start: ${problemsHeading(parsed.problems)} (values are never shown):\n`);
    for (const problem of parsed.problems) out.write(`  - ${problem}\n`);
    out.write(
      'See README.md › Configuration. (Unset every Slack and platform variable to run the local playground instead.)\n',
    );
    process.exitCode = 1;
    return;
  }
  // Loaded after the config check so a bad environment is reported without starting anything.
  const { createBot } = await import('./compose.js');
  const bot = createBot(parsed.config, { logDestination: logOutput });
  try {
    await bot.start();
  } catch (err) {
    const problem = startProblem(err, parsed.config);
    if (problem === undefined) throw err;
    process.stderr.write(`campaign bot will not start: ${problem}\n`);
    await logOutput.flush(LOG_FLUSH_MS);
    exitNow(1, logOutput);
  }
  stopOnSignals(() => bot.stop(), bot.deps.logger, logOutput);
}

/** A port the bot could not listen on, or an app token Slack refused, in one sentence naming its variable. */
function startProblem(err: unknown, config: Config): string | undefined {
  const e = err as (NodeJS.ErrnoException & { port?: number; data?: { error?: unknown } }) | undefined;
  // Socket Mode's start is apps.connections.open with the app-level token.
  if (config.slack.appToken && typeof e?.data?.error === 'string')
    return `Slack refuses SLACK_APP_TOKEN (apps.connections.open: ${e.data.error}): set it to an app-level token with connections:write (Basic Information › App-Level Tokens)`;
  if (e?.syscall !== 'listen') return undefined;
  const name = config.opsPort !== undefined && e.port === config.opsPort ? 'OPS_PORT' : 'PORT';
  return e.code === 'EADDRINUSE'
    ? `port ${e.port} (${name}) is in use by another process: stop that process or set ${name} to a free port`
    : `could not listen on port ${e.port} (${name}), ${e.code}: set ${name} to a port this process may open`;
}

/**
 * The playground runs from TypeScript source (it is not in the build): outside tsx, register it first.
 * Only the stateless config module is loaded before it, so the bot's modules (metrics…) exist once, from source.
 */
async function loadPlayground(): Promise<PlaygroundModule | undefined> {
  if (!import.meta.url.endsWith('.ts')) {
    try {
      const { register } = await import('tsx/esm/api');
      register();
    } catch {
      return undefined;
    }
  }
  // The same file from src/bot/main.ts and dist/bot/main.js.
  return (await import(new URL('../../playground/index.ts', import.meta.url).href)) as PlaygroundModule;
}

async function playground(
  env: Readonly<Record<string, string | undefined>>,
  logOutput: BoundedLogOutput,
): Promise<void> {
  const loaded = await loadPlayground();
  if (!loaded) {
    process.stderr.write(
      'campaign bot: the playground runs from source and needs the dev dependencies: run npm install\n',
    );
    process.exitCode = 1;
    return;
  }
  const { startPlayground, PLAYGROUND_BANNER } = loaded;
  const running = await startPlayground({ env, logDestination: logOutput });
  const line = '═'.repeat(72);
  process.stderr.write(
    `\n${line}\n  ${PLAYGROUND_BANNER}\n\n` +
      `  Open ${running.url} — a local Slack stand-in and platform simulator,\n` +
      '  with the real bot in between. Nothing here reaches Slack or the platform.\n' +
      '  For a real deployment set SLACK_* and CAMPAIGN_API_URL (README › Configuration).\n' +
      `${line}\n\n`,
  );
  stopOnSignals(() => running.stop(), running.bot.deps.logger, logOutput);
}

/**
 * SIGTERM/SIGINT: stop, give buffered log lines a short deadline, exit. Logging never blocks (log-output.ts),
 * so the force timer fires on time even when the log reader has stopped reading; a second signal exits at once.
 */
function stopOnSignals(stop: () => Promise<void>, logger: Logger, logOutput: BoundedLogOutput): void {
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) {
      exitNow(1, logOutput);
      return;
    }
    stopping = true;
    const deadline = Date.now() + SHUTDOWN_GRACE_MS;
    logger.info({ signal }, 'shutting down');
    setTimeout(() => {
      logger.error({ graceMs: SHUTDOWN_GRACE_MS }, 'shutdown did not finish in time: exiting anyway');
      exitNow(1, logOutput);
    }, SHUTDOWN_GRACE_MS);
    const exitAfterFlush = (code: number) => {
      void logOutput.flush(Math.min(LOG_FLUSH_MS, deadline - Date.now())).then(() => exitNow(code, logOutput));
    };
    stop().then(
      () => exitAfterFlush(0),
      (err: unknown) => {
        logger.error({ err }, 'error during shutdown');
        exitAfterFlush(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('unhandledRejection', (err) => logger.error({ err }, 'unhandled promise rejection'));
}

/** Exits without waiting on anything; log lines a stalled reader never took are reported on stderr. */
function exitNow(code: number, log: BoundedLogOutput): never {
  if (log.pending > 0) {
    process.stderr.write(
      `campaign bot: ${log.pending} log lines not delivered: the log reader stopped reading (${log.dropped} dropped before)\n`,
    );
  }
  process.exit(code);
}

main().catch((err: unknown) => {
  process.stderr.write(`campaign bot failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  // What was built before the failure (the Slack app, connection pools) would keep a process with nothing to do alive.
  process.exit(1);
});
