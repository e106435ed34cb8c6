/**
 * Structured JSON logging (pino) with a redaction layer.
 *
 * Two nets catch secrets before a line is written:
 *  - known secret values (bot token, signing secret, API keys, hook tokens) registered with
 *    `redactor.addSecret()` are replaced wherever they appear in any string of the line;
 *  - token-shaped strings (Slack `xox?-…`/`xapp-…`) are masked even when nobody registered them.
 * Field names that always hold secrets (`apiKey`, `token`, `authorization`…) are censored by pino's
 * path redaction as well.
 */
import { pino, type Logger, type LoggerOptions, type DestinationStream } from 'pino';
import type { LogLevel } from './config.js';

export type { Logger } from 'pino';

const SLACK_TOKEN = /\b(xox[abposre]|xapp)-[A-Za-z0-9-]{6,}/g;
const MAX_KNOWN_SECRETS = 10_000;

export class Redactor {
  private readonly secrets = new Set<string>();
  private pattern: RegExp | undefined;

  /** Registers a secret value; short values are ignored (they would mask ordinary words). */
  addSecret(value: string | undefined): void {
    if (!value || value.length < 8 || this.secrets.has(value)) return;
    if (this.secrets.size >= MAX_KNOWN_SECRETS) {
      const oldest = this.secrets.values().next().value;
      if (oldest !== undefined) this.secrets.delete(oldest);
    }
    this.secrets.add(value);
    this.pattern = undefined;
  }

  redact(text: string): string {
    let out = text.replace(SLACK_TOKEN, (m) => `${m.slice(0, m.indexOf('-') + 1)}[redacted]`);
    if (this.secrets.size === 0) return out;
    this.pattern ??= new RegExp([...this.secrets].map(escapeRegExp).join('|'), 'g');
    out = out.replace(this.pattern, (m) => `[redacted…${m.slice(-4)}]`);
    return out;
  }

  /** Deep copy of a log payload with every string redacted. */
  redactValue(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (depth > 8 || value === null || typeof value !== 'object') return value;
    if (value instanceof Error) {
      return { type: value.name, message: this.redact(value.message), stack: value.stack ? this.redact(value.stack) : undefined, ...this.redactEntries(value, depth) };
    }
    if (Array.isArray(value)) return value.map((v) => this.redactValue(v, depth + 1));
    if (Buffer.isBuffer(value)) return `[${value.length} bytes]`;
    return this.redactEntries(value, depth);
  }

  private redactEntries(value: object, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = this.redactValue(v, depth + 1);
    return out;
  }
}

export interface LoggerSetup {
  level: LogLevel;
  redactor: Redactor;
  /** Where lines go; tests pass a capture stream. Defaults to stdout. */
  destination?: DestinationStream;
}

export function createLogger({ level, redactor, destination }: LoggerSetup): Logger {
  const options: LoggerOptions = {
    level,
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: {
      level: (label) => ({ level: label }),
      log: (obj) => redactor.redactValue(obj) as Record<string, unknown>,
    },
    redact: {
      paths: ['apiKey', '*.apiKey', 'token', '*.token', 'authorization', '*.authorization', 'headers.authorization', 'headers["api-key"]', 'botToken', 'signingSecret'],
      censor: '[redacted]',
    },
    hooks: {
      // The message string is not seen by formatters.log: redact it here.
      logMethod(args, method) {
        method.apply(this, args.map((a) => (typeof a === 'string' ? redactor.redact(a) : a)) as Parameters<typeof method>);
      },
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
