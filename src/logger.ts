/**
 * Structured JSON logging (pino) that never writes a secret: registered values (`pinSecret`, `addSecret`)
 * and secret-shaped strings (Slack tokens, hook tokens and `/hooks/<token>` paths) are masked in every
 * string, and fields that always hold secrets (`SECRET_FIELDS`) are censored at any depth — in a line's message
 * and fields and in a child logger's bindings, in the one copy `Redactor.redactValue` makes of them. (pino's path
 * redaction did the censoring before: it cost as much again as the rest of a line.)
 */
import { pino, stdTimeFunctions, type Logger, type LoggerOptions, type DestinationStream } from 'pino';
import type { LogLevel } from './config.js';
import { maskSecretShapes } from './util/secret-shapes.js';

export type { Logger } from 'pino';

const MAX_KNOWN_SECRETS = 10_000;
/** Shorter values are never registered as secrets: they would mask ordinary words. */
const MIN_SECRET_LENGTH = 8;

/** Field names whose values are secrets whatever they hold: censored wherever they appear. */
const SECRET_FIELDS = new Set(['apiKey', 'api-key', 'token', 'authorization', 'botToken', 'signingSecret']);
const CENSORED = '[redacted]';
/** pino's number for `debug`. */
const DEBUG = 20;

export class Redactor {
  /** Configuration secrets: never evicted. */
  private readonly pinned = new Set<string>();
  /** Secrets met at run time, least recently registered first. */
  private readonly recent = new Set<string>();
  private pattern: RegExp | undefined;

  /** Registers a configuration secret for the life of the process; short values are ignored (they would mask ordinary words). */
  pinSecret(value: string | undefined): void {
    if (!value || value.length < MIN_SECRET_LENGTH || this.pinned.has(value)) return;
    this.pinned.add(value);
    this.recent.delete(value);
    this.pattern = undefined;
  }

  /** Registers a secret met at run time; registering it again makes it the most recent (forgotten last). */
  addSecret(value: string | undefined): void {
    if (!value || value.length < MIN_SECRET_LENGTH || this.pinned.has(value)) return;
    if (this.recent.delete(value)) {
      this.recent.add(value); // same members: the pattern stays valid
      return;
    }
    if (this.recent.size >= MAX_KNOWN_SECRETS) {
      const oldest = this.recent.values().next().value;
      if (oldest !== undefined) this.recent.delete(oldest);
    }
    this.recent.add(value);
    this.pattern = undefined;
  }

  redact(text: string): string {
    let out = text;
    // Known values first: a shape rule could otherwise mask only part of one and leave the rest unmatched.
    // No registered secret is shorter than MIN_SECRET_LENGTH, so a shorter string holds none.
    if (text.length >= MIN_SECRET_LENGTH && this.pinned.size + this.recent.size > 0) {
      // Longest first, so a secret that starts with a shorter one is masked whole.
      this.pattern ??= new RegExp(
        [...this.pinned, ...this.recent]
          .sort((a, b) => b.length - a.length)
          .map(escapeRegExp)
          .join('|'),
        'g',
      );
      out = out.replace(this.pattern, (m) => `[redacted…${m.slice(-4)}]`);
    }
    return maskSecretShapes(out);
  }

  /** Deep copy of a log payload with every string redacted and every `SECRET_FIELDS` value censored. */
  redactValue(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (depth > 8 || value === null || typeof value !== 'object') return value;
    if (value instanceof Error) {
      return {
        type: value.name,
        message: this.redact(value.message),
        stack: value.stack ? this.redact(value.stack) : undefined,
        ...this.redactEntries(value, depth),
      };
    }
    if (Array.isArray(value)) return value.map((v) => this.redactValue(v, depth + 1));
    if (Buffer.isBuffer(value)) return `[${value.length} bytes]`;
    return this.redactEntries(value, depth);
  }

  private redactEntries(value: object, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = SECRET_FIELDS.has(k) && v !== undefined ? CENSORED : this.redactValue(v, depth + 1);
    }
    return out;
  }
}

export interface LoggerSetup {
  level: LogLevel;
  redactor: Redactor;
  /** Where lines go: the process's bounded, never-blocking stdout (log-output.ts), or a test's capture stream. */
  destination: DestinationStream;
  /** Errors told elsewhere once a minute (the store not answering: `reportOutages`): lines with one go to debug. */
  quiet?: (err: unknown) => boolean;
}

export function createLogger({ level, redactor, destination, quiet }: LoggerSetup): Logger {
  const options: LoggerOptions = {
    level,
    base: undefined,
    timestamp: stdTimeFunctions.isoTime,
    formatters: {
      level: (label) => ({ level: label }),
      log: (obj) => redactor.redactValue(obj) as Record<string, unknown>,
    },
    hooks: {
      // The message string is not seen by formatters.log: redact it here.
      logMethod(args, method, at) {
        const first: unknown = args[0];
        const err = first instanceof Error ? first : (first as { err?: unknown } | null)?.err;
        if (quiet && at > DEBUG && err !== undefined && quiet(err)) {
          if (this.isLevelEnabled('debug')) this.debug(...args);
          return;
        }
        method.apply(
          this,
          args.map((a) => (typeof a === 'string' ? redactor.redact(a) : a)) as Parameters<typeof method>,
        );
      },
    },
  };
  const logger = pino(options, destination);
  // Child loggers' bindings never reach formatters.log (and pino resets formatters.bindings for children): they
  // are redacted here, once per child. Children are made with Object.create(parent), so theirs inherit this too.
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with each logger as `this` below
  const child = logger.child;
  logger.child = function (this: Logger, bindings, childOptions) {
    return child.call(this, redactor.redactValue(bindings) as typeof bindings, childOptions);
  } as Logger['child'];
  return logger;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
