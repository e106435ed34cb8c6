import type { KeyedTransport } from './transport.js';

interface HumanResponse {
  /** Must be the contact's current session, already in human-handoff state (else 400 BAD_REQUEST). */
  sessionId: string;
  message: string;
  agentId?: string;
  attachments?: string[];
}

export interface ChatApi {
  sendHumanResponse(campaignId: string, body: HumanResponse): Promise<void>;
}

export function chatApi(transport: KeyedTransport): ChatApi {
  return {
    sendHumanResponse(campaignId, body) {
      return transport.requestEmpty({
        method: 'POST',
        path: '/campaign-chat/{campaignId}/send-human-response',
        params: { campaignId },
        json: {
          sessionId: body.sessionId,
          message: body.message,
          agentId: body.agentId,
          attachments: body.attachments,
        },
      });
    },
  };
}
