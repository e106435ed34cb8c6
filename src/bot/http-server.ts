/**
 * The HTTP server on PORT, bounded: how long a client may take to send its request, how many connections may
 * be open, and what happens to a route that throws. Node's defaults (no connection cap, 60 s to send the
 * headers, 300 s for the whole request, checked every 30 s) let a few thousand silent sockets hold every file
 * descriptor for minutes, and `/healthz` and Slack's requests with them.
 */
import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../logger.js';
import { dropSlowBody } from '../util/request-body.js';

export interface HttpLimits {
  /** Open connections at most; beyond, Node drops new ones at once. */
  maxConnections: number;
  /** From a connection's first byte (or its previous answer) to the end of the request headers. */
  headersTimeoutMs: number;
  /** From the first byte to the end of the request body. */
  requestTimeoutMs: number;
  /** From the end of the request headers to the end of its body (`/slack/events` has a shorter one of its own). */
  bodyTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** How often Node looks for requests over their time. */
  checkEveryMs: number;
}

export const HTTP_LIMITS: HttpLimits = {
  // Far below the file-descriptor limits of containers and hosts; each open socket costs some kB.
  maxConnections: 2_000,
  // Slack gives the whole exchange 3 s, the platform's deliveries are at most 256 KB.
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  // A webhook delivery is at most 256 KB; a body still arriving after 10 s is a sender holding a socket.
  bodyTimeoutMs: 10_000,
  // Node's own default, kept below `headersTimeoutMs`: an idle connection holds a place for 5 s at most.
  keepAliveTimeoutMs: 5_000,
  checkEveryMs: 1_000,
};

/** Options for `http.createServer` (the receiver creates the server on PORT with them). */
export function serverOptions(limits: HttpLimits): ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: limits.checkEveryMs,
  };
}

/**
 * The connection cap, and room kept under it: when the connections reach the cap, one is closed to make room —
 * the oldest idle on keep-alive after its answer, else the oldest that has not sent a request yet, else the
 * oldest whose request body is still arriving. A flood of idle, silent or trickling sockets then never keeps
 * out a client that sends its request (a probe of `/healthz`, Slack); it only shortens how long such a socket
 * may hold its place. A request whose body has arrived (being answered, or a download) is never closed for room.
 *
 * Each closing takes the socket out of every list and out of the count at once (its `close` event comes
 * later), so making room always ends: every round either frees one counted place or finds nothing to close.
 *
 * Every request body has `bodyTimeoutMs` to arrive, whatever the route: past it, 408 and the connection closed
 * (Node's own `requestTimeout` is looked at once a `checkEveryMs`, and allows far longer).
 */
export function capConnections(server: Server, limits: HttpLimits): void {
  server.maxConnections = limits.maxConnections;
  // Node counts a closed socket only once it has closed, and takes in connections in bursts: keep some room.
  const roomAt = limits.maxConnections - Math.max(1, Math.floor(limits.maxConnections / 16));
  // Counted sockets that may be closed for room, oldest first (insertion order).
  const idle = new Set<Socket>();
  const silent = new Set<Socket>();
  const receiving = new Map<Socket, IncomingMessage>();
  // Requests of each socket not yet answered (pipelined ones included): at 0 after an answer, it is idle.
  const pending = new Map<Socket, number>();
  const forget = (socket: Socket): boolean => {
    const counted = pending.delete(socket);
    idle.delete(socket);
    silent.delete(socket);
    receiving.delete(socket);
    return counted;
  };
  const oldest = (): Socket | undefined => {
    for (const socket of idle) return socket;
    for (const socket of silent) return socket;
    for (const [socket, req] of receiving) {
      if (!req.complete) return socket;
      receiving.delete(socket);
    }
    return undefined;
  };
  server.on('connection', (socket: Socket) => {
    socket.once('close', () => forget(socket));
    while (pending.size >= roomAt) {
      const victim = oldest();
      if (victim === undefined || !forget(victim)) break;
      victim.destroy();
    }
    pending.set(socket, 0);
    silent.add(socket);
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    const before = pending.get(socket);
    if (before === undefined) return;
    pending.set(socket, before + 1);
    silent.delete(socket);
    idle.delete(socket);
    res.once('close', () => {
      const left = (pending.get(socket) ?? 0) - 1;
      if (!pending.has(socket) || socket.destroyed) return;
      pending.set(socket, left);
      if (left === 0) idle.add(socket);
    });
    if (!hasBody(req)) return;
    receiving.set(socket, req);
    const deadline = setTimeout(() => {
      if (!req.complete) dropSlowBody(res);
    }, limits.bodyTimeoutMs);
    deadline.unref();
    const arrived = () => {
      clearTimeout(deadline);
      req.off('end', arrived);
      socket.off('close', arrived);
      if (receiving.get(socket) === req) receiving.delete(socket);
    };
    // Answered or not, the body still has its time (Node reads out what a route left unread).
    req.once('end', arrived);
    socket.once('close', arrived);
  });
}

function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length']) > 0;
}

/**
 * A request path a proxy in front and our router could read as two different paths: a backslash (the WHATWG
 * URL parser, which Bolt's router uses, reads it as `/`; nginx does not, so `/slack/..\metrics` passed an Ingress
 * routing `/slack` and reached `/metrics`), a `.` or `..` segment, or a dot, slash, backslash or percent sign
 * percent-encoded (`%2e`, `%2f`, `%5c`, `%25`: decoded by one side and not the other, or twice). None of the
 * bot's paths has any of them; the query string is not looked at.
 * (Backslash as slash: https://url.spec.whatwg.org/#path-state, "url is special and c is U+005C".)
 */
const AMBIGUOUS_PATH = /\\|%(2e|2f|5c|25)|(^|\/)\.{1,2}(\/|$)/i;

/** 400 before any route sees a path that could mean something else behind a proxy (above); true when refused. */
export function refuseAmbiguousPath(req: IncomingMessage, res: ServerResponse): boolean {
  const url = req.url ?? '';
  const query = url.indexOf('?');
  if (!AMBIGUOUS_PATH.test(query === -1 ? url : url.slice(0, query))) return false;
  const text = 'request path not allowed';
  res.writeHead(400, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    connection: 'close',
  });
  res.end(text);
  return true;
}

/**
 * What a route that throws gets: 404 for a path that cannot be decoded (`/hooks/%E0%A4%A`: the routers'
 * `decodeURIComponent` throws `URIError`) or that nothing serves, 500 otherwise — never a request left
 * unanswered. The path is logged with any hook or attachment token masked.
 */
export function answerRouteError(
  logger: Logger,
  err: unknown,
  req: IncomingMessage,
  res: ServerResponse,
  unrouted: (err: unknown) => boolean,
): void {
  const known = err instanceof URIError || unrouted(err);
  if (known) logger.info({ method: req.method, path: maskTokenPath(req.url ?? '') }, 'no route for request');
  else logger.warn({ err, method: req.method, path: maskTokenPath(req.url ?? '') }, 'request failed before routing');
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(known ? 404 : 500);
  res.end();
}

/** `/hooks/<token>/…` → `/hooks/…` (and `/attachments/<token>`): tokens are secrets and never reach a log line. */
function maskTokenPath(url: string): string {
  return url.replace(/^\/(hooks|attachments)\/[^/?#]*/, '/$1/…').slice(0, 200);
}
