/**
 * The runtime contract (docs/PRODUCT.md › Runtime contract), parsed once at start.
 *
 * This is the only module that reads `process.env`. Everything else receives a typed `Config`.
 * A bad or missing value produces one readable line per problem — the variable name and what is
 * wrong with it, never its value (several of these are secrets).
 */
import { isIP } from 'node:net';
import { z } from 'zod';

const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

type SlackMode =
  { kind: 'single'; botToken: string } | { kind: 'oauth'; clientId: string; clientSecret: string; stateSecret: string };

export interface Config {
  slack: {
    mode: SlackMode;
    /** Present when Socket Mode carries Slack traffic instead of HTTP. */
    appToken?: string;
    /** Required in HTTP mode; unused in Socket Mode. */
    signingSecret?: string;
    /** The Slack every host derives from (SLACK_DOMAIN): `slack.com`, or `slack-gov.com` for GovSlack. */
    domain: string;
    apiUrl: string;
    /**
     * conversations.history / .replies reads a workspace may make a minute (`SLACK_HISTORY_PER_MINUTE`): Slack's
     * 2025 limit for apps distributed outside the Marketplace is 1 (https://docs.slack.dev/reference/methods/conversations.history).
     */
    historyPerMinute: number;
  };
  campaign: {
    /** Platform base URL, including `/v1/api`. */
    apiUrl: string;
    /** Default key for a single workspace; workspaces may store their own with `/campaign connect`. */
    apiKey?: string;
    /** The one workspace `apiKey` serves (required in OAuth mode); any workspace when absent (single-workspace mode). */
    apiKeyTeam?: string;
  };
  redisUrl?: string;
  /** A Redis Cluster instead of `redisUrl` (its seed nodes; `password` from REDIS_PASSWORD). */
  redisCluster?: { nodes: ReadonlyArray<{ host: string; port: number }>; password?: string };
  port: number;
  /** OPS_PORT: when set, `/healthz`, `/readyz` and `/metrics` are served on this port only (not on `port`). */
  opsPort?: number;
  /**
   * TRUSTED_PROXIES: addresses and CIDR ranges of the proxies in front of the bot; a request from one of them is
   * counted against the client X-Forwarded-For names (the nearest address not itself a proxy).
   */
  trustedProxies: readonly string[];
  /** Public https base of this bot, used to build webhook hook URLs. */
  publicUrl?: string;
  /** 32-byte AES-256-GCM keys for stored secrets: the first encrypts, every one decrypts (key rotation). */
  secretsKeys?: readonly Buffer[];
  /** When set, `GET /metrics` requires `Authorization: Bearer <metricsToken>`. */
  metricsToken?: string;
  /** ADMIN_USER_IDS: admins besides Slack's own; in OAuth mode each names its workspace. */
  adminUsers: readonly AdminUser[];
  logLevel: LogLevel;
  /**
   * Webhook intake: per-workspace backlog caps — events, and bytes of their payloads (HOOK_MAX_BACKLOG_MB) — and
   * how long a rotated-out hook token still works (s).
   */
  hooks: { maxBacklog: number; maxBacklogBytes: number; tokenGraceS: number };
  /** How often channels with quota alerts have the month's usage checked (s). */
  quotaCheckS: number;
  /**
   * Handoff threads: a customer message unanswered this long (seconds) gets one nudge, unless a channel sets its
   * own; a conversation's texts, links and threads are kept this many days after its last activity (closing it).
   */
  handoff: { slaS: number; retentionDays: number };
  /** Files an agent sends a customer: how long each link (`PUBLIC_URL/attachments/<token>`) works, in seconds. */
  attachments: { ttlS: number };
  /**
   * Call recordings copied into the card's thread: from public https hosts and the `hosts` listed (any scheme
   * and address; a host without a port matches every port), or `off` (links only); at most `maxBytes`.
   */
  recordings: { hosts: 'off' | readonly RecordingHost[]; maxBytes: number };
  /** Traces (OTLP/HTTP JSON), only when the standard OTEL_* variables ask for them (docs/OPERATIONS.md › Traces). */
  tracing?: TracingConfig;
}

export interface TracingConfig {
  serviceName: string;
  /** Where spans are POSTed: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is, or OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`. */
  url: string;
  /** OTEL_EXPORTER_OTLP_HEADERS (e.g. a vendor's API key): secrets, pinned in the log redactor. */
  headers: Readonly<Record<string, string>>;
  /** Share of new traces kept (OTEL_TRACES_SAMPLER); a trace started elsewhere keeps its parent's choice. */
  sampleRatio: number;
}

export interface RecordingHost {
  /** As a URL's `hostname` reads (lower case, IPv6 in brackets). */
  hostname: string;
  port?: number;
}

/** A user ADMIN_USER_IDS makes an admin: of `teamId` only (`TEAMID:USERID`), or of the one workspace (a bare id). */
export interface AdminUser {
  teamId?: string;
  userId: string;
}

export type ConfigResult = { ok: true; config: Config } | { ok: false; problems: string[] };

/** Names whose presence means "this is a real deployment" (the playground starts only without them). */
export const DEPLOYMENT_VARIABLES = [
  'SLACK_BOT_TOKEN',
  'SLACK_CLIENT_ID',
  'SLACK_CLIENT_SECRET',
  'SLACK_STATE_SECRET',
  'SLACK_APP_TOKEN',
  'SLACK_SIGNING_SECRET',
  'CAMPAIGN_API_URL',
] as const;

type Env = Readonly<Record<string, string | undefined>>;

/** Empty strings count as unset: `FOO= npm start` should behave like not setting FOO. */
const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

const httpUrl = (httpsOnly: boolean) =>
  z.url({
    protocol: httpsOnly ? /^https$/ : /^https?$/,
    error: httpsOnly ? 'must be an https URL' : 'must be an http(s) URL',
  });

/** Keys and tokens travel to this URL: https, or plain http only to this machine (a local fake or a sidecar). */
const serviceUrl = z.string().superRefine((v, ctx) => {
  const url = URL.canParse(v) ? new URL(v) : undefined;
  if (!url || !/^https?:$/.test(url.protocol)) ctx.addIssue({ code: 'custom', message: 'must be an http(s) URL' });
  else if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    ctx.addIssue({
      code: 'custom',
      message:
        'must be https (plain http only to loopback: localhost, 127.0.0.0/8, ::1), or secrets would travel in clear',
    });
  }
});

/** Comma-separated ring of 32-byte base64 keys; the first encrypts, all decrypt. Problems name the position, never the value. */
const secretsKeyRing = z.string().transform((v, ctx) => {
  const parts = commaList(v);
  const keys = parts.map((p) => (/^[A-Za-z0-9+/_-]+={0,2}$/.test(p) ? Buffer.from(p, 'base64') : Buffer.alloc(0)));
  const bad = keys.flatMap((k, i) => (k.length === 32 ? [] : [i + 1]));
  if (bad.length === 0) return keys;
  const which = parts.length > 1 ? `key ${bad.join(', ')} of ${parts.length} ` : '';
  ctx.addIssue({
    code: 'custom',
    message: `${which}must be 32 bytes encoded in base64 (e.g. \`openssl rand -base64 32\`); to rotate, list the new key first, comma-separated`,
  });
  return z.NEVER;
});

const MIB = 1024 * 1024;

/** `a, b,,c` → `['a', 'b', 'c']`. */
function commaList(v: string): string[] {
  return v
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
}

const wholeNumber = (min: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`));

/** One ADMIN_USER_IDS entry: `U…` / `W…`, optionally after its workspace's team id (`T…:`). */
const ADMIN_USER = /^(?:(T[A-Z0-9]+):)?([UW][A-Z0-9]+)$/;

function adminUser(entry: string): AdminUser {
  const [, teamId, userId = ''] = ADMIN_USER.exec(entry) ?? [];
  return teamId ? { teamId, userId } : { userId };
}

/** `off`, or comma-separated `host[:port]` (IPv6 in brackets). */
const recordingHosts = z.string().transform((v, ctx): 'off' | RecordingHost[] => {
  if (v.toLowerCase() === 'off') return 'off';
  const entries = v.split(',').map((e) => e.trim());
  const hosts = entries.filter(Boolean).map((entry): RecordingHost | undefined => {
    const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(entry);
    const port = m?.[2] === undefined ? undefined : Number(m[2]);
    if (!m || !URL.canParse(`http://${m[1]}`) || port === 0 || (port ?? 0) > 65535) return undefined;
    return { hostname: new URL(`http://${m[1]}`).hostname, ...(port === undefined ? {} : { port }) };
  });
  if (hosts.every((h) => h !== undefined)) return hosts;
  ctx.addIssue({ code: 'custom', message: 'must be `off` or host[:port] entries, comma-separated' });
  return z.NEVER;
});

function portNumber() {
  return z
    .string()
    .regex(/^\d{1,5}$/, 'must be a port number')
    .transform(Number)
    .pipe(z.number().max(65535, 'must be between 0 and 65535'));
}

/** `10.0.0.7`, `10.0.0.0/8`, `fd00::/8`: what TRUSTED_PROXIES lists. */
function isAddressOrRange(entry: string): boolean {
  const [address = '', bits, more] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || more !== undefined) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
}

/** OTEL_EXPORTER_OTLP_HEADERS: `key=value` pairs, comma-separated, values percent-encoded (the OTel spec's form). */
const otlpHeaders = z.string().transform((v, ctx) => {
  const headers: Record<string, string> = {};
  for (const pair of commaList(v)) {
    const at = pair.indexOf('=');
    const name = at > 0 ? pair.slice(0, at).trim() : '';
    let value: string | undefined;
    try {
      value = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      value = undefined;
    }
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name) || !value) {
      ctx.addIssue({ code: 'custom', message: 'must be key=value pairs, comma-separated (values percent-encoded)' });
      return z.NEVER;
    }
    headers[name] = value;
  }
  return headers;
});

const TRACE_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

const envSchema = z.object({
  SLACK_SIGNING_SECRET: optionalText,
  SLACK_BOT_TOKEN: optionalText.pipe(
    z.string().startsWith('xoxb-', 'must be a bot token (starts with xoxb-)').optional(),
  ),
  SLACK_CLIENT_ID: optionalText,
  SLACK_CLIENT_SECRET: optionalText,
  SLACK_STATE_SECRET: optionalText.pipe(
    z.string().min(32, 'must have at least 32 characters (e.g. `openssl rand -hex 32`)').optional(),
  ),
  SLACK_APP_TOKEN: optionalText.pipe(
    z.string().startsWith('xapp-', 'must be an app-level token (starts with xapp-)').optional(),
  ),
  SLACK_DOMAIN: optionalText.pipe(
    z
      .string()
      .regex(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/i, 'must be a domain name: slack.com, or slack-gov.com for GovSlack')
      .optional(),
  ),
  SLACK_API_URL: optionalText.pipe(serviceUrl.optional()),
  SLACK_HISTORY_PER_MINUTE: optionalText.pipe(wholeNumber(1).optional()),
  CAMPAIGN_API_URL: optionalText.pipe(serviceUrl.optional()),
  CAMPAIGN_API_KEY: optionalText,
  CAMPAIGN_API_KEY_TEAM: optionalText.pipe(
    z
      .string()
      .regex(/^T[A-Z0-9]+$/, 'must be a Slack team id like T0123ABC')
      .optional(),
  ),
  METRICS_TOKEN: optionalText.pipe(z.string().min(16, 'must have at least 16 characters').optional()),
  REDIS_URL: optionalText.pipe(
    z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' }).optional(),
  ),
  REDIS_CLUSTER_NODES: optionalText.pipe(
    z
      .string()
      .transform(commaList)
      .pipe(z.array(z.string().regex(/^[A-Za-z0-9.-]+:\d{1,5}$/, 'must be host:port pairs, comma-separated')).min(1))
      .transform((nodes) =>
        nodes.map((node) => ({
          host: node.slice(0, node.lastIndexOf(':')),
          port: Number(node.slice(node.lastIndexOf(':') + 1)),
        })),
      )
      .optional(),
  ),
  REDIS_PASSWORD: optionalText,
  PORT: optionalText.pipe(portNumber().optional()),
  OPS_PORT: optionalText.pipe(portNumber().optional()),
  TRUSTED_PROXIES: optionalText.pipe(
    z
      .string()
      .transform((v) => v.split(',').map((a) => a.trim()))
      .pipe(z.array(z.string().refine(isAddressOrRange, 'must be IP addresses or CIDR ranges, comma-separated')))
      .optional(),
  ),
  PUBLIC_URL: optionalText.pipe(httpUrl(true).optional()),
  SECRETS_KEY: optionalText.pipe(secretsKeyRing.optional()),
  ADMIN_USER_IDS: optionalText.pipe(
    z
      .string()
      .transform(commaList)
      .pipe(
        z.array(
          z
            .string()
            .regex(
              ADMIN_USER,
              'must be Slack user ids like U0123ABC, or TEAMID:USERID pairs like T0123ABC:U0456DEF, comma-separated',
            )
            .transform(adminUser),
        ),
      )
      .optional(),
  ),
  LOG_LEVEL: optionalText.pipe(z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).optional()),
  HOOK_MAX_BACKLOG: optionalText.pipe(wholeNumber(1).optional()),
  HOOK_MAX_BACKLOG_MB: optionalText.pipe(wholeNumber(1).optional()),
  HOOK_TOKEN_GRACE_S: optionalText.pipe(wholeNumber(0).optional()),
  QUOTA_CHECK_S: optionalText.pipe(wholeNumber(60).optional()),
  HANDOFF_SLA_S: optionalText.pipe(wholeNumber(1).optional()),
  CONVERSATION_RETENTION_DAYS: optionalText.pipe(
    wholeNumber(1).pipe(z.number().max(3650, 'must be at most 3650 (ten years)')).optional(),
  ),
  RECORDING_HOSTS: optionalText.pipe(recordingHosts.optional()),
  // A link a customer got should not outlive the conversation it was sent in by much: 30 days at most.
  ATTACHMENT_TTL_S: optionalText.pipe(
    wholeNumber(1).pipe(z.number().max(2_592_000, 'must be at most 2592000 (30 days)')).optional(),
  ),
  // 1 GB: the largest file Slack takes.
  RECORDING_MAX_MB: optionalText.pipe(wholeNumber(1).pipe(z.number().max(1000, 'must be at most 1000')).optional()),
  // Traces: the OpenTelemetry SDK's standard variables, the part of them this bot supports.
  OTEL_SDK_DISABLED: optionalText.pipe(z.enum(['true', 'false'], { error: 'must be true or false' }).optional()),
  OTEL_TRACES_EXPORTER: optionalText.pipe(
    z.enum(['otlp', 'none'], { error: 'must be otlp or none (traces go out over OTLP/HTTP only)' }).optional(),
  ),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalText.pipe(httpUrl(false).optional()),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalText.pipe(httpUrl(false).optional()),
  OTEL_EXPORTER_OTLP_PROTOCOL: optionalText.pipe(otlpProtocol().optional()),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: optionalText.pipe(otlpProtocol().optional()),
  OTEL_EXPORTER_OTLP_HEADERS: optionalText.pipe(otlpHeaders.optional()),
  OTEL_SERVICE_NAME: optionalText,
  OTEL_TRACES_SAMPLER: optionalText.pipe(
    z.enum(TRACE_SAMPLERS, { error: `must be one of ${TRACE_SAMPLERS.join(', ')}` }).optional(),
  ),
  OTEL_TRACES_SAMPLER_ARG: optionalText.pipe(
    z
      .string()
      .regex(/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/, 'must be a number from 0 to 1')
      .transform(Number)
      .optional(),
  ),
});

/** Parses an environment. Pure: callers pass `process.env` as `readProcessEnv` reads it, or a test's own. */
export function parseConfig(env: Env): ConfigResult {
  const parsed = envSchema.safeParse(env);
  // Issues name the variable (path[0]) and the rule; zod 4 never echoes the input in these messages.
  const problems = parsed.success ? [] : parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`);
  // Cross-variable rules look at presence only, so they are reported even when a value is malformed.
  const isSet = (name: string) => Boolean(env[name]?.trim());
  const oauthNames = ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET', 'SLACK_STATE_SECRET'] as const;
  const anyOauth = oauthNames.some(isSet);
  if (isSet('SLACK_BOT_TOKEN') && anyOauth) {
    problems.push(
      'SLACK_BOT_TOKEN: set either it (one workspace) or SLACK_CLIENT_ID/SLACK_CLIENT_SECRET/SLACK_STATE_SECRET (OAuth), not both',
    );
  } else if (anyOauth) {
    for (const name of oauthNames) if (!isSet(name)) problems.push(`${name}: required for OAuth multi-workspace mode`);
  } else if (!isSet('SLACK_BOT_TOKEN')) {
    problems.push(
      'SLACK_BOT_TOKEN: required (or SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET for OAuth)',
    );
  }
  if (!isSet('SLACK_APP_TOKEN') && !isSet('SLACK_SIGNING_SECRET')) {
    problems.push('SLACK_SIGNING_SECRET: required in HTTP mode (or set SLACK_APP_TOKEN for Socket Mode)');
  }
  if (!isSet('CAMPAIGN_API_URL'))
    problems.push('CAMPAIGN_API_URL: required (the platform base URL, ending in /v1/api)');
  if (anyOauth && !isSet('SLACK_BOT_TOKEN') && isSet('CAMPAIGN_API_KEY') && !isSet('CAMPAIGN_API_KEY_TEAM')) {
    // Without it every workspace that installs the app would run on the operator's platform account.
    problems.push(
      'CAMPAIGN_API_KEY_TEAM: required with CAMPAIGN_API_KEY in OAuth mode (the team id of the one workspace the key serves; others run /campaign connect)',
    );
  }
  if (anyOauth && !isSet('SLACK_BOT_TOKEN')) {
    // A bare id would make that user an admin of every workspace that installs the app (e.g. able to replace
    // another workspace's platform key).
    const listed = envSchema.shape.ADMIN_USER_IDS.safeParse(env.ADMIN_USER_IDS).data ?? [];
    const bare = listed.filter((a) => a.teamId === undefined).length;
    if (bare > 0)
      problems.push(
        `ADMIN_USER_IDS: in OAuth mode each entry names its workspace, TEAMID:USERID (e.g. T0123ABC:U0456DEF); ${bare} of ${listed.length} do not`,
      );
  }
  if (isSet('CAMPAIGN_API_KEY_TEAM') && !isSet('CAMPAIGN_API_KEY'))
    problems.push('CAMPAIGN_API_KEY_TEAM: set only together with CAMPAIGN_API_KEY');
  if (isSet('REDIS_URL') && isSet('REDIS_CLUSTER_NODES')) {
    problems.push('REDIS_CLUSTER_NODES: set either it (a Redis Cluster) or REDIS_URL (one Redis), not both');
  }
  for (const name of ['REDIS_URL', 'REDIS_CLUSTER_NODES']) {
    if (isSet(name) && !isSet('SECRETS_KEY'))
      problems.push(`SECRETS_KEY: required when ${name} is set (stored API keys are encrypted with it)`);
  }
  if (isSet('REDIS_PASSWORD') && !isSet('REDIS_CLUSTER_NODES')) {
    problems.push('REDIS_PASSWORD: used with REDIS_CLUSTER_NODES only (for REDIS_URL, put the password in the URL)');
  }
  const port = (name: string) => env[name]?.trim() || (name === 'PORT' ? '3000' : '');
  if (isSet('OPS_PORT') && port('OPS_PORT') !== '0' && Number(port('OPS_PORT')) === Number(port('PORT'))) {
    problems.push('OPS_PORT: must differ from PORT (it keeps /healthz, /readyz and /metrics off the public port)');
  }
  if (tracingAsked(isSet) && isSet('OTEL_EXPORTER_OTLP_HEADERS')) {
    // The headers usually hold a vendor's key: never in clear beyond this machine.
    for (const name of ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT'].filter(isSet)) {
      if (!serviceUrl.safeParse(env[name]?.trim()).success)
        problems.push(`${name}: must be https when OTEL_EXPORTER_OTLP_HEADERS is set (plain http only to loopback)`);
    }
  }
  if (!parsed.success || problems.length > 0) return { ok: false, problems };

  const e = parsed.data;
  const mode: SlackMode = e.SLACK_BOT_TOKEN
    ? { kind: 'single', botToken: e.SLACK_BOT_TOKEN }
    : {
        kind: 'oauth',
        clientId: e.SLACK_CLIENT_ID ?? '',
        clientSecret: e.SLACK_CLIENT_SECRET ?? '',
        stateSecret: e.SLACK_STATE_SECRET ?? '',
      };
  const campaignApiUrl = e.CAMPAIGN_API_URL ?? '';
  const slackDomain = (e.SLACK_DOMAIN ?? 'slack.com').toLowerCase();

  const config: Config = {
    slack: {
      mode,
      ...(e.SLACK_APP_TOKEN ? { appToken: e.SLACK_APP_TOKEN } : {}),
      ...(e.SLACK_SIGNING_SECRET ? { signingSecret: e.SLACK_SIGNING_SECRET } : {}),
      domain: slackDomain,
      apiUrl: withTrailingSlash(e.SLACK_API_URL ?? `https://${slackDomain}/api/`),
      // A single bot token is most often an internal app (exempt from the 2025 limit); OAuth means distribution.
      historyPerMinute: e.SLACK_HISTORY_PER_MINUTE ?? (mode.kind === 'oauth' ? 1 : 50),
    },
    campaign: {
      apiUrl: campaignApiUrl.replace(/\/+$/, ''),
      ...(e.CAMPAIGN_API_KEY ? { apiKey: e.CAMPAIGN_API_KEY } : {}),
      ...(e.CAMPAIGN_API_KEY_TEAM ? { apiKeyTeam: e.CAMPAIGN_API_KEY_TEAM } : {}),
    },
    ...(e.REDIS_URL ? { redisUrl: e.REDIS_URL } : {}),
    ...(e.REDIS_CLUSTER_NODES
      ? { redisCluster: { nodes: e.REDIS_CLUSTER_NODES, ...(e.REDIS_PASSWORD ? { password: e.REDIS_PASSWORD } : {}) } }
      : {}),
    port: e.PORT ?? 3000,
    ...(e.OPS_PORT === undefined ? {} : { opsPort: e.OPS_PORT }),
    trustedProxies: e.TRUSTED_PROXIES ?? [],
    ...(e.PUBLIC_URL ? { publicUrl: e.PUBLIC_URL.replace(/\/+$/, '') } : {}),
    ...(e.SECRETS_KEY ? { secretsKeys: e.SECRETS_KEY } : {}),
    ...(e.METRICS_TOKEN ? { metricsToken: e.METRICS_TOKEN } : {}),
    adminUsers: e.ADMIN_USER_IDS ?? [],
    logLevel: e.LOG_LEVEL ?? 'info',
    hooks: {
      maxBacklog: e.HOOK_MAX_BACKLOG ?? 20_000,
      maxBacklogBytes: (e.HOOK_MAX_BACKLOG_MB ?? 64) * MIB,
      tokenGraceS: e.HOOK_TOKEN_GRACE_S ?? 600,
    },
    quotaCheckS: e.QUOTA_CHECK_S ?? 900,
    handoff: { slaS: e.HANDOFF_SLA_S ?? 300, retentionDays: e.CONVERSATION_RETENTION_DAYS ?? 30 },
    recordings: { hosts: e.RECORDING_HOSTS ?? [], maxBytes: (e.RECORDING_MAX_MB ?? 50) * 1024 * 1024 },
    attachments: { ttlS: e.ATTACHMENT_TTL_S ?? 86_400 },
    ...(tracingAsked(isSet) && e.OTEL_SDK_DISABLED !== 'true' && e.OTEL_TRACES_EXPORTER !== 'none'
      ? {
          tracing: {
            serviceName: e.OTEL_SERVICE_NAME ?? 'campaign-slack-bot',
            url:
              e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
              `${(e.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://localhost:4318').replace(/\/+$/, '')}/v1/traces`,
            headers: e.OTEL_EXPORTER_OTLP_HEADERS ?? {},
            sampleRatio: sampleRatio(e.OTEL_TRACES_SAMPLER, e.OTEL_TRACES_SAMPLER_ARG),
          },
        }
      : {}),
  };
  return { ok: true, config };
}

/** Traces are off unless an exporter or an endpoint is named (the SDK's own default would send to localhost). */
function tracingAsked(isSet: (name: string) => boolean): boolean {
  return ['OTEL_TRACES_EXPORTER', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'].some(isSet);
}

/** The spec's samplers as a ratio of new traces (a remote parent's choice is always kept: see src/app/tracing.ts). */
function sampleRatio(sampler: (typeof TRACE_SAMPLERS)[number] | undefined, arg: number | undefined): number {
  if (sampler === 'always_off' || sampler === 'parentbased_always_off') return 0;
  if (sampler === 'traceidratio' || sampler === 'parentbased_traceidratio') return arg ?? 1;
  return 1;
}

/** The bot sends OTLP as JSON over HTTP: what the Collector's OTLP/HTTP receiver (port 4318) takes. */
function otlpProtocol() {
  return z.literal('http/json', { error: 'must be http/json (the only OTLP protocol this bot sends)' });
}

/**
 * What a list of problems amounts to, for the line above it: how many required variables are unset (their
 * problem says `NAME: required…`) and how many values are not valid (malformed, or at odds with another).
 */
export function problemsHeading(problems: readonly string[]): string {
  const missing = problems.filter((p) => /^\w+: required\b/.test(p)).length;
  const invalid = problems.length - missing;
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  return [
    missing > 0 ? count(missing, 'required variable is not set', 'required variables are not set') : '',
    invalid > 0 ? count(invalid, 'value is not valid', 'values are not valid') : '',
  ]
    .filter(Boolean)
    .join(' and ');
}

/** True when no deployment variable is set at all: then `npm start` runs the playground (docs/PRODUCT.md › Runtime contract). */
export function isUnconfigured(env: Env): boolean {
  return DEPLOYMENT_VARIABLES.every((name) => !env[name]?.trim());
}

/** Where the playground's embedded Slack stand-in and platform simulator listen, and the secrets made for it. */
export interface PlaygroundEndpoints {
  slackApiUrl: string;
  botToken: string;
  signingSecret: string;
  campaignApiUrl: string;
  campaignApiKey: string;
  /** 32 bytes, base64. */
  secretsKey: string;
  /** The playground's admins (its people who may run admin subcommands). */
  adminUserIds: readonly string[];
  /** `host:port` of the simulator's recordings (RECORDING_HOSTS). */
  recordingHosts?: string;
}

/**
 * Only used to build hook URLs in the playground: `.invalid` can never resolve (RFC 2606), so a hook URL
 * that leaked out of the playground could not reach anything. The simulator delivers to the bot directly.
 */
export const PLAYGROUND_PUBLIC_URL = 'https://playground.invalid';

/**
 * The Config of the playground: the same parser, fed the embedded stand-ins' addresses and fresh
 * secrets. Only `PORT` and `LOG_LEVEL` are taken from the environment; the playground always keeps its state
 * in memory (a Redis left over from a real setup must not mix with a throwaway workspace).
 * Callers decide *whether* to run the playground (`isUnconfigured`); this only builds its Config.
 */
export function parsePlaygroundConfig(env: Env, endpoints: PlaygroundEndpoints): ConfigResult {
  return parseConfig({
    PORT: env.PORT,
    LOG_LEVEL: env.LOG_LEVEL,
    SLACK_BOT_TOKEN: endpoints.botToken,
    SLACK_SIGNING_SECRET: endpoints.signingSecret,
    SLACK_API_URL: endpoints.slackApiUrl,
    CAMPAIGN_API_URL: endpoints.campaignApiUrl,
    CAMPAIGN_API_KEY: endpoints.campaignApiKey,
    PUBLIC_URL: PLAYGROUND_PUBLIC_URL,
    SECRETS_KEY: endpoints.secretsKey,
    ADMIN_USER_IDS: endpoints.adminUserIds.join(','),
    RECORDING_HOSTS: endpoints.recordingHosts,
  });
}

/** The one read of `process.env` in the codebase. */
export function readProcessEnv(): Env {
  return process.env;
}

function isLoopback(hostname: string): boolean {
  // WHATWG URL parsing already normalised the host (`127.1` → `127.0.0.1`, `[0::1]` → `[::1]`, lower case).
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

function withTrailingSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}
