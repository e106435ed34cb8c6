/**
 * `GET /attachments/<token>` (and HEAD): a file an agent sent a customer, streamed from Slack while its link
 * works (`attachments.ts`). The customer's phone or browser opens it, so no Slack signature: the token is the
 * only key (256 bits, kept only as its hash, expiring after ATTACHMENT_TTL_S).
 *
 *   token → record (store) → the workspace's bot token → `files.info` (a file deleted in Slack ends its links)
 *   → Slack's file host with the token, its redirect to the CDN without (src/slack/file-download.ts) → the
 *   bytes passed on as they arrive, at most 25 MB, never held whole.
 *
 * Downloads are shared (`download-slots.ts`): at most 4 at once per link, 16 per workspace, 64 per process
 * (then 503 + Retry-After), and one whose bytes stop moving for 30 s — a reader that stopped reading — is cut
 * off, so stalled readers of one link cannot keep other links, or other workspaces, waiting.
 *
 * Every link that opens nothing — malformed, unknown, expired, of an uninstalled workspace, its file gone —
 * gets the same 404 with the same body, and the lookup is by the token's hash, so a guess learns nothing.
 * What is served is never shown inline: `Content-Disposition: attachment`, `nosniff` and a sandbox CSP keep a
 * shared HTML or SVG file from running as a page of this host.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { CustomRoute } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Deps } from '../app/deps.js';
import type { Logger } from '../logger.js';
import { openSlackFile, slackFileOrigin, SlackFileError } from '../slack/file-download.js';
import { downloadUrl, slackFileSchema } from '../slack/file-object.js';
import { slackErrorCode } from '../slack/post.js';
import { classOfSlackError, isFileGone } from '../delivery/slack-errors.js';
import type { Attachment } from '../store/index.js';
import { withDeadline } from '../util/deadline.js';
import { ATTACHMENT_MAX_BYTES, ATTACHMENT_PATH } from './attachments.js';
import {
  DEFAULT_DOWNLOAD_CAPS,
  DownloadSlots,
  IdleWatch,
  type DownloadCaps,
  type FullShare,
} from './download-slots.js';

/** A download whose bytes do not move for this long (a reader that stopped reading) gives its place up. */
const IDLE_MS = 30_000;
/** How long the store may take to find a link before the answer is 503. */
const STORE_DEADLINE_MS = 5_000;
/** A whole download at most: 25 MB at ~50 KB/s, a slow phone connection. */
const DOWNLOAD_DEADLINE_MS = 10 * 60_000;

const NOT_FOUND_BODY = 'This link does not work: it may have expired. Ask for the file again.\n';

export interface AttachmentRouteOptions {
  /** Downloads served at once per link, workspace and process (tests use small numbers). */
  caps?: Partial<DownloadCaps>;
  /** How long a download may make no progress before it is dropped. */
  idleMs?: number;
  /** The clock idleness is judged by (tests move it instead of waiting). Default `Date.now`. */
  now?: () => number;
}

type RouteDeps = Pick<Deps, 'config' | 'store' | 'slack' | 'logger'>;

/** The workspace's client; undefined when the bot has no token for it (uninstalled). */
type ClientFor = (teamId: string) => Promise<WebClient | undefined>;

export function attachmentRoute(deps: RouteDeps, options: AttachmentRouteOptions = {}): CustomRoute {
  const log = deps.logger.child({ component: 'attachments' });
  // A customer waits on the other end: a call over Slack's pace, or a 429, is answered at once (then 503), never
  // waited out while the download hangs.
  const clientFor: ClientFor = (teamId) => deps.slack.forTeam(teamId, 'urgent');
  const ctx: ServeContext = {
    deps,
    log,
    clientFor,
    origin: slackFileOrigin(deps.config.slack),
    slots: new DownloadSlots({ ...DEFAULT_DOWNLOAD_CAPS, ...options.caps }),
    idle: new IdleWatch(options.idleMs ?? IDLE_MS, options.now ?? Date.now),
  };
  return {
    path: `${ATTACHMENT_PATH}/:token`,
    // Every method is ours, so a stray POST gets a 405 here instead of Bolt logging the URL (and its token).
    method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    handler: (req, res) => {
      const token = typeof req.params?.token === 'string' ? req.params.token : '';
      serve(ctx, req, res, token).catch((err: unknown) => {
        log.error({ err }, 'serving an attachment link failed unexpectedly');
        if (!res.headersSent) plain(res, 500, 'Something went wrong on our side. Try again in a minute.\n');
        else res.destroy();
      });
    },
  };
}

interface ServeContext {
  deps: RouteDeps;
  log: Logger;
  clientFor: ClientFor;
  origin: string;
  slots: DownloadSlots;
  idle: IdleWatch;
}

async function serve(ctx: ServeContext, req: IncomingMessage, res: ServerResponse, token: string): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    plain(res, 405, 'Only GET and HEAD.\n', { allow: 'GET, HEAD' });
    return;
  }
  const leave = ctx.slots.enterProcess();
  if (!leave) {
    busy(ctx.log, res, 'process', ctx.slots.active);
    return;
  }
  try {
    await serveFile(ctx, req, res, token);
  } finally {
    leave();
  }
}

/** 503 + Retry-After: the link's, the workspace's or the process's share of downloads is taken. */
function busy(log: Logger, res: ServerResponse, share: FullShare, active: number): void {
  log.warn({ share, active }, `attachment link refused with 503: the ${share}'s downloads at once are all taken`);
  plain(res, 503, 'Busy: try again in a few seconds.\n', { 'retry-after': '5' });
}

async function serveFile(ctx: ServeContext, req: IncomingMessage, res: ServerResponse, token: string): Promise<void> {
  const { log } = ctx;
  const found = await findLink(ctx, res, token);
  if (!found) return;
  const leave = ctx.slots.enter(found.teamId, token);
  if (typeof leave === 'string') {
    busy(log.child({ team: found.teamId, file: found.id }), res, leave, ctx.slots.active);
    return;
  }
  try {
    await serveFound(ctx, req, res, found);
  } finally {
    leave();
  }
}

async function findLink(ctx: ServeContext, res: ServerResponse, token: string): Promise<Attachment | undefined> {
  const { deps, log } = ctx;
  let found: Attachment | null;
  try {
    found = await withDeadline(deps.store.attachments.find(token), STORE_DEADLINE_MS, 'attachment lookup');
  } catch (err) {
    log.warn({ err }, 'attachment link answered 503: the store is unavailable');
    plain(res, 503, 'Not available just now: try again in a minute.\n', { 'retry-after': '30' });
    return undefined;
  }
  if (!found) {
    log.info('attachment link that opens nothing (malformed, unknown or expired): 404');
    notFound(res);
    return undefined;
  }
  return found;
}

async function serveFound(
  ctx: ServeContext,
  req: IncomingMessage,
  res: ServerResponse,
  found: Attachment,
): Promise<void> {
  const at = ctx.log.child({ team: found.teamId, file: found.id });
  const source = await slackSource(ctx, found, at);
  if (source.kind === 'gone') {
    notFound(res);
    return;
  }
  if (source.kind === 'unavailable') {
    plain(res, 503, 'The file is not available just now: try again in a minute.\n', { 'retry-after': '30' });
    return;
  }
  if (req.method === 'HEAD') {
    res.writeHead(200, fileHeaders(found, source.size));
    res.end();
    return;
  }

  const abort = new AbortController();
  const stop = () => abort.abort();
  res.once('close', stop);
  const deadline = setTimeout(stop, DOWNLOAD_DEADLINE_MS);
  // Slack's end stalling, or the customer's: either way the place is given up after IDLE_MS.
  const watch = ctx.idle.watch(() => {
    stop();
    res.destroy();
  });
  try {
    let file;
    try {
      file = await openSlackFile({
        url: source.url,
        name: found.name,
        botToken: source.botToken,
        allowedOrigin: ctx.origin,
        maxBytes: ATTACHMENT_MAX_BYTES,
        declared: { mimetype: found.mimetype, size: source.size ?? found.size },
        signal: abort.signal,
      });
    } catch (err) {
      const problem = err instanceof SlackFileError ? err.problem : 'network';
      at.warn(
        { problem, status: err instanceof SlackFileError ? err.detail.status : undefined },
        'attachment link: Slack did not hand over the file',
      );
      if (problem === 'not_found' || problem === 'forbidden') notFound(res);
      else plain(res, 502, 'Slack did not hand over the file: try again in a minute.\n');
      return;
    }
    res.writeHead(200, fileHeaders(found, file.length));
    try {
      await pipeline(Readable.from(moving(file.body, () => watch.moved())), res);
      at.info({ bytes: file.length }, 'attachment link: file sent');
    } catch (err) {
      // Headers are out: the client sees a cut-off download (pipeline destroyed the response).
      at.warn(
        { problem: err instanceof SlackFileError ? err.problem : undefined, aborted: abort.signal.aborted },
        'attachment link: the download stopped before the end (client gone, too slow, or Slack broke off)',
      );
    }
  } finally {
    watch.end();
    clearTimeout(deadline);
    res.off('close', stop);
  }
}

/** The bytes as they are, telling `moved` of each chunk (a reader that stops reading stops pulling them). */
async function* moving(body: AsyncIterable<Buffer>, moved: () => void): AsyncGenerator<Buffer> {
  for await (const chunk of body) {
    moved();
    yield chunk;
  }
}

type Source =
  | { kind: 'file'; url: string; botToken: string; size: number | undefined }
  | { kind: 'gone' }
  | { kind: 'unavailable' };

/** Where the file is now, by `files.info` with the workspace's token; `gone` for anything a customer can't get. */
async function slackSource(ctx: ServeContext, found: Attachment, log: Logger): Promise<Source> {
  const client = await ctx.clientFor(found.teamId);
  if (!client?.token) {
    log.info('attachment link of a workspace the bot has no token for: 404');
    return { kind: 'gone' };
  }
  let raw: unknown;
  try {
    raw = (await client.files.info({ file: found.id })).file;
  } catch (err) {
    const code = slackErrorCode(err);
    if (isFileGone(code) || (code !== undefined && classOfSlackError(code) === 'workspace')) {
      log.info({ slackError: code }, 'attachment link of a file Slack no longer has (or lets the bot see): 404');
      return { kind: 'gone' };
    }
    log.warn({ err, slackError: code }, 'attachment link answered 503: Slack would not describe the file');
    return { kind: 'unavailable' };
  }
  const file = slackFileSchema.safeParse(raw).data;
  const url = file ? downloadUrl(file) : undefined;
  if (!file || url === undefined || file.mode === 'tombstone' || file.mode === 'hidden_by_limit' || file.is_external) {
    log.info({ mode: file?.mode }, 'attachment link of a file that is no longer served: 404');
    return { kind: 'gone' };
  }
  if ((file.size ?? 0) > ATTACHMENT_MAX_BYTES) return { kind: 'gone' };
  return { kind: 'file', url, botToken: client.token, size: file.size };
}

/** The headers of a file as sent: always a download, never sniffed, cached by nobody. */
function fileHeaders(file: Attachment, length: number | undefined): Record<string, string> {
  return {
    'content-type': contentType(file.mimetype),
    ...(length !== undefined ? { 'content-length': String(length) } : {}),
    'content-disposition': contentDisposition(file.name),
    'x-content-type-options': 'nosniff',
    'cache-control': 'private, no-store',
    'content-security-policy': "default-src 'none'; sandbox",
    'referrer-policy': 'no-referrer',
    'x-robots-tag': 'noindex',
  };
}

/** Slack's mimetype when it is one (`type/subtype`), else bytes. */
function contentType(mimetype: string): string {
  return /^[a-z0-9][\w.+-]*\/[\w.+-]+$/i.test(mimetype) ? mimetype : 'application/octet-stream';
}

/**
 * `attachment` with the name twice (RFC 6266 §4.3): a plain ASCII `filename` for old clients, and the exact
 * name as `filename*=UTF-8''…` (RFC 8187: every byte outside attr-char percent-encoded).
 */
function contentDisposition(name: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what is taken out
  const cleaned = name.replace(/[\u0000-\u001f\u007f/\\]/g, '_').trim() || 'file';
  const ascii = cleaned.replace(/[^\x20-\x7e]/g, '_').replace(/["%]/g, '_');
  const encoded = Array.from(Buffer.from(cleaned, 'utf8'))
    .map((byte) => {
      const c = String.fromCharCode(byte);
      return /[A-Za-z0-9!#$&+.^_`|~-]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

function notFound(res: ServerResponse): void {
  plain(res, 404, NOT_FOUND_BODY);
}

function plain(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...headers,
  });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}
