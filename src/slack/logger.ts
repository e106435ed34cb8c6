/**
 * Bolt and its Web API client log through @slack/logger's interface; route that into our pino
 * logger so every line is JSON and passes the same redaction, with request and answer bodies summarized.
 */
import { LogLevel, type Logger as SlackLogger } from '@slack/logger';
import type { Logger } from '../logger.js';
import { isPaceWait } from '../delivery/pace.js';

const TO_PINO: Record<LogLevel, 'debug' | 'info' | 'warn' | 'error'> = {
  [LogLevel.DEBUG]: 'debug',
  [LogLevel.INFO]: 'info',
  [LogLevel.WARN]: 'warn',
  [LogLevel.ERROR]: 'error',
};

export function boltLogger(base: Logger, name = 'bolt'): SlackLogger {
  let logger = base.child({ component: name });
  const write =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (...msg: unknown[]) => {
      const line = summarized(msg.map((m) => (typeof m === 'string' ? m : safeString(m))).join(' '));
      // WebClient reports a call held back for Slack's limits as a failed request: it is routine.
      logger[level === 'warn' && isPaceWait(line) ? 'debug' : level](line);
    };
  return {
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    // Our LOG_LEVEL governs; Bolt's own calls to setLevel must not lower it.
    setLevel: () => undefined,
    getLevel: () =>
      (Object.entries(TO_PINO).find(([, v]) => v === base.level)?.[0] as LogLevel | undefined) ?? LogLevel.INFO,
    setName: (n: string) => {
      logger = base.child({ component: n });
    },
  };
}

/**
 * WebClient logs every request's body and Slack's whole answer at debug (`http request body: {…}`, `http
 * request result: {…}`): customers' names, numbers and texts. Those lines keep only their size and ids.
 */
const BODY_LINES = /^(http request body|http request result): ([\s\S]*)$/;
const ID_FIELDS = ['ok', 'error', 'channel', 'channel_id', 'thread_ts', 'ts', 'user', 'file', 'view_id'] as const;

function summarized(line: string): string {
  const m = BODY_LINES.exec(line);
  if (!m) return line;
  const [, what, json = ''] = m;
  let ids: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(json);
    if (typeof parsed === 'object' && parsed !== null) {
      const fields = parsed as Record<string, unknown>;
      for (const f of ID_FIELDS) {
        const v = fields[f];
        if (typeof v === 'boolean' || (typeof v === 'string' && /^[\w.-]{1,40}$/.test(v))) ids[f] = v;
      }
    }
  } catch {
    ids = {};
  }
  return `${what}: ${Buffer.byteLength(json)} bytes ${JSON.stringify(ids)}`;
}

function safeString(value: unknown): string {
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}
