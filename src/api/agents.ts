import type { KeyedTransport } from './transport.js';

export interface AgentsApi {
  /** 204 on success; NotFoundError (404) for an unknown agent. */
  delete(campaignId: string, agentId: string): Promise<void>;
}

export function agentsApi(transport: KeyedTransport): AgentsApi {
  return {
    delete(campaignId, agentId) {
      return transport.requestEmpty({
        method: 'DELETE',
        path: '/agent/{campaignId}/{id}',
        params: { campaignId, id: agentId },
      });
    },
  };
}
