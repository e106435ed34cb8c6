/**
 * What a request to `/slack/events` must show before Bolt sees it. Bolt's HTTPReceiver reads the whole body
 * (raw-body, up to `bodyLimit`, 4 MB by default), decodes it to a string and, for a form, parses it before it
 * checks the signature (slackapi/bolt-js src/receivers/HTTPModuleFunctions.ts, `parseAndVerifyHTTPRequest`):
 * an unsigned flood of large bodies was held in memory, and a forged one cost a decode and a parse, before a
 * single one was refused. Here, before anything is read:
 *
 *   - no `x-slack-signature` (`v0=` + 64 hex) or `x-slack-request-timestamp` → 401;
 *   - a timestamp more than 5 minutes in the past (Slack's window, the same test Bolt applies) or the future → 401;
 *   - a declared `content-length` over 1 MB → 413.
 *
 * Then the body is read here, at most 1 MB (413 past it, while it streams), within 5 s (408 and closed past
 * it), and within a budget shared by every Slack request being read (503 past it): the bytes of requests whose
 * signature is not yet checked can never add up to more than that, however many connections send them; one
 * client holds at most its share of it, and a reserve of it is kept for small bodies (`UnverifiedBytes`). Then
 * the signature is checked over the raw bytes, in constant time, before anything decodes or parses them
 * (https://docs.slack.dev/authentication/verifying-requests-from-slack): a forgery costs one HMAC. Only a
 * verified body goes on, as `rawBody`; Bolt is configured not to verify it again (`signatureVerification: false`).
 *
 * Slack's SSL check of slash command URLs comes unsigned, as a tiny form: an unsigned form of at most 256
 * declared bytes is read (within the same time) and answered 200 when it is `ssl_check=1`, 401 otherwise.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseForm } from 'node:querystring';
import type { BufferedIncomingMessage } from '@slack/bolt';
import { dropSlowBody, readBody } from '../util/request-body.js';

const SLACK_EVENTS_PATH = '/slack/events';

export interface SlackGateLimits {
  /** The most a Slack request body may be (Slack's payloads are far smaller; a modal's state is the largest). */
  bodyBytes: number;
  /** The most bytes of not-yet-verified Slack bodies held at once, all requests together. */
  unverifiedBytes: number;
  /** Of `unverifiedBytes`, what only small bodies may take (below): large ones never hold all of the budget. */
  smallReserveBytes: number;
  /** A body of at most this many bytes is small: slash commands (~3 KB), most events and actions. */
  smallBodyBytes: number;
  /** The most unverified bytes one client holds outside the reserve (client-address.ts says who is one client). */
  perClientBytes: number;
  /** Slack gives the whole exchange 3 s: a body that takes longer to arrive is not Slack's (408, closed). */
  bodyReadMs: number;
}

export const SLACK_GATE_LIMITS: SlackGateLimits = {
  bodyBytes: 1024 * 1024,
  unverifiedBytes: 32 * 1024 * 1024,
  // 128 bodies of 64 KB, or some 2,700 slash commands, arriving at once.
  smallReserveBytes: 8 * 1024 * 1024,
  smallBodyBytes: 64 * 1024,
  // Four bodies of the largest size Slack sends: one sender can't take the shared part alone.
  perClientBytes: 4 * 1024 * 1024,
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

export interface SlackGate {
  /** The app's signing secret (Basic Information → App Credentials). */
  signingSecret: string;
  limits: SlackGateLimits;
  /** A request whose signature matched, its raw body read (`rawBody`). */
  verified: (req: BufferedIncomingMessage, res: ServerResponse) => void;
  onError: (err: unknown, req: IncomingMessage, res: ServerResponse) => void;
  /** The client a request's bytes are counted against (client-address.ts). */
  clientOf: (req: IncomingMessage) => string;
  now?: () => number;
}

/** The handler of `POST /slack/events` (the caller routes): the checks above, then `verified`. */
export function gateSlackRequests(gate: SlackGate): Handle {
  const { limits, now = Date.now } = gate;
  const budget = new UnverifiedBytes(limits);
  return (req, res) => {
    const refusal = refusalBeforeBody(req, limits, now());
    if (refusal && refusal !== 'unsigned-form') {
      refuse(req, res, refusal.status, refusal.text);
      return;
    }
    const hold = budget.holdFor(gate.clientOf(req));
    const declared = Number(req.headers['content-length'] ?? 0);
    const bounds = {
      maxBytes: limits.bodyBytes,
      timeoutMs: limits.bodyReadMs,
      admit: (bytes: number, total: number) => hold.take(bytes, Math.max(declared, total) <= limits.smallBodyBytes),
    };
    void readBody(req, bounds).then((body) => {
      if (!Buffer.isBuffer(body)) hold.release();
      if (body === 'aborted') return;
      if (body === 'too_large') return refuse(req, res, 413, 'request body over 1 MB');
      if (body === 'not_admitted') return refuse(req, res, 503, 'busy: try again', { 'retry-after': '1' });
      if (body === 'too_slow') return dropSlowBody(res);
      res.once('close', () => hold.release());
      if (refusal === 'unsigned-form') return answerSslCheck(req, res, body);
      if (!signatureMatches(gate.signingSecret, req, body)) return refuse(req, res, 401, 'invalid signature');
      try {
        gate.verified(Object.assign(req, { rawBody: body }) satisfies BufferedIncomingMessage, res);
      } catch (err) {
        gate.onError(err, req, res);
      }
    });
  };
}

/** `v0=` + HMAC-SHA256(secret, `v0:{timestamp}:{raw body}`), compared in constant time; both are 32 bytes. */
function signatureMatches(secret: string, req: IncomingMessage, body: Buffer): boolean {
  // refusalBeforeBody let through only a `v0=` + 64 hex signature and a numeric timestamp.
  const given = Buffer.from(String(req.headers['x-slack-signature']).slice(3), 'hex');
  const timestamp = String(req.headers['x-slack-request-timestamp']);
  const expected = createHmac('sha256', secret).update(`v0:${timestamp}:`).update(body).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Slack's unsigned SSL check (`ssl_check=1&token=…`) is answered 200; any other unsigned form is refused. */
function answerSslCheck(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
  if (parseForm(body.toString('utf8')).ssl_check !== '1') return refuse(req, res, 401, 'unsigned request');
  res.writeHead(200);
  res.end();
}

/** The path Bolt would compare with its endpoints (`new URL(req.url).pathname`), without a URL when it is plain. */
export function isSlackEventsPath(url: string): boolean {
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

/**
 * Bytes held by Slack bodies being read or verified. Two parts: the shared one, where each client holds at most
 * `perClientBytes`, and the reserve, which only small bodies take, once the shared part or their client's share
 * of it is full. Stalled or forged large bodies — from one client or many — then never hold the room a slash
 * command needs; small ones from one client take its share, then the reserve with everyone else.
 */
class UnverifiedBytes {
  private shared = 0;
  private reserved = 0;
  private readonly byClient = new Map<string, number>();

  constructor(private readonly limits: SlackGateLimits) {}

  /** What one body holds; `release` gives it all back (once). */
  holdFor(client: string): BodyHold {
    let shared = 0;
    let reserved = 0;
    return {
      take: (bytes, small) => {
        const mine = this.byClient.get(client) ?? 0;
        const sharedRoom = this.limits.unverifiedBytes - this.limits.smallReserveBytes - this.shared;
        if (bytes <= sharedRoom && mine + bytes <= this.limits.perClientBytes) {
          shared += bytes;
          this.shared += bytes;
          this.byClient.set(client, mine + bytes);
          return true;
        }
        if (!small || this.reserved + bytes > this.limits.smallReserveBytes) return false;
        reserved += bytes;
        this.reserved += bytes;
        return true;
      },
      release: () => {
        this.shared -= shared;
        this.reserved -= reserved;
        const left = (this.byClient.get(client) ?? 0) - shared;
        if (left > 0) this.byClient.set(client, left);
        else this.byClient.delete(client);
        shared = 0;
        reserved = 0;
      },
    };
  }
}

interface BodyHold {
  /** Room for `bytes` more of this body; `small` while the whole body stays a small one. */
  take(bytes: number, small: boolean): boolean;
  release(): void;
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
