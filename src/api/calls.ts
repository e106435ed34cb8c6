import { z } from 'zod';
import { listEnvelope, tableRowFields } from './schema.js';
import type { KeyedTransport } from './transport.js';

/** A scheduled call ("ScheduledMessage" on the platform). */
const scheduledCallSchema = z.looseObject({
  ...tableRowFields,
  Name: z.string().optional(),
  PhoneNumber: z.string().optional(),
  /** A queue sequence number; plain number (not .int(), which zod caps at 2^53). */
  SBSequenceNumber: z.number().optional(),
  ScheduledDate: z.string().optional(),
});
export type ScheduledCall = z.infer<typeof scheduledCallSchema>;

const scheduledCallListSchema = listEnvelope(scheduledCallSchema);

export interface CallsApi {
  /** NotFoundError (404) for an unknown campaign. */
  listScheduled(campaignId: string): Promise<ScheduledCall[]>;
}

export function callsApi(transport: KeyedTransport): CallsApi {
  return {
    async listScheduled(campaignId) {
      const body = await transport.requestJson(
        { method: 'GET', path: '/call/scheduled/{campaignId}', params: { campaignId } },
        scheduledCallListSchema,
      );
      return body.value;
    },
  };
}
