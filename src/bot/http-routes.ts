/**
 * Non-Slack HTTP routes served on PORT beside `/slack/events` (Bolt `customRoutes`).
 */
import type { CustomRoute } from '@slack/bolt';
import type { ServerResponse } from 'node:http';

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

export function healthRoutes(): CustomRoute[] {
  return [
    {
      path: '/healthz',
      method: ['GET'],
      handler: (_req, res) => sendJson(res, 200, { ok: true }),
    },
  ];
}
