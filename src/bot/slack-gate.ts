/**
 * What a request to `/slack/events` must show before its body is read. Bolt's HTTPReceiver reads the whole body
 * (raw-body, up to `bodyLimit`, 4 MB by default) and only then looks at the signature headers
 * (slackapi/bolt-js src/receivers/HTTPModuleFunctions.ts, `parseAndVerifyHTTPRequest`): an unsigned flood
 * of large bodies was held in memory before a single one was refused. Here, before anything is read:
 *
 *   - no `x-slack-signature` (`v0=` + 64 hex) or `x-slack-request-timestamp` → 401;
 *   - a timestamp more than 5 minutes in the past (Slack's window, the same test Bolt applies) or the future → 401;
 *   - a declared `content-length` over 1 MB → 413.
 *
 * Then the body is read here, at most 1 MB (413 past it, while it streams), within 5 s, and within a budget
 * shared by every Slack request being read (503 past it): the bytes of requests whose signature is not yet
 * checked can never add up to more than that, however many connections send them. The body is handed to Bolt
 * as `rawBody`, which Bolt then verifies instead of reading the request again (`bufferIncomingMessage`).
 * The signature itself stays Bolt's to check.
 *
 * Slack's SSL check of slash command URLs comes unsigned (Bolt answers it without a signature, as a tiny
 * form body): an unsigned form of at most 256 declared bytes goes on to Bolt, which answers it or refuses.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BufferedIncomingMessage } from '@slack/bolt';

export const SLACK_EVENTS_PATH = '/slack/events';

export interface SlackGateLimits {
  /** The most a Slack request body may be (Slack's payloads are far smaller; a modal's state is the largest). */
  bodyBytes: number;
  /** The most bytes of not-yet-verified Slack bodies held at once, all requests together. */
  unverifiedBytes: number;
  /** Slack gives the whole exchange 3 s: a body that takes longer to arrive is not Slack's. */
  bodyReadMs: number;
}

export const SLACK_GATE_LIMITS: SlackGateLimits = {
  bodyBytes: 1024 * 1024,
  unverifiedBytes: 32 * 1024 * 1024,
  bodyReadMs: 5_000,
};

/** Slack's replay window: https://api.slack.com/authentication/verifying-requests-from-slack ("five minutes"). */
export const SLACK_WINDOW_S = 5 * 60;
/** The unsigned SSL check (`ssl_check=1&token=…`) is about 40 bytes. */
const UNSIGNED_FORM_BYTES = 256;
/** How long the connection of a refused request stays open (its body unread) for the sender to read the answer. */
const REFUSED_LINGER_MS = 5_000;
const SIGNATURE = /^v0=[0-9a-f]{64}$/;
const TIMESTAMP = /^[0-9]{1,12}$/;
/** A request target `new URL` leaves as it is: no dots, percent signs, backslashes, queries or fragments. */
const PLAIN_PATH = /^[A-Za-z0-9_/-]*$/;

type Handle = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Wraps Bolt's request listener: requests for `/slack/events` pass the checks above first; every other
 * request goes straight on (Bolt routes it: OAuth pages, our custom routes, or its 404).
 */
export function gateSlackRequests(
  handle: Handle,
  limits: SlackGateLimits,
  onError: (err: unknown, req: IncomingMessage, res: ServerResponse) => void,
  now: () => number = Date.now,
): Handle {
  const budget = new ByteBudget(limits.unverifiedBytes);
  return (req, res) => {
    if (req.method !== 'POST' || !isSlackEventsPath(req.url ?? '')) {
      handle(req, res);
      return;
    }
    const refusal = refusalBeforeBody(req, limits, now());
    if (refusal === 'unsigned-form') {
      handle(req, res);
      return;
    }
    if (refusal) {
      refuse(req, res, refusal.status, refusal.text);
      return;
    }
    void readBody(req, limits, budget).then((body) => {
      if (body === 'aborted') return;
      if (body === 'too_large') return refuse(req, res, 413, 'request body over 1 MB');
      if (body === 'busy') return refuse(req, res, 503, 'busy: try again', { 'retry-after': '1' });
      if (body === 'too_slow') return refuse(req, res, 408, 'request body took too long');
      res.once('close', () => budget.release(body.length));
      try {
        handle(Object.assign(req, { rawBody: body }) satisfies BufferedIncomingMessage, res);
      } catch (err) {
        onError(err, req, res);
      }
    });
  };
}

/** The path Bolt would compare with its endpoints (`new URL(req.url).pathname`), without a URL when it is plain. */
function isSlackEventsPath(url: string): boolean {
  if (PLAIN_PATH.test(url)) return url === SLACK_EVENTS_PATH;
  try {
    return new URL(url, 'http://localhost').pathname === SLACK_EVENTS_PATH;
  } catch {
    return false;
  }
}

function refusalBeforeBody(
  req: IncomingMessage,
  limits: SlackGateLimits,
  nowMs: number,
): { status: number; text: string } | 'unsigned-form' | undefined {
  const signature = req.headers['x-slack-signature'];
  const timestamp = req.headers['x-slack-request-timestamp'];
  const declared = Number(req.headers['content-length']);
  if (signature === undefined && timestamp === undefined) {
    const form = req.headers['content-type'] === 'application/x-www-form-urlencoded';
    if (form && declared <= UNSIGNED_FORM_BYTES) return 'unsigned-form';
  }
  if (typeof signature !== 'string' || !SIGNATURE.test(signature)) {
    return { status: 401, text: 'missing or malformed x-slack-signature' };
  }
  if (typeof timestamp !== 'string' || !TIMESTAMP.test(timestamp)) {
    return { status: 401, text: 'missing or malformed x-slack-request-timestamp' };
  }
  const ts = Number(timestamp);
  const nowS = Math.floor(nowMs / 1000);
  if (ts < nowS - SLACK_WINDOW_S) return { status: 401, text: 'request timestamp is stale' };
  if (ts > nowS + SLACK_WINDOW_S) return { status: 401, text: 'request timestamp is in the future' };
  if (declared > limits.bodyBytes) return { status: 413, text: 'request body over 1 MB' };
  return undefined;
}

/** Bytes held by Slack bodies being read or verified, all requests together. */
class ByteBudget {
  private used = 0;

  constructor(private readonly max: number) {}

  take(bytes: number): boolean {
    if (this.used + bytes > this.max) return false;
    this.used += bytes;
    return true;
  }

  release(bytes: number): void {
    this.used -= bytes;
  }
}

type BodyResult = Buffer | 'too_large' | 'busy' | 'too_slow' | 'aborted';

/** Reads the body while it stays within its limit, its time and the shared budget; stops reading at once past any. */
function readBody(req: IncomingMessage, limits: SlackGateLimits, budget: ByteBudget): Promise<BodyResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: BodyResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      if (!Buffer.isBuffer(result)) {
        req.pause();
        budget.release(size);
      }
      resolve(result);
    };
    const timer = setTimeout(() => settle('too_slow'), limits.bodyReadMs);
    const onData = (chunk: Buffer) => {
      if (size + chunk.length > limits.bodyBytes) return settle('too_large');
      if (!budget.take(chunk.length)) return settle('busy');
      size += chunk.length;
      chunks.push(chunk);
    };
    const onEnd = () => settle(Buffer.concat(chunks, size));
    const onError = () => settle('aborted');
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/**
 * Answers without reading what is left of the body. Node would read and discard the rest once the answer is
 * sent (the sender's bytes at our CPU's cost), and closes at once when the request said `Connection: close`;
 * a close while input still arrives resets the connection, and the reset can erase the answer before the
 * client reads it (RFC 9112 §9.6, "Tear-down"). So the rest is left unread: reading stops at a few kB
 * (`read(0)` takes the body over, and nothing reads it), the connection is not closed with the answer, the
 * sender waits on its own buffers and reads the answer meanwhile, and the connection goes a moment later
 * unless the body has ended.
 */
function refuse(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  const unread = !req.complete;
  if (unread) res.shouldKeepAlive = true;
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
  if (!unread) return;
  req.pause();
  req.read(0);
  setTimeout(() => {
    if (!req.complete) req.destroy();
  }, REFUSED_LINGER_MS).unref();
}
