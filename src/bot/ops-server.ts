/**
 * OPS_PORT: a second server for `/healthz`, `/readyz` and `/metrics` only, so that what operators and probes
 * read never shares a port (or an Ingress route) with Slack, webhooks and customers. It has the limits of
 * PORT (http-server.ts) with a smaller connection cap: probes and a scraper, not the world, connect here.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CustomRoute } from '@slack/bolt';
import type { Logger } from '../logger.js';
import { capConnections, refuseAmbiguousPath, serverOptions, type HttpLimits } from './http-server.js';

/** Kubelet probes and a few scrapers per replica. */
const OPS_MAX_CONNECTIONS = 64;

export class OpsServer {
  private readonly server: Server;

  constructor(routes: readonly CustomRoute[], limits: HttpLimits, logger: Logger) {
    this.server = createServer(serverOptions(limits), (req, res) => {
      try {
        if (!refuseAmbiguousPath(req, res)) serve(routes, req, res);
      } catch (err) {
        logger.warn({ err, path: (req.url ?? '').slice(0, 100) }, 'ops request failed');
        if (!res.headersSent) res.writeHead(500);
        res.end();
      }
    });
    capConnections(this.server, { ...limits, maxConnections: Math.min(limits.maxConnections, OPS_MAX_CONNECTIONS) });
  }

  async start(port: number, host?: string): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen({ port, ...(host === undefined ? {} : { host }) }, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    return (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    if (!this.server.listening) return;
    this.server.closeIdleConnections();
    await new Promise<void>((resolve, reject) => this.server.close((err) => (err ? reject(err) : resolve())));
  }
}

/** Exact paths, as Bolt routes them: 404 for another path, 405 for another method. */
function serve(routes: readonly CustomRoute[], req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '').split('?')[0];
  const route = routes.find((r) => r.path === path);
  const methods = route === undefined ? [] : [route.method].flat().map((m) => m.toUpperCase());
  if (!route || !methods.includes(req.method ?? '')) {
    res.writeHead(route ? 405 : 404, route ? { allow: methods.join(', ') } : {});
    res.end();
    return;
  }
  route.handler(Object.assign(req, { params: {} }), res);
}
