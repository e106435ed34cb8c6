/** How Slack's requests reach the bot: the signature, the User-Agent, and a timed POST over real HTTP (undici). */
import { createHmac } from 'node:crypto';
import { request } from 'undici';

export const SLACK_USER_AGENT = 'Slackbot 1.0 (+https://api.slack.com/robots)';
const SLACK_ACK_DEADLINE_MS = 3000;

export interface SignedResult {
  status: number;
  /** Raw response body. */
  body: string;
  /** The body parsed as JSON, when it is JSON. */
  json?: unknown;
  /** Milliseconds from sending to the whole response being read — the ack latency Slack measures. */
  ms: number;
  /** Slack gives up on an ack after 3 s (the user sees a timeout error, events get retried). */
  timedOut: boolean;
  headers: Record<string, string>;
  /** What was sent, byte for byte: replaying it is what an attacker who captured the request would do. */
  sent: { url: string; body: string; headers: Record<string, string> };
}

/** Slack's signature for `body` sent at `timestamp` (seconds). */
export function slackSignature(signingSecret: string, timestamp: number, body: string): string {
  return `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

/** POSTs `body` to the bot and times the whole response, as Slack measures an ack. */
export async function postAsSlack(url: string, body: string, headers: Record<string, string>): Promise<SignedResult> {
  const started = performance.now();
  const res = await request(url, {
    method: 'POST',
    headers,
    body,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  const text = await res.body.text();
  const ms = performance.now() - started;
  const resHeaders: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) {
    if (v !== undefined) resHeaders[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  const result: SignedResult = {
    status: res.statusCode,
    body: text,
    ms,
    timedOut: ms > SLACK_ACK_DEADLINE_MS,
    headers: resHeaders,
    sent: { url, body, headers },
  };
  if (text !== '') {
    try {
      result.json = JSON.parse(text) as unknown;
    } catch {
      // not JSON (e.g. a plain-text ack): `body` has it
    }
  }
  return result;
}
