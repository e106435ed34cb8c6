/**
 * Streams a file shared in Slack (`url_private_download`). The bot token goes only to Slack's file origin:
 * redirects are followed by hand (with the token on that origin, without it to Slack's CDN; anywhere else or
 * the sign-in page is refused), and the size cap is checked from content-length and again while streaming.
 */
import { isSlackApi, type SlackHosts } from './hosts.js';
import { asDownloadError, headerValue, openDownload, type DownloadError } from '../util/download.js';

export type SlackFileProblem =
  /** The URL is not on Slack's file service (refused before any request). */
  | 'host'
  /** 401/403. */
  | 'forbidden'
  /** 404/410. */
  | 'not_found'
  /** A redirect to a host outside Slack's file service and CDN (not followed). */
  | 'redirect'
  /** More redirects than a download takes. */
  | 'too_many_redirects'
  /** A redirect to Slack's sign-in page: the token was not accepted for this file (not followed). */
  | 'sign_in'
  /** 200 with an HTML page (a sign-in page) instead of the file. */
  | 'not_a_file'
  /** Past the byte cap (declared or streamed). */
  | 'too_large'
  /** Any other HTTP status. */
  | 'http'
  | 'timeout'
  | 'network';

/**
 * A download that failed, with the file's name so the user can be told which one. Deliberately without a
 * top-level `code` or a `cause` carrying one: this error travels through the platform upload it feeds, and
 * the platform transport would read such a code as a failure of its own connection.
 */
export class SlackFileError extends Error {
  override name = 'SlackFileError';

  constructor(
    readonly problem: SlackFileProblem,
    readonly fileName: string,
    /** `socketCode`: the undici/system code of a timeout or network failure, for the logs; `host`: where a refused redirect led. */
    readonly detail: { status?: number; maxBytes?: number; socketCode?: string; host?: string } = {},
  ) {
    const extra =
      detail.status !== undefined ? ` (HTTP ${detail.status})` : detail.socketCode ? ` (${detail.socketCode})` : '';
    super(`Slack file "${fileName}": ${problem}${extra}`);
  }
}

/**
 * The one origin bot-token downloads may go to: Slack's `files.` host of SLACK_DOMAIN (files.slack.com, or
 * files.slack-gov.com for GovSlack) when the Web API is Slack's own — an Enterprise Grid org's host included;
 * any other API URL is a stand-in (tests, the playground) that serves its own files, so its own origin.
 */
export function slackFileOrigin(slack: SlackHosts): string {
  return isSlackApi(slack) ? `https://files.${slack.domain}` : new URL(slack.apiUrl).origin;
}

/** slack.com's CDNs, where its file host redirects downloads. */
const SLACK_COM_CDNS = ['slack-edge.com', 'slack-files.com'];

/**
 * Whether a download from `fileOrigin` may follow a redirect to `url` (without the token unless it is that
 * origin): Slack's own hosts over https for the real service — the domain of its `files.` host and its
 * subdomains (and slack.com's CDNs); a stand-in's own host (any port) otherwise.
 */
export function isSlackRedirectTarget(url: URL, fileOrigin: string): boolean {
  const origin = new URL(fileOrigin);
  if (url.protocol !== origin.protocol || url.username !== '' || url.password !== '') return false;
  const host = url.hostname.toLowerCase();
  const within = (domains: string[]) => domains.some((d) => host === d || host.endsWith(`.${d}`));
  if (!origin.hostname.startsWith('files.')) return host === origin.hostname;
  const domain = origin.hostname.slice('files.'.length);
  return within(domain === 'slack.com' ? [domain, ...SLACK_COM_CDNS] : [domain]);
}

/** Whether `url` points at `origin` exactly (scheme, host and port). */
export function isSlackFileUrl(url: string, origin: string): boolean {
  try {
    return new URL(url).origin === origin;
  } catch {
    return false;
  }
}

export interface SlackFileSource {
  /** `url_private_download` (or `url_private`). */
  url: string;
  /** For error messages. */
  name: string;
  botToken: string;
  /** From `slackFileOrigin`. */
  allowedOrigin: string;
  maxBytes: number;
  headersTimeoutMs?: number;
  /** Longest pause between two chunks. */
  bodyTimeoutMs?: number;
  /**
   * What Slack says the file is (`files.info`): an HTML answer is then taken for the file when the file is
   * HTML and the answer is exactly its size; without it, any HTML answer is the sign-in page.
   */
  declared?: { mimetype: string; size: number | undefined };
}

/** Slack's file host → its CDN is one hop; a few more leave room without looping for long. */
const MAX_REDIRECTS = 3;

/**
 * The file's bytes as a lazy stream: nothing is requested until the first read, so several of these
 * handed to one multipart upload are fetched one after the other. Fails with `SlackFileError`.
 */
export function slackFileStream(source: SlackFileSource): AsyncIterable<Uint8Array> {
  return { [Symbol.asyncIterator]: () => download(source) };
}

async function* download(source: SlackFileSource): AsyncGenerator<Uint8Array> {
  yield* (await openSlackFile(source)).body;
}

/** A Slack file's download with its headers read: what it declared, and its bytes as they arrive. */
export interface OpenSlackFile {
  /** The declared Content-Length, when there is one (at most the cap: a larger one fails before this). */
  length: number | undefined;
  /** The bytes as they arrive; fails with `SlackFileError` past the cap, on a stall or a broken connection. */
  body: AsyncIterable<Buffer>;
  /** Drops the body unread. */
  discard(): Promise<void>;
}

/**
 * Requests the file (redirects followed by hand, see above) and returns it once Slack answered 200 with
 * something other than a sign-in page; the body is left to the caller. Fails with `SlackFileError`.
 */
export async function openSlackFile(source: SlackFileSource & { signal?: AbortSignal }): Promise<OpenSlackFile> {
  const { name, maxBytes, allowedOrigin } = source;
  if (!isSlackFileUrl(source.url, allowedOrigin)) throw new SlackFileError('host', name);
  try {
    const res = await openDownload(new URL(source.url), {
      maxBytes,
      maxRedirects: MAX_REDIRECTS,
      hop: (url, redirectedBy) => {
        if (redirectedBy !== undefined) {
          if (!isSlackRedirectTarget(url, allowedOrigin))
            throw new SlackFileError('redirect', name, { status: redirectedBy, host: url.hostname });
          if (isSignInPage(url)) throw new SlackFileError('sign_in', name, { status: redirectedBy });
        }
        // The token only on Slack's file origin (a signed CDN address needs none).
        return url.origin === allowedOrigin ? { headers: { authorization: `Bearer ${source.botToken}` } } : {};
      },
      ...(source.headersTimeoutMs !== undefined ? { headersTimeoutMs: source.headersTimeoutMs } : {}),
      ...(source.bodyTimeoutMs !== undefined ? { bodyTimeoutMs: source.bodyTimeoutMs } : {}),
      ...(source.signal ? { signal: source.signal } : {}),
    });
    const status = res.status;
    if (status !== 200) {
      await res.discard();
      throw new SlackFileError(problemForStatus(status), name, { status });
    }
    if (isSignInPageAnswer(headerValue(res.headers['content-type']), res.length, source.declared)) {
      await res.discard();
      throw new SlackFileError('not_a_file', name, { status });
    }
    return { length: res.length, body: named(res.body, name), discard: () => res.discard() };
  } catch (err) {
    throw asSlackFileError(err, name);
  }
}

async function* named(body: AsyncIterable<Buffer>, name: string): AsyncGenerator<Buffer> {
  try {
    yield* body;
  } catch (err) {
    throw asSlackFileError(err, name);
  }
}

function asSlackFileError(err: unknown, name: string): SlackFileError {
  return err instanceof SlackFileError ? err : fromDownloadError(asDownloadError(err), name);
}

/** A failure of the download itself, named after the file, without the original error (see SlackFileError). */
function fromDownloadError(err: DownloadError, name: string): SlackFileError {
  switch (err.problem) {
    case 'bad_redirect':
      return new SlackFileError('http', name, {
        ...(err.detail.status !== undefined ? { status: err.detail.status } : {}),
      });
    case 'too_large':
      return new SlackFileError('too_large', name, {
        ...(err.detail.maxBytes !== undefined ? { maxBytes: err.detail.maxBytes } : {}),
      });
    case 'too_many_redirects':
      return new SlackFileError('too_many_redirects', name, {
        ...(err.detail.status !== undefined ? { status: err.detail.status } : {}),
      });
    case 'timeout':
    case 'stalled':
    case 'network':
      return new SlackFileError(
        err.problem === 'network' ? 'network' : 'timeout',
        name,
        err.detail.socketCode !== undefined ? { socketCode: err.detail.socketCode } : {},
      );
  }
}

/**
 * Whether a 200 is Slack's sign-in page rather than the file: an HTML answer, unless the file itself is HTML
 * (Slack's mimetype for it) and the answer declares exactly the file's size — a sign-in page matching a
 * shared page's size to the byte is not a risk worth a customer's 502 for every HTML file.
 */
function isSignInPageAnswer(
  contentType: string | undefined,
  length: number | undefined,
  declared: SlackFileSource['declared'],
): boolean {
  if (!(contentType ?? '').toLowerCase().startsWith('text/html')) return false;
  if (!declared?.mimetype.toLowerCase().startsWith('text/html')) return true;
  return declared.size === undefined || length !== declared.size;
}

/** Slack sends a client it does not let in to a sign-in page that carries the file's path in `redir`. */
function isSignInPage(url: URL): boolean {
  return url.searchParams.has('redir') || /^\/(signin|sign_in|login)\b/i.test(url.pathname);
}

function problemForStatus(status: number): SlackFileProblem {
  if (status === 401 || status === 403) return 'forbidden';
  if (status === 404 || status === 410) return 'not_found';
  return 'http';
}
