/**
 * Prometheus metrics (prom-client), one registry per bot so tests and replicas don't share counters.
 * Served as text on GET /metrics. Label values are bounded: endpoint templates, status codes, names
 * from fixed lists, and workspace ids through `workspaceLabel` (the first WORKSPACE_LABELS_MAX seen, then
 * `other`) — never tokens, other ids or user text.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Store } from '../store/index.js';
import { withDeadline } from '../util/deadline.js';

export interface Metrics {
  readonly registry: Registry;
  readonly commands: Counter<'subcommand' | 'outcome'>;
  readonly platformRequests: Counter<'endpoint' | 'status'>;
  readonly platformLatency: Histogram<'endpoint'>;
  readonly platformTurnsRefused: Counter<'lane' | 'reason'>;
  readonly webhookRequests: Counter<'status'>;
  /** Webhook deliveries refused 429 because the workspace's backlog was full; `limit`: `events` or `bytes`. */
  readonly webhookBacklogFull: Counter<'workspace' | 'limit'>;
  /** The `workspace` label value for a team id (bounded: see WORKSPACE_LABELS_MAX). */
  readonly workspaceLabel: (teamId: string) => string;
  readonly eventsQueued: Counter<'trigger' | 'result'>;
  readonly eventsPosted: Counter<'trigger'>;
  readonly eventsDeadLettered: Counter<'trigger'>;
  readonly slackRateLimited: Counter<'method'>;
  /** Slack's warnings on calls it took (`response_metadata.warnings`): metadata dropped turns idempotency off. */
  readonly slackWarnings: Counter<'method' | 'warning'>;
  /** Slack's `app_rate_limited` notices: it is dropping events for the workspace (over 30,000 an hour). */
  readonly slackAppRateLimited: Counter<'workspace'>;
  /** 1 while Slack refuses the bot token (one workspace's: /readyz asks auth.test), else 0. */
  readonly slackTokenRefused: Gauge;
  /** How long a channel's oldest waiting post had waited when it went out, by outbox lane. */
  readonly deliveryLag: Histogram<'lane'>;
}

/** Workspaces named in `workspace` labels per process; the rest share `other`, so a series count stays bounded. */
const WORKSPACE_LABELS_MAX = 100;

function workspaceLabels(): (teamId: string) => string {
  const named = new Set<string>();
  return (teamId) => {
    if (named.has(teamId)) return teamId;
    // Slack team and enterprise ids only (T…/E…): nothing else ever becomes a label value.
    if (named.size >= WORKSPACE_LABELS_MAX || !/^[TE][A-Z0-9]{1,20}$/.test(teamId)) return 'other';
    named.add(teamId);
    return teamId;
  };
}

/** A scrape waits this long for the store's ping (as /readyz does). */
const STORE_PING_MS = 1_000;

/** `droppedLogLines`: log lines the process's stdout dropped so far (`BoundedLogOutput.dropped`). */
export function createMetrics(store: Pick<Store, 'queue' | 'ping' | 'outbox'>, droppedLogLines: () => number): Metrics {
  const { queue } = store;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'campaign_bot_' });

  const depth = (pick: 'total' | 'pending' | 'lag') =>
    async function (this: Gauge) {
      try {
        this.set((await queue.depth())[pick]);
      } catch {
        // Store unreachable: leave the last value; /readyz reports the outage.
      }
    };

  new Gauge({
    name: 'campaign_queue_depth',
    help: 'Events queued and not finished yet',
    registers: [registry],
    collect: depth('total'),
  });
  new Gauge({
    name: 'campaign_queue_lag',
    help: 'Events queued and not yet taken by any worker',
    registers: [registry],
    collect: depth('lag'),
  });
  new Gauge({
    name: 'campaign_queue_pending',
    help: 'Events taken by a worker and not finished',
    registers: [registry],
    collect: depth('pending'),
  });

  new Gauge({
    name: 'campaign_outbox_channels_waiting',
    help: 'Channels with posts waiting in their outbox for Slack (their budget, a 429, an outage, a pause)',
    registers: [registry],
    async collect() {
      try {
        this.set(await store.outbox.waitingChannels());
      } catch {
        // Store unreachable: leave the last value; /readyz reports the outage.
      }
    },
  });

  // What /readyz's store check says, for alerts: Prometheus scrapes every replica, probes reach only the kubelet.
  new Gauge({
    name: 'campaign_store_up',
    help: 'Whether the store answered a ping within 1 s at this scrape (1) or not (0)',
    registers: [registry],
    async collect() {
      const up = await withDeadline(store.ping(), STORE_PING_MS, 'store ping').then(
        () => 1,
        () => 0,
      );
      this.set(up);
    },
  });

  new Counter({
    name: 'campaign_log_lines_dropped_total',
    help: 'Log lines dropped because the reader of stdout fell behind',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(droppedLogLines());
    },
  });

  return {
    registry,
    commands: new Counter({
      name: 'campaign_commands_total',
      help: '/campaign subcommands handled',
      labelNames: ['subcommand', 'outcome'],
      registers: [registry],
    }),
    platformRequests: new Counter({
      name: 'campaign_platform_requests_total',
      help: 'HTTP attempts to the campaign platform',
      labelNames: ['endpoint', 'status'],
      registers: [registry],
    }),
    platformLatency: new Histogram({
      name: 'campaign_platform_request_seconds',
      help: 'Latency of platform HTTP attempts',
      labelNames: ['endpoint'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    platformTurnsRefused: new Counter({
      name: 'campaign_platform_turns_refused_total',
      help: 'Platform requests not sent because their workspace had too many waiting (full) or waited too long (waited)',
      labelNames: ['lane', 'reason'],
      registers: [registry],
    }),
    webhookRequests: new Counter({
      name: 'campaign_webhook_requests_total',
      help: 'Webhook deliveries by HTTP status answered',
      labelNames: ['status'],
      registers: [registry],
    }),
    webhookBacklogFull: new Counter({
      name: 'campaign_webhook_backlog_full_total',
      help: 'Webhook deliveries refused 429 because the workspace had HOOK_MAX_BACKLOG events (limit=events) or HOOK_MAX_BACKLOG_MB (limit=bytes) not yet posted',
      labelNames: ['workspace', 'limit'],
      registers: [registry],
    }),
    workspaceLabel: workspaceLabels(),
    slackAppRateLimited: new Counter({
      name: 'campaign_slack_app_rate_limited_total',
      help: "Slack's app_rate_limited notices: Slack is holding back events it would send for the workspace",
      labelNames: ['workspace'],
      registers: [registry],
    }),
    slackTokenRefused: new Gauge({
      name: 'campaign_slack_token_refused',
      help: 'Whether Slack refuses the bot token (SLACK_BOT_TOKEN) at the last auth.test: 1 refused, 0 accepted or not asked',
      registers: [registry],
    }),
    eventsQueued: new Counter({
      name: 'campaign_events_queued_total',
      help: 'Webhook events accepted (queued or duplicate)',
      labelNames: ['trigger', 'result'],
      registers: [registry],
    }),
    eventsPosted: new Counter({
      name: 'campaign_events_posted_total',
      help: 'Events delivered to Slack',
      labelNames: ['trigger'],
      registers: [registry],
    }),
    eventsDeadLettered: new Counter({
      name: 'campaign_events_dead_lettered_total',
      help: 'Events given up after the last attempt',
      labelNames: ['trigger'],
      registers: [registry],
    }),
    slackRateLimited: new Counter({
      name: 'campaign_slack_rate_limited_total',
      help: 'Slack 429 answers',
      labelNames: ['method'],
      registers: [registry],
    }),
    slackWarnings: new Counter({
      name: 'campaign_slack_warnings_total',
      help: 'Warnings Slack answered calls it took with (response_metadata.warnings), by method and warning',
      labelNames: ['method', 'warning'],
      registers: [registry],
    }),
    deliveryLag: new Histogram({
      name: 'campaign_delivery_lag_seconds',
      help: 'From an event’s arrival to its post, for the oldest post waiting in a channel’s outbox lane',
      labelNames: ['lane'],
      buckets: [1, 2, 5, 10, 30, 60, 300, 900, 3600, 86_400],
      registers: [registry],
    }),
  };
}
