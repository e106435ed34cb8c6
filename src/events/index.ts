/**
 * Event notifications, as the composition root sees them: the webhook route, the Recording button's ack,
 * and the worker that posts queued events (started once the server listens, stopped first on shutdown).
 */
import type { App, CustomRoute } from '@slack/bolt';
import type { Deps } from '../bot/deps.js';
import { botTokenFor } from '../bot/slack-token.js';
import { hookRoute, type IntakeOptions } from './intake.js';
import { RECORDING_ACTION } from './render/index.js';
import { WorkerSlack } from './slack-client.js';
import { EventWorker, type WorkerOptions } from './worker.js';

export interface EventsOptions {
  worker?: WorkerOptions;
  intake?: IntakeOptions;
}

export interface Events {
  route: CustomRoute;
  register(app: App): void;
  start(): void;
  stop(): Promise<void>;
}

export function createEvents(deps: Deps, options: EventsOptions = {}): Events {
  const logger = deps.logger.child({ component: 'events' });
  const slack = new WorkerSlack(deps.config.slack.apiUrl, (teamId) => botTokenFor(deps, teamId), logger);
  const worker = new EventWorker(deps.store, slack, logger, deps.metrics, options.worker);
  return {
    route: hookRoute(deps, options.intake),
    register(app) {
      // A link button still sends a block action; acknowledging it keeps Slack from showing an error.
      app.action(RECORDING_ACTION, async ({ ack }) => {
        await ack();
      });
    },
    start: () => worker.start(),
    stop: () => worker.stop(),
  };
}

export { HOOK_BODY_LIMIT, parseDelivery } from './intake.js';
export { ensureHookToken, hookUrlFor, describeHookUrl, tokenRef } from './hook-url.js';
export { dedupKey, orderKey, DEDUP_TTL_MS } from './dedup-key.js';
export * from './events.js';
export type { WorkerOptions } from './worker.js';
