import { Cluster, Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';
import type { Logger } from 'pino';

/** One Redis or a Redis Cluster: every store, dedup and queue operation runs on either. */
export type RedisClient = Redis | Cluster;

export interface ClusterSettings {
  nodes: ReadonlyArray<{ host: string; port: number }>;
  password?: string;
}

/**
 * How long any one command may go unanswered before it fails (ioredis `commandTimeout`: the command is rejected
 * with "Command timed out"; a late reply is dropped). A hung Redis — a stopped process, a dead peer that TCP has
 * not noticed — must not hang a slash command: Slack wants its ack within 3 s, and in OAuth mode the installation
 * is read before the ack. 1.5 s leaves time to tell the user and ack, and comes before the 2 s "still working"
 * notice; the slowest command a healthy Redis runs here (a paused channel's waiting calls, at most HOOK_MAX_BACKLOG_MB)
 * takes a fraction of it.
 */
const COMMAND_TIMEOUT_MS = 1_500;

/**
 * Opens an ioredis client with the settings this app relies on:
 * - no auto-pipelining: ioredis writes concurrent commands without waiting for replies anyway, and
 *   auto-pipelining's per-batch objects outlive young-generation
 *   GCs — measured at 2,000 webhooks/s: 5–8 ms scavenges every ~180 ms instead of ~1 ms, which set the p99;
 * - a small per-command retry budget, so that while Redis is down a webhook gets its 503 within seconds
 *   instead of hanging on ioredis' default 20 reconnect attempts;
 * - a deadline on every command (COMMAND_TIMEOUT_MS), so that a Redis that stops answering fails a command
 *   instead of holding it (blocking reads get a connection of their own without it: `blockingConnection`);
 * - an operator told when it does not answer (reportOutages).
 */
export function openRedis(url: string, logger: Logger, overrides: RedisOptions = {}): Redis {
  const redis = new Redis(url, {
    maxRetriesPerRequest: 3,
    connectTimeout: 5_000,
    commandTimeout: COMMAND_TIMEOUT_MS,
    // A command that failed for its caller is never sent later: ioredis would send a timed-out one again when
    // the connection is back (redis/ioredis#2130) — a call left in its outbox twice, a claim taken behind its caller's back.
    autoResendUnfulfilledCommands: false,
    ...overrides,
  });
  // Same reason: once connected, a command issued while the connection is down fails at once instead of
  // waiting in the offline queue, from where a timed-out one would still be sent.
  redis.once('ready', () => {
    redis.options.enableOfflineQueue = overrides.enableOfflineQueue ?? false;
  });
  reportOutages(redis, logger, { name: `Redis at ${addressOf(url)}`, variable: 'REDIS_URL' });
  return redis;
}

/** `redis://host:port` of a URL: never its user name, password or database. */
function addressOf(url: string): string {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  return parsed ? `${parsed.protocol}//${parsed.host}` : 'the configured address';
}

/**
 * A Redis Cluster client with the same settings. Keys a script touches together share a hash tag
 * (`src/store/keys.ts`), so every script runs on one node; `MOVED`/`ASK` redirects are followed by ioredis.
 */
export function openRedisCluster(settings: ClusterSettings, logger: Logger): Cluster {
  const password = settings.password;
  const cluster = new Cluster(
    settings.nodes.map((n) => ({ host: n.host, port: n.port })),
    {
      // Off (as on one Redis, see openRedis); on a cluster also because ioredis batches auto-pipelined commands per
      // node, and a batch spanning slots comes back MOVED instead of being redirected (redis/ioredis#1890, #2075).
      enableAutoPipelining: false,
      // While a master fails over or restarts, commands wait for the slot map instead of failing at once.
      retryDelayOnClusterDown: 200,
      retryDelayOnFailover: 200,
      redisOptions: {
        maxRetriesPerRequest: 3,
        connectTimeout: 5_000,
        commandTimeout: COMMAND_TIMEOUT_MS,
        ...(password ? { password } : {}),
      },
    },
  );
  const nodes = settings.nodes.map((n) => `${n.host}:${n.port}`).join(',');
  reportOutages(cluster, logger, { name: `the Redis Cluster at ${nodes}`, variable: 'REDIS_CLUSTER_NODES' });
  return cluster;
}

/** A store that has not answered this long is told to the operator; a failover or a restart passes unreported. */
export const OUTAGE_REPORT_MS = 10_000;
/** While it lasts, the operator is told again at most this often. */
export const OUTAGE_REPEAT_MS = 60_000;
/** How often the store is asked (PING): a hung Redis closes nothing, only an unanswered command tells. */
const OUTAGE_CHECK_MS = 2_500;

/**
 * Tells the operator, naming the variable, that the store does not answer: after OUTAGE_REPORT_MS, then once per
 * OUTAGE_REPEAT_MS while it lasts, and when it answers again. Other lines failing for it are at debug (`quiet`).
 */
export function reportOutages(
  redis: RedisClient,
  logger: Logger,
  store: { name: string; variable: string },
  { now = Date.now, everyMs = OUTAGE_CHECK_MS }: { now?: () => number; everyMs?: number } = {},
): { check: () => Promise<void> } {
  const where = `${store.name} (${store.variable})`;
  let downSince: number | undefined;
  let toldAt: number | undefined;
  // The connection's own words (`connect ECONNREFUSED …`) say more than a refused PING's.
  let reason: string | undefined;
  redis.on('error', (error: unknown) => {
    logger.debug({ err: error }, 'redis connection error');
    if (error instanceof Error) reason = error.message.slice(0, 200);
  });
  const seconds = (at: number) => Math.round((at - (downSince ?? at)) / 1000);
  const answered = () => {
    if (toldAt !== undefined) logger.info({ downS: seconds(now()) }, `${where} answers again`);
    downSince = toldAt = reason = undefined;
  };
  const failed = (error: unknown) => {
    if (error instanceof Error) reason ??= error.message.slice(0, 200);
    const at = now();
    downSince ??= at;
    if (at - downSince < OUTAGE_REPORT_MS || (toldAt !== undefined && at - toldAt < OUTAGE_REPEAT_MS)) return;
    toldAt = at;
    logger.warn(
      { downS: seconds(at) },
      `${where} has not answered for ${seconds(at)} s (${reason}): check ${store.variable} and that Redis is running`,
    );
  };
  let checking: Promise<void> | undefined;
  const check = () =>
    (checking ??= redis
      .ping()
      .then(answered, failed)
      .finally(() => (checking = undefined)));
  const timer = setInterval(() => void check(), everyMs);
  timer.unref();
  redis.once('end', () => clearInterval(timer));
  return { check };
}

/** Gives a connection's errors a listener (ioredis prints them to the console otherwise), at debug: see reportOutages. */
export function watchErrors(redis: RedisClient, logger: Logger): void {
  redis.on('error', (error: unknown) => logger.debug({ err: error }, 'redis connection error'));
}

/**
 * A second connection to the same Redis or Cluster for blocking reads (XREADGROUP BLOCK), which must not share
 * one with other commands — and must not have COMMAND_TIMEOUT_MS, or every wait longer than it would fail. A
 * reply still missing 100 ms after its BLOCK time is up resolves as "nothing new" instead (ioredis
 * `blockingTimeout`), so a hung Redis cannot hold a reader forever either.
 */
export function blockingConnection(client: RedisClient): RedisClient {
  // Its own offline queue: it may be opened before the main connection is up. A read that gave up and is sent
  // later only leaves entries pending for this consumer unread, and takeover hands those out again.
  const blocking = { commandTimeout: undefined, blockingTimeout: BLOCKING_SAFETY_NET_MS, enableOfflineQueue: true };
  return client instanceof Cluster
    ? client.duplicate([], {
        enableAutoPipelining: false,
        redisOptions: { ...client.options.redisOptions, ...blocking },
      })
    : client.duplicate({ enableAutoPipelining: false, ...blocking });
}

/** ioredis applies it to a blocking command without a BLOCK time of its own; ours always have one. */
const BLOCKING_SAFETY_NET_MS = 30_000;

/**
 * The connections a full key scan must walk: every master of a cluster, or the one Redis. A cluster client
 * knows its masters only once it has loaded the slot map, so this waits for that first.
 */
export async function scanTargets(client: RedisClient): Promise<Redis[]> {
  if (!(client instanceof Cluster)) return [client];
  if (client.status !== 'ready') {
    await new Promise<void>((resolve, reject) => {
      client.once('ready', resolve);
      client.once('end', () => reject(new Error('the Redis Cluster connection ended before it was ready')));
    });
  }
  return client.nodes('master');
}

/**
 * Whether an error (or one it wraps: Bolt and @slack/oauth keep the original as `original`, others as `cause`)
 * means Redis did not answer — as opposed to Redis answering with an error. ioredis says so only in words:
 * "Command timed out" (`commandTimeout`), "Connection is closed." (its CONNECTION_CLOSED_ERROR_MSG), the
 * refusal of a command while disconnected without an offline queue, and the error classes
 * MaxRetriesPerRequestError and ClusterAllFailedError (their `name`).
 */
export function isStoreUnavailable(error: unknown): boolean {
  // Some callers log the message alone.
  if (typeof error === 'string') return UNANSWERED_MESSAGES.has(error) || error.startsWith(MAX_RETRIES_MESSAGE);
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (UNANSWERED_NAMES.has(current.name) || UNANSWERED_MESSAGES.has(current.message)) return true;
    const wrapped = current as Error & { original?: unknown };
    current = wrapped.original ?? wrapped.cause;
  }
  return false;
}

const MAX_RETRIES_MESSAGE = 'Reached the max retries per request limit';
const UNANSWERED_NAMES: ReadonlySet<string> = new Set(['MaxRetriesPerRequestError', 'ClusterAllFailedError']);
const UNANSWERED_MESSAGES: ReadonlySet<string> = new Set([
  'Command timed out',
  'Connection is closed.',
  "Stream isn't writeable and enableOfflineQueue options is false",
]);
