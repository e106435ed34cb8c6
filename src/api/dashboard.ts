import { z } from 'zod';
import type { KeyedTransport } from './transport.js';

const categoryStatsSchema = z.looseObject({
  calls: z.number().optional(),
  durationMs: z.number().optional(),
  connectionRate: z.number().optional(),
  successCalls: z.number().optional(),
  bookingsMade: z.number().optional(),
  transfersMade: z.number().optional(),
  lastCallDate: z.string().optional(),
});
export type CategoryStats = z.infer<typeof categoryStatsSchema>;

const dashboardStatsSchema = z.looseObject({
  totals: z
    .looseObject({
      Outbound: categoryStatsSchema.optional(),
      Inbound: categoryStatsSchema.optional(),
      Web: categoryStatsSchema.optional(),
    })
    .optional(),
  topCampaigns: z
    .array(
      z.looseObject({
        campaignId: z.string().optional(),
        calls: z.number().optional(),
        connectionRate: z.number().optional(),
      }),
    )
    .optional(),
  elements: z
    .looseObject({
      agents: z.number().optional(),
      contacts: z.number().optional(),
      knowledgeFiles: z.number().optional(),
      actions: z.number().optional(),
    })
    .optional(),
});
export type DashboardStats = z.infer<typeof dashboardStatsSchema>;

export interface DashboardApi {
  getStats(): Promise<DashboardStats>;
}

export function dashboardApi(transport: KeyedTransport): DashboardApi {
  return {
    getStats() {
      return transport.requestJson({ method: 'GET', path: '/dashboard/dashboard-stats' }, dashboardStatsSchema);
    },
  };
}
