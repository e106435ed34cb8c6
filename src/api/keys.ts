import { z } from 'zod';
import { listEnvelope, tableRowFields } from './schema.js';
import type { KeyedTransport } from './transport.js';

/** One API key of the account. The key value itself is `RowKey`: mask it (`maskKey`) before showing it anywhere. */
const apiKeyRowSchema = z.looseObject({
  ...tableRowFields,
  CompanyName: z.string().optional(),
  CustomerId: z.string().optional(),
  CreatedAt: z.string().optional(),
  Active: z.boolean().optional(),
});
export type ApiKeyRow = z.infer<typeof apiKeyRowSchema>;

const apiKeyListSchema = listEnvelope(apiKeyRowSchema);

export interface KeysApi {
  list(): Promise<ApiKeyRow[]>;
}

export function keysApi(transport: KeyedTransport): KeysApi {
  return {
    async list() {
      const body = await transport.requestJson({ method: 'GET', path: '/open-api' }, apiKeyListSchema);
      return body.value;
    },
  };
}
