import { BOT_SCOPES } from '../../src/bot/scopes.js';
import {
  manifestFunctions,
  manifestMetadataSubscriptions,
  startFakeSlack as startStandIn,
  type FakeSlack,
  type FakeSlackOptions,
  type FunctionDefinition,
} from '../../fakes/slack/index.js';

export * from '../../fakes/slack/index.js';

/** The bot scopes manifest.yml requests (the app's own list; a self-test parses manifest.yml and compares). */
export const MANIFEST_BOT_SCOPES: readonly string[] = BOT_SCOPES;

/** The workflow steps manifest.yml declares: the stand-in runs these, and checks their outputs against them. */
export const MANIFEST_FUNCTIONS: readonly FunctionDefinition[] = manifestFunctions(
  new URL('../../manifest.yml', import.meta.url),
);

/** The message metadata manifest.yml subscribes to: the stand-in sends `message_metadata_posted` for these. */
const MANIFEST_METADATA_SUBSCRIPTIONS = manifestMetadataSubscriptions(new URL('../../manifest.yml', import.meta.url));

/** The stand-in with the manifest's bot scopes, workflow steps and metadata subscriptions unless a test narrows them. */
export function startFakeSlack(opts: Partial<FakeSlackOptions> = {}): Promise<FakeSlack> {
  return startStandIn({
    ...opts,
    scopes: opts.scopes ?? MANIFEST_BOT_SCOPES,
    functions: opts.functions ?? MANIFEST_FUNCTIONS,
    metadataSubscriptions: opts.metadataSubscriptions ?? MANIFEST_METADATA_SUBSCRIPTIONS,
  });
}
