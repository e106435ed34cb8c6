/**
 * Streams a file shared in Slack (`url_private_download`). The bot token goes only to Slack's file origin:
 * redirects are followed by hand (with the token on that origin, without it to Slack's CDN; anywhere else or
 * the sign-in page is refused), and the size cap is checked from content-length and again while streaming.
 */
import { request } from 'undici';

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
 * The one origin bot-token downloads may go to. Slack's real API (slack.com, an Enterprise Grid
 * `*.slack.com` host, or GovSlack) serves files from its `files.` host; any other API URL is a stand-in
 * (tests, the playground) that serves its own files, so its own origin is the file origin.
 */
export function slackFileOrigin(slackApiUrl: string): string {
  const api = new URL(slackApiUrl);
  const host = api.hostname.toLowerCase();
  if (host === 'slack.com' || host.endsWith('.slack.com')) return 'https://files.slack.com';
  if (host === 'slack-gov.com' || host.endsWith('.slack-gov.com')) return 'https://files.slack-gov.com';
  return api.origin;
}

/** Slack's hosts a download may be redirected to (its file host and CDNs), besides their subdomains. */
const SLACK_HOSTS = ['slack.com', 'slack-edge.com', 'slack-files.com'];
const SLACK_GOV_HOSTS = ['slack-gov.com'];

/**
 * Whether a download from `fileOrigin` may follow a redirect to `url` (without the token unless it is that
 * origin): Slack's own hosts over https for the real service; a stand-in's own host (any port) otherwise.
 */
export function isSlackRedirectTarget(url: URL, fileOrigin: string): boolean {
  const origin = new URL(fileOrigin);
  if (url.protocol !== origin.protocol || url.username !== '' || url.password !== '') return false;
  const host = url.hostname.toLowerCase();
  const within = (domains: string[]) => domains.some((d) => host === d || host.endsWith(`.${d}`));
  if (origin.hostname === 'files.slack.com') return within(SLACK_HOSTS);
  if (origin.hostname === 'files.slack-gov.com') return within(SLACK_GOV_HOSTS);
  return host === origin.hostname;
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
}

const DEFAULT_HEADERS_TIMEOUT_MS = 20_000;
const DEFAULT_BODY_TIMEOUT_MS = 30_000;
/** Slack's file host → its CDN is one hop; a few more leave room without looping for long. */
const MAX_REDIRECTS = 3;
const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

/**
 * The file's bytes as a lazy stream: nothing is requested until the first read, so several of these
 * handed to one multipart upload are fetched one after the other. Fails with `SlackFileError`.
 */
export function slackFileStream(source: SlackFileSource): AsyncIterable<Uint8Array> {
  return { [Symbol.asyncIterator]: () => download(source) };
}

async function* download(source: SlackFileSource): AsyncGenerator<Uint8Array> {
  const { name, maxBytes, allowedOrigin } = source;
  if (!isSlackFileUrl(source.url, allowedOrigin)) throw new SlackFileError('host', name);

  let url = new URL(source.url);
  let res = await get(url, source);
  for (let followed = 0; res.statusCode >= 300 && res.statusCode < 400; followed++) {
    const status = res.statusCode;
    await res.body.dump().catch(() => undefined);
    const next = redirectTarget(res.headers.location, url);
    if (next === undefined) throw new SlackFileError('http', name, { status });
    if (!isSlackRedirectTarget(next, allowedOrigin))
      throw new SlackFileError('redirect', name, { status, host: next.hostname });
    if (isSignInPage(next)) throw new SlackFileError('sign_in', name, { status });
    if (followed >= MAX_REDIRECTS) throw new SlackFileError('too_many_redirects', name, { status });
    url = next;
    res = await get(url, source);
  }

  const status = res.statusCode;
  if (status !== 200) {
    await res.body.dump().catch(() => undefined);
    throw new SlackFileError(problemForStatus(status), name, { status });
  }
  if ((headerValue(res.headers['content-type']) ?? '').toLowerCase().startsWith('text/html')) {
    await res.body.dump().catch(() => undefined);
    throw new SlackFileError('not_a_file', name, { status });
  }
  const declared = Number(headerValue(res.headers['content-length']));
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.body.destroy();
    throw new SlackFileError('too_large', name, { maxBytes });
  }

  let received = 0;
  try {
    // Leaving this loop early (cap reached, or the upload it feeds failed) destroys the response stream.
    for await (const chunk of res.body) {
      const bytes = chunk as Buffer;
      received += bytes.length;
      if (received > maxBytes) throw new SlackFileError('too_large', name, { maxBytes });
      yield bytes;
    }
  } catch (err) {
    if (err instanceof SlackFileError) throw err;
    throw connectionError(err, name);
  }
}

/** One GET; the token only when the URL is on Slack's file origin (a signed CDN address needs none). */
async function get(url: URL, source: SlackFileSource): Promise<Awaited<ReturnType<typeof request>>> {
  try {
    return await request(url, {
      method: 'GET',
      headers: url.origin === source.allowedOrigin ? { authorization: `Bearer ${source.botToken}` } : {},
      headersTimeout: source.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS,
      bodyTimeout: source.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
    });
  } catch (err) {
    throw connectionError(err, source.name);
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

/** Slack sends a client it does not let in to a sign-in page that carries the file's path in `redir`. */
function isSignInPage(url: URL): boolean {
  return url.searchParams.has('redir') || /^\/(signin|sign_in|login)\b/i.test(url.pathname);
}

function problemForStatus(status: number): SlackFileProblem {
  if (status === 401 || status === 403) return 'forbidden';
  if (status === 404 || status === 410) return 'not_found';
  return 'http';
}

function connectionError(err: unknown, name: string): SlackFileError {
  const code =
    typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
  return new SlackFileError(
    code !== undefined && TIMEOUT_CODES.has(code) ? 'timeout' : 'network',
    name,
    code !== undefined ? { socketCode: code } : {},
  );
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
