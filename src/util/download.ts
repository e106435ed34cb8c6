/**
 * A GET of bytes someone else serves, bounded: redirects are followed by hand, each target handed to the
 * caller's policy before anything is sent to it (the policy says which headers and which dispatcher it gets,
 * or refuses it by throwing), a bounded number of times; the body is capped from Content-Length before it is
 * read and again while it streams. Nothing is buffered here: the caller reads the body as it arrives.
 *
 * The two users: a file shared in Slack (the bot token only on Slack's file origin) and a call's recording
 * (public addresses only, unless the operator listed the host).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { request, type Dispatcher } from 'undici';

export type DownloadProblem =
  /** A redirect without a usable Location. */
  | 'bad_redirect'
  | 'too_many_redirects'
  /** Past the byte cap (declared or streamed). */
  | 'too_large'
  | 'timeout'
  /** The body came slower than `minProgress` asks (a host dripping bytes to hold a transfer open). */
  | 'stalled'
  | 'network';

export class DownloadError extends Error {
  override name = 'DownloadError';

  constructor(
    readonly problem: DownloadProblem,
    /** `socketCode`: the undici/system code of a timeout or network failure, for the logs. */
    readonly detail: { status?: number; maxBytes?: number; socketCode?: string } = {},
    options?: { cause?: unknown },
  ) {
    super(`download failed: ${problem}${detail.socketCode ? ` (${detail.socketCode})` : ''}`, options);
  }
}

/** How one request of a download is sent. */
export interface Hop {
  headers?: Record<string, string>;
  /** undici's global dispatcher when absent. */
  dispatcher?: Dispatcher;
}

export interface DownloadOptions {
  maxBytes: number;
  /** Redirects followed at most; one more is `too_many_redirects`. */
  maxRedirects: number;
  /**
   * Called before each request — for the URL asked for (`redirectedBy` undefined), then for each redirect's
   * target with the status that sent there. Throws to refuse it (the error reaches the caller as it is).
   */
  hop(url: URL, redirectedBy: number | undefined): Hop;
  /** Default 20 s. */
  headersTimeoutMs?: number;
  /** Longest pause between two chunks. Default 30 s. */
  bodyTimeoutMs?: number;
  /** Ends the download (a deadline for the whole of it). */
  signal?: AbortSignal;
  /**
   * At least `bytes` (or the end) for every `withinMs` spent waiting on the host — time the caller holds a chunk
   * is not counted — else the body fails `stalled`. `bodyTimeoutMs` alone lets a byte every few seconds hold it open.
   */
  minProgress?: { bytes: number; withinMs: number };
}

export interface OpenDownload {
  /** Where the bytes came from (after redirects). */
  url: URL;
  status: number;
  headers: IncomingHttpHeaders;
  /** The declared Content-Length, when there is one. */
  length: number | undefined;
  /** The bytes as they arrive; fails with `DownloadError` past the cap, on a stall or a broken connection. */
  body: AsyncIterable<Buffer>;
  /** Drops the body unread (a status or type the caller will not take). */
  discard(): Promise<void>;
}

const DEFAULT_HEADERS_TIMEOUT_MS = 20_000;
const DEFAULT_BODY_TIMEOUT_MS = 30_000;
const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

/**
 * Requests `url`, following redirects under `options.hop`, and returns the final answer with its body unread.
 * A 2xx whose declared length is past the cap fails here, before any of it is read.
 */
export async function openDownload(url: URL, options: DownloadOptions): Promise<OpenDownload> {
  let current = url;
  let res = await get(current, options.hop(current, undefined), options);
  for (let followed = 0; res.statusCode >= 300 && res.statusCode < 400; followed++) {
    const status = res.statusCode;
    await res.body.dump().catch(() => undefined);
    const next = redirectTarget(res.headers.location, current);
    if (next === undefined) throw new DownloadError('bad_redirect', { status });
    const hop = options.hop(next, status);
    if (followed >= options.maxRedirects) throw new DownloadError('too_many_redirects', { status });
    current = next;
    res = await get(current, hop, options);
  }

  const status = res.statusCode;
  const declared = Number(headerValue(res.headers['content-length']));
  const length = Number.isSafeInteger(declared) && declared >= 0 ? declared : undefined;
  if (status >= 200 && status < 300 && length !== undefined && length > options.maxBytes) {
    res.body.destroy();
    throw new DownloadError('too_large', { maxBytes: options.maxBytes });
  }
  const body = res.body;
  return {
    url: current,
    status,
    headers: res.headers,
    length,
    body: counted(body, options.maxBytes, options.minProgress),
    discard: () => body.dump().catch(() => undefined),
  };
}

async function* counted(
  body: Dispatcher.ResponseData['body'],
  maxBytes: number,
  minProgress: DownloadOptions['minProgress'],
): AsyncGenerator<Buffer> {
  const chunks = body[Symbol.asyncIterator]();
  let received = 0;
  // The current progress window: what the host sent in it, and how long it was waited on.
  let windowBytes = 0;
  let windowWaitedMs = 0;
  let done = false;
  try {
    for (;;) {
      const asked = performance.now();
      const watchdog =
        minProgress &&
        setTimeout(
          () => body.destroy(new DownloadError('stalled')),
          Math.max(0, minProgress.withinMs - windowWaitedMs),
        );
      let next: IteratorResult<unknown>;
      try {
        next = await chunks.next();
      } finally {
        clearTimeout(watchdog);
      }
      if (next.done) {
        done = true;
        return;
      }
      const bytes = next.value as Buffer;
      received += bytes.length;
      if (received > maxBytes) throw new DownloadError('too_large', { maxBytes });
      if (minProgress) {
        windowBytes += bytes.length;
        windowWaitedMs += performance.now() - asked;
        if (windowBytes >= minProgress.bytes) windowBytes = windowWaitedMs = 0;
      }
      yield bytes;
    }
  } catch (err) {
    throw asDownloadError(err);
  } finally {
    // Left early (cap reached, stalled, or the consumer stopped): the response stream is destroyed.
    if (!done) await chunks.return?.();
  }
}

async function get(url: URL, hop: Hop, options: DownloadOptions): Promise<Dispatcher.ResponseData> {
  try {
    return await request(url, {
      method: 'GET',
      headers: hop.headers ?? {},
      ...(hop.dispatcher ? { dispatcher: hop.dispatcher } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      headersTimeout: options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS,
      bodyTimeout: options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
    });
  } catch (err) {
    throw asDownloadError(err);
  }
}

function redirectTarget(location: string | string[] | undefined, base: URL): URL | undefined {
  const value = headerValue(location);
  if (!value) return undefined;
  try {
    return new URL(value, base);
  } catch {
    return undefined;
  }
}

/** A connection failure as a `DownloadError`, the original kept as its cause (a refused address, say). */
export function asDownloadError(err: unknown): DownloadError {
  if (err instanceof DownloadError) return err;
  const code =
    typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
  const aborted = err instanceof Error && (err.name === 'AbortError' || code === 'UND_ERR_ABORTED');
  return new DownloadError(
    aborted || (code !== undefined && TIMEOUT_CODES.has(code)) ? 'timeout' : 'network',
    code !== undefined ? { socketCode: code } : {},
    { cause: err },
  );
}

export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
