/**
 * Bolt and its Web API client log through @slack/logger's interface; route that into our pino
 * logger so every line is JSON and passes the same redaction.
 */
import { LogLevel, type Logger as SlackLogger } from '@slack/logger';
import type { Logger } from '../logger.js';
import { isPaceWait } from './pace.js';

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
      const line = msg.map((m) => (typeof m === 'string' ? m : safeString(m))).join(' ');
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

function safeString(value: unknown): string {
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}
