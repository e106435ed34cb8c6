/**
 * Event notifications, as the composition root sees them: the webhook route, the Recording and Details buttons, the
 * worker that reads queued events, and the scheduler that posts what waits for a channel — customers in its
 * urgent lane, calls in its routine lane, timers' reports in its bulk lane (started once the server listens, stopped first on shutdown). Call
 * events are handled here, and the outcome alerts they feed (their timer is registered here); features add
 * handlers for their triggers with `on` (handoff: chat messages).
 */
import type { App, CustomRoute } from '@slack/bolt';
import type { Deps } from '../app/deps.js';
import { hookRoute } from './intake.js';
import { registerRecordingButton } from './recording-button.js';
import { registerCallDetails } from './call-details.js';
import { installedIn, workerSlack } from '../delivery/post-context.js';
import { registerCallHandlers } from './calls.js';
import { CallOutbox, type CallOutboxOptions } from '../delivery/call-lane.js';
import { ChannelScheduler, type SchedulerOptions } from '../delivery/scheduler.js';
import { ConversationLane } from '../delivery/urgent-lane.js';
import { BulkLane } from '../delivery/bulk-lane.js';
import type { BulkPosts } from '../delivery/bulk-posts.js';
import { EventWorker, type WorkerOptions } from './worker.js';
import { retryDeadLetter, type RetryOutcome } from '../delivery/dead-letters.js';
import { ChannelPauses } from '../delivery/channel-pause.js';
import { ALERT_TIMER, OutcomeAlerts } from './outcome-alerts.js';
import { CallRecordings, type RecordingOptions } from './recordings.js';
import { slackFileOrigin } from '../slack/file-download.js';
import { FileShares } from '../slack/external-upload.js';
import { StepLog } from '../delivery/steps.js';

export interface EventsOptions {
  worker?: WorkerOptions;
  calls?: CallOutboxOptions;
  delivery?: SchedulerOptions;
  recordings?: RecordingOptions;
}

export interface Events {
  route: CustomRoute;
  /** Registers the worker's handler of one trigger. */
  on: EventWorker['on'];
  register(app: App): void;
  /** The outbox's bulk lane, where timers' reports (digests, quota alerts) wait for their channel. */
  bulk: BulkPosts;
  /** Posts a dead letter again (see dead-letters.ts). */
  retryDeadLetter(teamId: string, id: string): Promise<RetryOutcome>;
  start(): void;
  stop(): Promise<void>;
}

export function createEvents(deps: Deps, options: EventsOptions = {}): Events {
  const logger = deps.logger.child({ component: 'events' });
  const slack = workerSlack(deps.slack);
  const pauses = new ChannelPauses(deps.store, logger);
  const context = {
    store: deps.store,
    slack,
    installed: installedIn(deps.store, deps.slack),
    pace: deps.pace,
    pauses,
    logger,
    metrics: deps.metrics,
    audiences: deps.audiences,
  };
  const scheduler = new ChannelScheduler(context, options.delivery);
  const worker = new EventWorker(context, options.worker, (id) => scheduler.entryFinished(id));
  const bulk = new BulkLane(context, scheduler);
  pauses.noticesIn(bulk);
  const judge = (err: unknown) => deps.pace.judge(err);
  const files = new FileShares(new StepLog(deps.store, judge), judge, slackFileOrigin(deps.config.slack));
  const recordings = new CallRecordings(context, bulk, files, deps.timers, deps.config.recordings, options.recordings);
  const conversations = new ConversationLane(context, scheduler, worker);
  worker.handTo(conversations);
  const outbox = new CallOutbox(context, scheduler, files, options.calls, recordings);
  scheduler.serve({ urgent: conversations, routine: outbox, bulk });
  registerCallHandlers(worker, outbox);
  const alerts = new OutcomeAlerts(context, bulk, deps.posts);
  deps.timers.on(ALERT_TIMER, (timer, now) => alerts.fire(timer, now));
  return {
    route: hookRoute(deps),
    on: (trigger, handler) => worker.on(trigger, handler),
    bulk,
    register(app) {
      registerRecordingButton(app, deps);
      registerCallDetails(app, deps);
    },
    retryDeadLetter: (teamId, id) =>
      retryDeadLetter(deps.store, outbox, teamId, id, {
        maxBacklog: deps.config.hooks.maxBacklog,
        maxBacklogBytes: deps.config.hooks.maxBacklogBytes,
      }),
    start() {
      worker.start();
      scheduler.start();
    },
    async stop() {
      await worker.stop();
      await scheduler.stop();
      await recordings.stop();
    },
  };
}

export { ensureHookToken, hookUrlFor, describeHookUrl, unsubscribeUpstream } from './hook-url.js';
export * from './events.js';
export type { QueuedEvent, EventOutcome } from './worker.js';
export type { BulkPosts } from '../delivery/bulk-posts.js';
export { ALERT_TIMER, alertTimerId, ending } from './outcome-alerts.js';
export { sealRecording } from './recording-button.js';
