/**
 * Event notifications, as the composition root sees them: the webhook route, the Recording button's ack,
 * and the worker that posts queued events (started once the server listens, stopped first on shutdown).
 * Call events are handled here; features add handlers for their triggers with `on` (handoff: chat messages).
 */
import type { App, CustomRoute } from '@slack/bolt';
import type { Deps } from '../app/deps.js';
import { botTokenFor } from '../app/slack-token.js';
import { GiveWay } from './give-way.js';
import { hookRoute, IntakeLoad, type IntakeOptions } from './intake.js';
import { RECORDING_ACTION } from './render/index.js';
import { WorkerSlack } from './slack-clients.js';
import { registerCallHandlers } from './calls.js';
import { EventWorker, type WorkerOptions } from './worker.js';

/** Queued events up to which the worker gives way to a busy intake; past it, a flood that lasts is worked off at full pace. */
const GIVE_WAY_UP_TO = 20_000;

export interface EventsOptions {
  worker?: WorkerOptions;
  intake?: IntakeOptions;
}

export interface Events {
  route: CustomRoute;
  /** Registers the worker's handler of one trigger. */
  on: EventWorker['on'];
  register(app: App): void;
  start(): void;
  stop(): Promise<void>;
}

export function createEvents(deps: Deps, options: EventsOptions = {}): Events {
  const logger = deps.logger.child({ component: 'events' });
  const slack = new WorkerSlack(deps.config.slack.apiUrl, (teamId) => botTokenFor(deps, teamId), logger);
  const load = new IntakeLoad();
  // Acknowledging webhooks comes first: while intake is busy, queued posts go one at a time (they are safe in
  // the queue) — up to a backlog of GIVE_WAY_UP_TO events. Not where the queue is this process's memory: there
  // a held-back event costs heap, and lives long enough to be kept until a full GC (RSS grows by the backlog).
  const inProcessQueue = !deps.config.redisUrl && !deps.config.redisCluster;
  const giveWay = inProcessQueue ? undefined : new GiveWay(load, deps.store.queue, GIVE_WAY_UP_TO);
  const worker = new EventWorker(deps.store, slack, logger, deps.metrics, {
    ...(giveWay ? { yieldWhile: () => giveWay.yielding() } : {}),
    ...options.worker,
  });
  registerCallHandlers(worker);
  return {
    route: hookRoute(deps, options.intake, load),
    on: (trigger, handler) => worker.on(trigger, handler),
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

export { ensureHookToken, hookUrlFor, describeHookUrl } from './hook-url.js';
export * from './events.js';
export type { Delivery, DeliveryOutcome } from './worker.js';
