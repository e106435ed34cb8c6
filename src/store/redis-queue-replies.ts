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
/** The wake-up stream's entries as XREADGROUP returns them: one per wake-up, `g <group>`. */
export const wakeupReply = z
  .array(z.tuple([z.string(), z.array(z.tuple([z.string(), z.array(z.string())]))]))
  .nullable();
export const autoClaimReply = z.tuple([z.string(), rawEntries]).rest(z.unknown());
const enqueueReply = z.union([
  z.literal('duplicate'),
  z.literal('full'),
  z.literal('full_bytes'),
  z.string().regex(/^\d+-\d+$/),
  z.string().startsWith('error: '),
]);
export const enqueueReplies = z.array(enqueueReply);
export const pairReply = z.tuple([z.number(), z.number()]);
/** A stream entry's fields (teamId, orderKey, payload JSON, enqueuedAt) read by hand: one per event read. */
export function toEntry(id: string, flat: readonly string[], source: string): StoredEntry | null {
  let teamId: string | undefined;
  let orderKey: string | undefined;
  let payloadText: string | undefined;
  let enqueuedAt = Number.NaN;
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const value = flat[i + 1]!;
    switch (flat[i]) {
      case 'teamId':
        teamId = value;
        break;
      case 'orderKey':
        orderKey = value;
        break;
      case 'payload':
        payloadText = value;
        break;
      case 'enqueuedAt':
        enqueuedAt = Number(value);
        break;
      default:
        break;
    }
  }
  if (teamId === undefined || orderKey === undefined || payloadText === undefined || Number.isNaN(enqueuedAt))
    return null;
  let payload: unknown;
  try {
    payload = JSON.parse(payloadText);
  } catch {
    return null;
  }
  return { id, teamId, orderKey, payload, enqueuedAt, source };
}

export function isError(error: unknown, code: string): boolean {
  return error instanceof Error && error.message.startsWith(code);
}
