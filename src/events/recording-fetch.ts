/**
 * Fetching a call's recording from the URL the platform sent (`audioUrl`). The URL is a third party's, so
 * the rules are strict unless the operator listed the host (`RECORDING_HOSTS`):
 *
 * - https only, to hosts whose every address is public — checked in the socket's own DNS lookup, so a name that
 *   changes its answer between a check and the connection (DNS rebinding) cannot reach a private address;
 * - a listed `host[:port]` may be http and private (an on-premises recording store, a test's server);
 * - redirects are checked against the same rules, at most `MAX_REDIRECTS`;
 * - audio content types only; at most `maxBytes` (refused from Content-Length before reading, and counted while
 *   streaming);
 * - a host that sends less than `minProgress` while it is waited on fails the try (`stalled`): a byte every few
 *   seconds must not hold a transfer open.
 *
 * Nothing is buffered here: the caller streams the body on to Slack.
 */
import { Agent } from 'undici';
import type { RecordingHost } from '../config.js';
import { asDownloadError, headerValue, openDownload, type DownloadError, type Hop } from '../util/download.js';
import { isPublicAddress, NonPublicAddressError, publicOnlyLookup } from '../util/public-address.js';

export type RecordingProblem =
  /** Not an http(s) URL, or one with credentials in it. */
  | 'url'
  /** Plain http to a host that is not listed. */
  | 'not_https'
  /** The host is (or resolves to) an address that is not public, and is not listed. */
  | 'not_public'
  /** A redirect these rules refuse, one without a usable Location, or too many. */
  | 'redirect'
  /** The host has no address (DNS: no such name). */
  | 'unknown_host'
  /** An HTTP status other than 2xx. */
  | 'status'
  /** Not audio. */
  | 'type'
  /** No bytes at all. */
  | 'empty'
  | 'too_large'
  | 'timeout'
  /** The host sent its bytes slower than a transfer may wait on (a byte now and then). */
  | 'stalled'
  | 'network';

/** Why a recording was not fetched; `retryable` when trying again later may work (the host is busy or not ready). */
export class RecordingError extends Error {
  override name = 'RecordingError';

  constructor(
    readonly problem: RecordingProblem,
    readonly detail: {
      status?: number;
      host?: string;
      contentType?: string;
      maxBytes?: number;
      socketCode?: string;
    } = {},
  ) {
    super(`recording not fetched: ${problem}`);
  }

  get retryable(): boolean {
    if (this.problem === 'timeout' || this.problem === 'stalled' || this.problem === 'network') return true;
    // A recording often becomes available a little after the call ends: 404 may mean "not yet".
    const status = this.detail.status ?? 0;
    return this.problem === 'status' && (status >= 500 || [404, 408, 425, 429].includes(status));
  }
}

/** A redirect from a recording host to its storage (or CDN) is one or two hops. */
const MAX_REDIRECTS = 3;
/** `application/ogg` is the registered type of Ogg files, audio among them. */
const AUDIO_TYPES = /^(audio\/[a-z0-9.+-]+|application\/ogg)$/;
const EXTENSIONS: Record<string, string> = {
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/wav': 'wav',
  'audio/wave': 'wav',
  'audio/x-wav': 'wav',
  'audio/vnd.wave': 'wav',
  'audio/mp4': 'm4a',
  'audio/x-m4a': 'm4a',
  'audio/m4a': 'm4a',
  'audio/aac': 'aac',
  'audio/ogg': 'ogg',
  'application/ogg': 'ogg',
  'audio/opus': 'opus',
  'audio/webm': 'webm',
  'audio/flac': 'flac',
  'audio/x-flac': 'flac',
  'audio/amr': 'amr',
};

export interface Recording {
  /** The audio type the host declared (lower case, without parameters). */
  contentType: string;
  /** The file extension that type calls for (`mp3`…), so Slack shows its player. */
  extension: string;
  /** Content-Length, when the host declared it. */
  length: number | undefined;
  body: AsyncIterable<Buffer>;
  discard(): Promise<void>;
}

export class RecordingFetcher {
  /** Connections to hosts that are not listed: every address the name resolves to must be public. */
  private readonly publicOnly = new Agent({ connect: { lookup: publicOnlyLookup } });

  constructor(
    private readonly source: {
      hosts: readonly RecordingHost[];
      maxBytes: number;
      /** The least a host must send per stretch of waiting on it (`DownloadOptions.minProgress`). */
      minProgress: { bytes: number; withinMs: number };
    },
  ) {}

  async open(rawUrl: string, signal?: AbortSignal): Promise<Recording> {
    const url = URL.canParse(rawUrl) ? new URL(rawUrl) : undefined;
    if (!url) throw new RecordingError('url');
    let res;
    try {
      res = await openDownload(url, {
        maxBytes: this.source.maxBytes,
        maxRedirects: MAX_REDIRECTS,
        minProgress: this.source.minProgress,
        hop: (next, redirectedBy) => this.hop(next, redirectedBy),
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      throw err instanceof RecordingError ? err : fromDownloadError(asDownloadError(err), this.source.maxBytes);
    }
    const host = res.url.host;
    if (res.status < 200 || res.status > 299) {
      await res.discard();
      throw new RecordingError('status', { status: res.status, host });
    }
    const contentType = (headerValue(res.headers['content-type']) ?? '').split(';')[0]!.trim().toLowerCase();
    if (!AUDIO_TYPES.test(contentType)) {
      await res.discard();
      throw new RecordingError('type', { host, contentType: contentType.slice(0, 100) });
    }
    const maxBytes = this.source.maxBytes;
    return {
      contentType,
      extension: EXTENSIONS[contentType] ?? 'audio',
      length: res.length,
      body: recordingErrors(res.body, maxBytes),
      discard: () => res.discard(),
    };
  }

  async close(): Promise<void> {
    await this.publicOnly.close();
  }

  /** How one request goes out, or why it may not (the URL asked for, then each redirect). */
  private hop(url: URL, redirectedBy: number | undefined): Hop {
    const refuse = (problem: RecordingProblem) =>
      new RecordingError(redirectedBy === undefined ? problem : 'redirect', {
        host: url.host,
        ...(redirectedBy !== undefined ? { status: redirectedBy } : {}),
      });
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password) throw refuse('url');
    if (this.listed(url)) return {};
    if (url.protocol !== 'https:') throw refuse('not_https');
    // Node looks nothing up for an IP literal, so the lookup's check would not run: check it here.
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (/^[\d.]+$|:/.test(literal) && !isPublicAddress(literal)) throw refuse('not_public');
    return { dispatcher: this.publicOnly };
  }

  private listed(url: URL): boolean {
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    return this.source.hosts.some((h) => h.hostname === url.hostname && (h.port === undefined || h.port === port));
  }
}

async function* recordingErrors(body: AsyncIterable<Buffer>, maxBytes: number): AsyncGenerator<Buffer> {
  try {
    yield* body;
  } catch (err) {
    throw fromDownloadError(asDownloadError(err), maxBytes);
  }
}

function fromDownloadError(err: DownloadError, maxBytes: number): RecordingError {
  const socketCode = err.detail.socketCode;
  switch (err.problem) {
    case 'too_large':
      return new RecordingError('too_large', { maxBytes });
    case 'bad_redirect':
    case 'too_many_redirects':
      return new RecordingError('redirect', err.detail.status !== undefined ? { status: err.detail.status } : {});
    case 'timeout':
      return new RecordingError('timeout', socketCode ? { socketCode } : {});
    case 'stalled':
      return new RecordingError('stalled');
    case 'network': {
      const refused = err.cause instanceof NonPublicAddressError ? err.cause : undefined;
      if (refused) return new RecordingError('not_public', { host: refused.host });
      if (socketCode === 'ENOTFOUND') return new RecordingError('unknown_host');
      return new RecordingError('network', socketCode ? { socketCode } : {});
    }
  }
}
