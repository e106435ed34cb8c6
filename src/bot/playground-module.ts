/**
 * The shape of `playground/index.ts` as the entry point sees it. The playground is not part of the build (it
 * runs from TypeScript source), so main imports it by URL and types it with this instead of its own types.
 */
import type { DestinationStream } from 'pino';
import type { Logger } from '../logger.js';

export interface PlaygroundModule {
  readonly PLAYGROUND_BANNER: string;
  readonly startPlayground: (opts: {
    env: Readonly<Record<string, string | undefined>>;
    logDestination?: DestinationStream;
  }) => Promise<{
    /** The page, e.g. http://localhost:3000/ */
    url: string;
    bot: { deps: { logger: Logger } };
    stop(): Promise<void>;
  }>;
}
