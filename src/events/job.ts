/**
 * What the webhook receiver puts on the queue for one event, and how the worker reads it back.
 * Versioned, so entries queued by an older bot still read (or fail loudly into dead letters) after a deploy.
 */
import { z } from 'zod';

export interface EventJob {
  v: 1;
  /** Known trigger name, a name the body gave that we do not know, or `unknown`. */
  trigger: string;
  dedupKey: string;
  /** The event as received (unknown fields kept, `__proto__` keys removed). */
  event: Record<string, unknown>;
  /** Epoch ms when the webhook arrived. */
  receivedAt: number;
}

export const eventJobSchema = z.object({
  v: z.literal(1),
  trigger: z.string().min(1),
  dedupKey: z.string().min(1),
  event: z.record(z.string(), z.unknown()),
  receivedAt: z.number(),
});
