import { BOT_SCOPES } from '../../src/bot/scopes.js';
import { startFakeSlack as startStandIn, type FakeSlack, type FakeSlackOptions } from '../../fakes/slack/index.js';

export * from '../../fakes/slack/index.js';

/** The bot scopes manifest.yml requests (the app's own list; a self-test parses manifest.yml and compares). */
export const MANIFEST_BOT_SCOPES: readonly string[] = BOT_SCOPES;

/** The stand-in with the manifest's bot scopes unless a test narrows them. */
export function startFakeSlack(opts: Partial<FakeSlackOptions> = {}): Promise<FakeSlack> {
  return startStandIn({ ...opts, scopes: opts.scopes ?? MANIFEST_BOT_SCOPES });
}
