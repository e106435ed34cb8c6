/**
 * Process entry point: parse config once, build the bot, serve, and shut down cleanly on signals.
 */
import { isUnconfigured, parseConfig, readProcessEnv } from '../config.js';

const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  const env = readProcessEnv();
  const parsed = parseConfig(env);
  if (!parsed.ok) {
    const out = process.stderr;
    out.write(`campaign bot: configuration is incomplete (${parsed.problems.length} problem${parsed.problems.length === 1 ? '' : 's'}):\n`);
    for (const problem of parsed.problems) out.write(`  - ${problem}\n`);
    if (isUnconfigured(env)) out.write('See README.md › Configuration for a minimal setup.\n');
    process.exitCode = 1;
    return;
  }
  // Loaded after the config check so a bad environment is reported without starting anything.
  const { createBot } = await import('./compose.js');
  const bot = createBot(parsed.config);
  await bot.start();

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    bot.deps.logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS);
    force.unref();
    bot.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        bot.deps.logger.error({ err }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('unhandledRejection', (err) => bot.deps.logger.error({ err }, 'unhandled promise rejection'));
}

main().catch((err: unknown) => {
  process.stderr.write(`campaign bot failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
