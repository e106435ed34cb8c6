/**
 * Non-Slack HTTP routes served on PORT beside `/slack/events` (Bolt `customRoutes`):
 * liveness, readiness and Prometheus metrics.
 */
import type { CustomRoute } from '@slack/bolt';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Deps } from '../app/deps.js';
import { readiness, type SlackTokenCheck } from './readiness.js';

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
  });
  res.end(payload);
}

/** `slackToken`: with one workspace's token, its standing with Slack (src/bot/readiness.ts). */
export function healthRoutes(
  deps: Pick<Deps, 'config' | 'store' | 'metrics' | 'logger' | 'lifecycle'>,
  slackToken?: SlackTokenCheck,
): CustomRoute[] {
  return [
    {
      // Liveness: the process is up and serving HTTP.
      path: '/healthz',
      method: ['GET'],
      handler: (_req, res) => sendJson(res, 200, { ok: true }),
    },
    {
      // Readiness: config was valid (we would not be running otherwise), the store answers, Slack takes the token,
      // not shutting down.
      path: '/readyz',
      method: ['GET'],
      handler: (_req, res) => {
        void readiness(deps, slackToken).then(({ ok, failed, checks }) => {
          sendJson(res, ok ? 200 : 503, { ok, failed, checks });
        });
      },
    },
    {
      path: '/metrics',
      method: ['GET'],
      handler: (req, res) => {
        const { metricsToken } = deps.config;
        if (metricsToken !== undefined && !bearerMatches(req, metricsToken)) {
          // RFC 6750 §3: a protected resource answers 401 with the scheme it expects.
          res.writeHead(401, {
            'www-authenticate': 'Bearer realm="metrics"',
            'content-type': 'text/plain; charset=utf-8',
          });
          res.end('metrics need Authorization: Bearer <METRICS_TOKEN>\n');
          return;
        }
        deps.metrics.registry.metrics().then(
          (text) => {
            res.writeHead(200, { 'content-type': deps.metrics.registry.contentType });
            res.end(text);
          },
          (err: unknown) => {
            deps.logger.error({ err }, 'could not collect metrics');
            sendJson(res, 500, { ok: false });
          },
        );
      },
    },
  ];
}

/** Compares digests in constant time, so neither the token's content nor its length leaks through timing. */
function bearerMatches(req: IncomingMessage, token: string): boolean {
  const given = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
  const digest = (v: string) => createHash('sha256').update(v, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(token));
}
