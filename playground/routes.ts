/**
 * The playground's page and its small JSON API, served by the bot's own HTTP server (Bolt custom routes)
 * only in playground mode:
 *
 *   GET  /                              the page
 *   GET  /playground/assets/<file>      its script and stylesheet (playground/page, read at start)
 *   GET  /playground/state[?since=v]    everything the page shows (`{ version, instance, unchanged: true }` when nothing changed)
 *   POST /playground/command            { channel, text }                     → a signed slash command
 *   POST /playground/message            { channel, text, files? }             → a message event
 *   POST /playground/reply              { channel, threadTs, text, files? }   → a thread reply (message event)
 *   POST /playground/action             a click in a message or view          → a signed block_actions
 *   POST /playground/view-submission    { viewId, values }                    → a signed view_submission
 *   POST /playground/options            { viewId, blockId, actionId, value }  → a signed block_suggestion
 *   POST /playground/view-closed        { viewId }
 *   POST /playground/home               {}                                    → app_home_opened
 *   POST /playground/workflow           { callbackId, inputs }                → a workflow step run (function_executed)
 *   POST /playground/shortcut           { channel, ts, callbackId }           → a message shortcut
 *   POST /playground/upload?name=&type= raw bytes                             → a file in the Slack stand-in
 *   POST /playground/simulate           { trigger, campaignId, … }            → the platform's webhook delivery
 *   POST /playground/report             { digest: true } | { usagePercent }   → digests fired now / usage moved
 *   POST /playground/burst              { campaignId, count }                 → that many calls end at once
 *   POST /playground/you                { userId }                            → the person at the page is someone else
 *   POST /playground/platform           { mode }                              → the simulator normal/slow/down/errors
 *   POST /playground/slack              { mode }                              → the Slack stand-in normal/rate-limited/down/failing/answers-lost
 *   POST /playground/slack-channel      { channel, state }                    → the bot removed, archived, read-only or normal
 *   GET  /playground/files/<id>         a file's bytes (PNG, JPEG and GIF inline, others as a download)
 *   GET  /playground/media/<kind>/<n>   what a recording or voice-preview link plays on the page (local-links.ts)
 *
 * Only for the person at this machine: requests must name a loopback host (no DNS rebinding), and POSTs must
 * carry `X-Playground: 1` (a custom header another site's page cannot send without a CORS preflight we never
 * answer).
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import { z } from 'zod';
import { PLATFORM_MODES } from '../fakes/platform/index.js';
import { CALL_OUTCOME_CHOICES } from './call-outcomes.js';
import type { Outcome } from './page-api.js';
import { PlaygroundInputError, type PlaygroundSession } from './session.js';
import { SIMULATED_TRIGGERS } from './simulate.js';
import { CHANNEL_STATES, SLACK_MODES } from './slack-switch.js';

/** Raster images the page shows inline (never SVG: it can carry script). */
const INLINE_IMAGES = new Set(['image/png', 'image/jpeg', 'image/gif']);

/** What Bolt hands a custom route: the request with its `:params`. */
type RouteRequest = Parameters<CustomRoute['handler']>[0];

function param(req: RouteRequest, name: string): string {
  const value = req.params?.[name];
  return typeof value === 'string' ? value : '';
}

const JSON_LIMIT = 256 * 1024;
/** Audio samples go up to 10 MB each (Slack's upload limit); more lets the page show the bot refusing a bigger one. */
const UPLOAD_LIMIT = 40 * 1024 * 1024;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
const ASSETS: Record<string, string> = {
  'app.js': JS,
  'connection.js': JS,
  'dom.js': JS,
  'home.js': JS,
  'links.js': JS,
  'mentions.js': JS,
  'modal.js': JS,
  'simulator.js': JS,
  'slack-switch.js': JS,
  'try-these.js': JS,
  'uploads.js': JS,
  'workflows.js': JS,
  'app.css': CSS,
  'layout.css': CSS,
  'blocks.css': CSS,
  'panels.css': CSS,
};

/** The page's files, read once at start (a missing file is a broken build: fail loudly then, not per request). */
export function loadPageFiles(dir = new URL('./page/', import.meta.url)): Record<string, Buffer> {
  const files: Record<string, Buffer> = {};
  for (const name of ['index.html', ...Object.keys(ASSETS)]) files[name] = readFileSync(new URL(name, dir));
  return files;
}

const channel = z.string().regex(/^[CGD][A-Z0-9]{2,20}$/);
const ts = z.string().regex(/^\d{1,12}\.\d{1,6}$/);
const rawValues = z.record(z.string(), z.record(z.string(), z.union([z.string(), z.array(z.string()), z.null()])));

const schemas = {
  command: z.object({ channel, text: z.string().max(4000) }),
  message: z.object({ channel, text: z.string().max(40_000), files: z.array(z.string().max(40)).max(10).optional() }),
  reply: z.object({
    channel,
    threadTs: ts,
    text: z.string().max(40_000),
    files: z.array(z.string().max(40)).max(10).optional(),
  }),
  action: z.discriminatedUnion('container', [
    z.object({
      container: z.literal('message'),
      channel,
      ts,
      ephemeral: z.boolean(),
      threadTs: ts.optional(),
      actionId: z.string().max(255),
      blockId: z.string().max(255).optional(),
      value: z.string().max(2000).optional(),
      selected: z.array(z.string().max(150)).max(100).optional(),
    }),
    z.object({
      container: z.literal('view'),
      viewId: z.string().max(40),
      actionId: z.string().max(255),
      blockId: z.string().max(255).optional(),
      value: z.string().max(2000).optional(),
      selected: z.array(z.string().max(150)).max(100).optional(),
      values: rawValues.optional(),
    }),
  ]),
  viewSubmission: z.object({ viewId: z.string().max(40), values: rawValues }),
  viewClosed: z.object({ viewId: z.string().max(40) }),
  options: z.object({
    viewId: z.string().max(40),
    blockId: z.string().max(255),
    actionId: z.string().max(255),
    value: z.string().max(2000),
  }),
  shortcut: z.object({ channel, ts, callbackId: z.string().max(255) }),
  simulate: z.object({
    trigger: z.enum(SIMULATED_TRIGGERS),
    campaignId: z.string().min(1).max(200),
    customerName: z.string().max(200).optional(),
    customerNumber: z.string().max(40).optional(),
    text: z.string().max(4000).optional(),
    outcome: z.enum(CALL_OUTCOME_CHOICES).optional(),
  }),
  burst: z.object({ campaignId: z.string().min(1).max(200), count: z.number().int().min(1).max(50) }),
  you: z.object({ userId: z.string().max(40) }),
  platform: z.object({ mode: z.enum(PLATFORM_MODES) }),
  slack: z.object({ mode: z.enum(SLACK_MODES) }),
  slackChannel: z.object({ channel, state: z.enum(CHANNEL_STATES) }),
  workflow: z.object({
    callbackId: z.string().max(255),
    inputs: z.record(z.string().max(100), z.string().max(4000)),
  }),
  report: z.union([z.object({ digest: z.literal(true) }), z.object({ usagePercent: z.number().min(0).max(200) })]),
};

class HttpProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function send(
  res: ServerResponse,
  status: number,
  body: Buffer | string,
  type: string,
  extra: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  res.writeHead(status, {
    'content-type': type,
    'content-length': String(Buffer.byteLength(body)),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...extra,
  });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  send(res, status, JSON.stringify(body), 'application/json; charset=utf-8');
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new HttpProblem(413, `too large (at most ${Math.round(limit / 1024 / 1024)} MB)`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

async function readJson<T>(req: IncomingMessage, schema: z.ZodType<T>): Promise<T> {
  const raw = await readBody(req, JSON_LIMIT);
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new HttpProblem(400, 'the body is not JSON');
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new HttpProblem(
      400,
      parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '),
    );
  return parsed.data;
}

function hostIsLoopback(req: IncomingMessage): boolean {
  const host = req.headers.host ?? '';
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : (host.split(':')[0] ?? '');
  return LOOPBACK_HOSTS.has(name.toLowerCase());
}

export function playgroundRoutes(
  session: PlaygroundSession,
  page: Record<string, Buffer> = loadPageFiles(),
): CustomRoute[] {
  /** Wraps a handler: loopback check, the custom header on POSTs, errors → JSON. */
  const guarded =
    (handler: (req: RouteRequest, res: ServerResponse) => Promise<void> | void) =>
    (req: RouteRequest, res: ServerResponse): void => {
      if (!hostIsLoopback(req)) {
        send(res, 403, 'The playground answers on localhost only.', 'text/plain; charset=utf-8');
        return;
      }
      if (req.method === 'POST' && req.headers['x-playground'] !== '1') {
        sendJson(res, 403, { ok: false, error: 'missing X-Playground header' });
        return;
      }
      Promise.resolve(handler(req, res)).catch((err: unknown) => {
        if (err instanceof HttpProblem) return sendJson(res, err.status, { ok: false, error: err.message });
        if (err instanceof PlaygroundInputError) return sendJson(res, 400, { ok: false, error: err.message });
        session.logger?.error({ err }, 'playground request failed');
        sendJson(res, 500, { ok: false, error: err instanceof Error ? err.message : 'internal error' });
      });
    };

  const post = <T>(path: string, schema: z.ZodType<T>, run: (input: T) => Promise<Outcome>): CustomRoute => ({
    path,
    method: ['POST'],
    handler: guarded(async (req, res) => {
      const outcome = await run(await readJson(req, schema));
      sendJson(res, 200, outcome);
    }),
  });

  return [
    {
      path: '/',
      method: ['GET'],
      handler: guarded((_req, res) =>
        send(res, 200, page['index.html'] ?? '', 'text/html; charset=utf-8', { 'content-security-policy': CSP }),
      ),
    },
    {
      path: '/playground/assets/:name',
      method: ['GET'],
      handler: guarded((req, res) => {
        const name = param(req, 'name');
        const type = ASSETS[name];
        const body = page[name];
        if (!type || !body) return send(res, 404, 'not found', 'text/plain; charset=utf-8');
        send(res, 200, body, type);
      }),
    },
    {
      path: '/playground/state',
      method: ['GET'],
      handler: guarded(async (req, res) => {
        const since = new URL(req.url ?? '/', 'http://localhost').searchParams.get('since');
        const version = session.version();
        if (since === version) return sendJson(res, 200, { version, instance: session.instance, unchanged: true });
        sendJson(res, 200, await session.snapshot());
      }),
    },
    {
      path: '/playground/files/:id',
      method: ['GET'],
      handler: guarded((req, res) => {
        const file = session.download(param(req, 'id'));
        if (!file) return send(res, 404, 'no such file', 'text/plain; charset=utf-8');
        // Pictures show in the page as Slack shows them; everything else downloads.
        if (INLINE_IMAGES.has(file.mimetype)) return send(res, 200, file.data, file.mimetype);
        const safeName = file.name.replace(/[^\w.\- ]/g, '_');
        // Audio plays in the page's player (as Slack plays it); anything else downloads.
        const audio = /^audio\/[\w.+-]+$/.test(file.mimetype);
        send(res, 200, file.data, audio ? file.mimetype : 'application/octet-stream', {
          'content-disposition': `${audio ? 'inline' : 'attachment'}; filename="${safeName}"`,
        });
      }),
    },
    {
      path: '/playground/media/:kind/:name',
      method: ['GET'],
      handler: guarded((req, res) => {
        const kind = param(req, 'kind');
        const media = kind === 'recording' || kind === 'voice' ? session.media(kind, param(req, 'name')) : undefined;
        if (!media) return send(res, 404, 'nothing to play here', 'text/plain; charset=utf-8');
        send(res, 200, media.data, media.mimetype, { 'content-disposition': 'inline' });
      }),
    },
    {
      path: '/playground/upload',
      method: ['POST'],
      handler: guarded(async (req, res) => {
        const query = new URL(req.url ?? '/', 'http://localhost').searchParams;
        const name = (query.get('name') ?? '').slice(0, 255);
        if (!name) throw new HttpProblem(400, 'name is required');
        const data = await readBody(req, UPLOAD_LIMIT);
        sendJson(res, 200, session.upload(name, (query.get('type') ?? '').slice(0, 100), data));
      }),
    },
    post('/playground/command', schemas.command, (b) => session.command(b.channel, b.text)),
    post('/playground/message', schemas.message, (b) => session.message(b.channel, b.text, undefined, b.files ?? [])),
    post('/playground/reply', schemas.reply, (b) => session.message(b.channel, b.text, b.threadTs, b.files ?? [])),
    post('/playground/action', schemas.action, (b) => session.action(b)),
    post('/playground/view-submission', schemas.viewSubmission, (b) => session.submitView(b.viewId, b.values)),
    post('/playground/view-closed', schemas.viewClosed, (b) => session.closeView(b.viewId)),
    post('/playground/options', schemas.options, (b) => session.suggest(b)),
    post('/playground/home', z.object({}), () => session.openHome()),
    post('/playground/workflow', schemas.workflow, (b) => session.runWorkflowStep(b.callbackId, b.inputs)),
    post('/playground/shortcut', schemas.shortcut, (b) => session.shortcut(b.channel, b.ts, b.callbackId)),
    post('/playground/simulate', schemas.simulate, (b) => session.simulate(b)),
    post('/playground/report', schemas.report, (b) => session.report(b)),
    post('/playground/burst', schemas.burst, (b) => session.burst(b.campaignId, b.count)),
    post('/playground/you', schemas.you, (b) => Promise.resolve(session.setYou(b.userId))),
    post('/playground/platform', schemas.platform, (b) => session.setPlatformMode(b.mode)),
    post('/playground/slack', schemas.slack, (b) => Promise.resolve(session.setSlackMode(b.mode))),
    post('/playground/slack-channel', schemas.slackChannel, (b) =>
      Promise.resolve(session.setChannelState(b.channel, b.state)),
    ),
  ];
}

/**
 * The page runs only its own script and stylesheet, and plays the workspace's own audio files and the media of
 * links that stay on the page; other links open in new tabs.
 */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; media-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
