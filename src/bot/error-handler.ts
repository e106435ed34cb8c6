/**
 * Bolt's global error handler: any error a listener did not handle — or a failed authorization, which Bolt
 * reports here before it acks the request — becomes one clear ephemeral sentence for the user (when Slack gave
 * us a response_url) and one log line — never a crash.
 */
import type { App, CodedError } from '@slack/bolt';
import { z } from 'zod';
import type { Deps } from '../app/deps.js';
import { ourFault, STORE_UNAVAILABLE } from '../app/failure.js';
import { isStoreUnavailable } from '../store/index.js';
import { postToResponseUrl } from '../slack/response-url.js';

const withResponseUrl = z.object({ response_url: z.string().url() });

export function installErrorHandler(app: App, deps: Deps): void {
  // With `extendedErrorHandler: true` Bolt passes the request body too (its args type isn't exported).
  app.error(({ error, body }: { error: CodedError; body?: unknown }) => {
    const original = 'original' in error && error.original instanceof Error ? error.original : error;
    deps.logger.error({ err: original, code: error.code }, 'unhandled error in a Slack listener');
    const target = withResponseUrl.safeParse(body);
    if (!target.success) return Promise.resolve();
    // Not awaited: Bolt acks a request whose authorization failed only once this returns, and Slack wants the
    // ack within 3 s (https://docs.slack.dev/tools/bolt-js/concepts/acknowledge).
    void postToResponseUrl(
      target.data.response_url,
      {
        response_type: 'ephemeral',
        replace_original: false,
        text: isStoreUnavailable(error) ? STORE_UNAVAILABLE : ourFault(),
      },
      deps.logger,
      deps.config.slack,
    );
    return Promise.resolve();
  });
}
