/**
 * What Redis answers the queue's stream commands and scripts, checked on the way in, and the errors it can
 * answer with (redis-queue.ts).
 */
import { z } from 'zod';
import type { StoredEntry } from './queue-backend.js';

/** `[id, [field, value, …] | null]` as XREADGROUP / XAUTOCLAIM return them (null: deleted while pending). */
const rawEntries = z.array(z.tuple([z.string(), z.array(z.string()).nullable()]));
export type RawEntries = z.infer<typeof rawEntries>;
export const readGroupReply = z.array(z.tuple([z.string(), rawEntries])).nullable();
export const autoClaimReply = z.tuple([z.string(), rawEntries]).rest(z.unknown());
/** ENQUEUE answers the new entry's id, read as `queued`. */
export const enqueueReply = z.enum(['duplicate', 'full', 'full_bytes']).or(
  z
    .string()
    .regex(/^\d+-\d+$/)
    .transform(() => 'queued' as const),
);
export const pairReply = z.tuple([z.number(), z.number()]);
/** A stream entry's fields (teamId, orderKey, payload JSON, enqueuedAt) read by hand: one per event read. */
export function toEntry(id: string, flat: readonly string[], source: string): StoredEntry | null {
  const fields = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) fields.set(flat[i]!, flat[i + 1]!);
  const [teamId, orderKey, payload] = ['teamId', 'orderKey', 'payload'].map((name) => fields.get(name));
  const enqueuedAt = Number(fields.get('enqueuedAt'));
  if (teamId === undefined || orderKey === undefined || payload === undefined || Number.isNaN(enqueuedAt)) return null;
  try {
    return { id, teamId, orderKey, payload: JSON.parse(payload) as unknown, enqueuedAt, source };
  } catch {
    return null;
  }
}

export function isError(error: unknown, code: string): boolean {
  return error instanceof Error && error.message.startsWith(code);
}
