/**
 * The HTTP server on PORT, bounded: how long a client may take to send its request, how many connections may
 * be open, and what happens to a route that throws. Node's defaults (no connection cap, 60 s to send the
 * headers, 300 s for the whole request, checked every 30 s) let a few thousand silent sockets hold every file
 * descriptor for minutes, and `/healthz` and Slack's requests with them.
 */
import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../logger.js';

export interface HttpLimits {
  /** Open connections at most; beyond, Node drops new ones at once. */
  maxConnections: number;
  /** From a connection's first byte (or its previous answer) to the end of the request headers. */
  headersTimeoutMs: number;
  /** From the first byte to the end of the request body. */
  requestTimeoutMs: number;
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
  // Node's own default, kept below `headersTimeoutMs`: an idle connection holds a place for 5 s at most.
  keepAliveTimeoutMs: 5_000,
  checkEveryMs: 1_000,
};

/** Options for `http.createServer` (HTTP mode: Bolt's receiver creates the server with them). */
export function serverOptions(limits: HttpLimits): ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: limits.checkEveryMs,
  };
}

/**
 * The same limits on a server made elsewhere (Socket Mode: Bolt's route server). Before `listen()`: Node
 * starts its timeout checks on 'listening', with the interval set then.
 */
export function applyServerLimits(server: Server, limits: HttpLimits): void {
  server.requestTimeout = limits.requestTimeoutMs;
  server.headersTimeout = limits.headersTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  // A documented server option (`http.createServer`), read when the server starts listening; not in the types.
  Reflect.set(server, 'connectionsCheckingInterval', limits.checkEveryMs);
}

/**
 * The connection cap, and room kept under it: when the connections reach the cap, the oldest one that has not
 * sent a request yet is closed to make room. A flood of silent sockets then never keeps out a client that
 * sends its request (a probe of `/healthz`, Slack); it only shortens how long a silent socket may wait.
 * Connections with a request under way are never closed for room (their time is `requestTimeoutMs`).
 */
export function capConnections(server: Server, limits: HttpLimits): void {
  server.maxConnections = limits.maxConnections;
  // Node counts a closed socket only once it has closed, and takes in connections in bursts: keep some room.
  const roomAt = limits.maxConnections - Math.max(1, Math.floor(limits.maxConnections / 16));
  // Silent sockets → how to stop counting them; insertion order is age, the first one is the oldest.
  const silent = new Map<Socket, () => void>();
  let open = 0;
  server.on('connection', (socket: Socket) => {
    open++;
    let counted = true;
    const uncount = () => {
      if (counted) open--;
      counted = false;
    };
    socket.once('close', () => {
      uncount();
      silent.delete(socket);
    });
    while (open > roomAt) {
      const oldest = silent.entries().next().value;
      if (!oldest) break;
      silent.delete(oldest[0]);
      oldest[1]();
      oldest[0].destroy();
    }
    silent.set(socket, uncount);
  });
  server.on('request', (req: IncomingMessage) => silent.delete(req.socket));
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
