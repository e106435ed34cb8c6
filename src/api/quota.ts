import { z } from 'zod';
import { listEnvelope, tableRowFields } from './schema.js';
import type { KeyedTransport } from './transport.js';

/**
 * Milliseconds are 64-bit integers sent as strings; they can exceed 2^53, so they become bigint and never
 * pass through Number. A JSON number here is rejected: its precision may already be lost.
 */
const milliseconds = z
  .string()
  .regex(/^-?\d+$/, 'expected an integer string')
  .transform((s) => BigInt(s));

const quotaRowSchema = z.looseObject({
  ...tableRowFields,
  /** Plan name/amount as the platform sends it; kept as a string. */
  PlanQuota: z.string().optional(),
  PurchasedMs: milliseconds.optional(),
  RolloverMs: milliseconds.optional(),
  TotalUsageMs: milliseconds.optional(),
  CreatedAt: z.string().optional(),
});
export type QuotaRow = z.infer<typeof quotaRowSchema>;

const quotaListSchema = listEnvelope(quotaRowSchema);

export interface QuotaApi {
  /** One row per month. */
  list(): Promise<QuotaRow[]>;
}

export function quotaApi(transport: KeyedTransport): QuotaApi {
  return {
    async list() {
      const body = await transport.requestJson({ method: 'GET', path: '/customer-quota' }, quotaListSchema);
      return body.value;
    },
  };
}
