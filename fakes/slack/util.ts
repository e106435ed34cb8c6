/** Small helpers shared by the stand-in's API families. */
import type { IncomingMessage } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { SlackArgs } from './types.js';

export type Json = Record<string, unknown>;

export function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function str(args: SlackArgs, key: string): string | undefined {
  const v = args[key];
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

export function bool(args: SlackArgs, key: string): boolean {
  const v = args[key];
  return v === true || v === 1 || v === 'true' || v === '1';
}

export function int(args: SlackArgs, key: string): number | undefined {
  const s = str(args, key);
  if (s === undefined || s === '') return undefined;
  const n = Number.parseInt(s, 10);
  return Number.isNaN(n) ? undefined : n;
}

export function fail(error: string, extra: Json = {}): Json {
  return { ok: false, error, ...extra };
}

export function invalidArguments(messages: string[]): Json {
  return fail('invalid_arguments', { response_metadata: { messages } });
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** Slack-looking id: prefix + 10 upper-case alphanumerics (e.g. `V07ABCD1234`). */
export function slackId(prefix: string): string {
  const bytes = randomBytes(10);
  let out = prefix;
  for (const b of bytes) out += ID_ALPHABET[b % ID_ALPHABET.length];
  return out;
}

export function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

export function tsToMicros(ts: string): number {
  const [sec, micro = '0'] = ts.split('.');
  return Number(sec) * 1_000_000 + Number(micro.padEnd(6, '0').slice(0, 6));
}

export function compareTs(a: string, b: string): number {
  return tsToMicros(a) - tsToMicros(b);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function clone<T>(v: T): T {
  return structuredClone(v);
}

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks);
}

/** Fields Slack accepts as JSON strings in form-encoded calls. */
export const JSON_FIELDS = new Set([
  'blocks',
  'attachments',
  'view',
  'files',
  'metadata',
  'outputs',
  'unfurls',
  'user_auth_blocks',
]);
