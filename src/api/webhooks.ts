import { z } from 'zod';
import type { KeyedTransport } from './transport.js';
import { openEnum } from './schema.js';

/** Every event name the platform knows (unsubscribe accepts all of them). */
export const TRIGGER_NAMES = [
  'call_started',
  'call_completed',
  'message_received',
  'message_sent',
  'message_session_completed',
] as const;
export type TriggerName = (typeof TRIGGER_NAMES)[number];

/** The events subscribe and sample accept (`message_session_completed` is unsubscribe-only). */
export const SUBSCRIBABLE_TRIGGERS = ['call_started', 'call_completed', 'message_received', 'message_sent'] as const;
export type SubscribableTrigger = (typeof SUBSCRIBABLE_TRIGGERS)[number];

/** The only provider value for direct API use; the client adds it. */
const PROVIDER = 'custom';

const webhookSubscriptionSchema = z.looseObject({
  /** Equals the hookUrl: treat it as a secret (deliveries are unsigned). */
  id: z.string().optional(),
  campaignId: z.string().optional(),
  triggerName: openEnum(TRIGGER_NAMES).optional(),
});
type WebhookSubscription = z.infer<typeof webhookSubscriptionSchema>;

interface WebhookTarget<T extends TriggerName> {
  /** HTTPS URL receiving the events. */
  hookUrl: string;
  /** A campaign id, or '*' for every campaign. */
  campaignId: string;
  triggerName: T;
}

export interface WebhooksApi {
  subscribe(body: WebhookTarget<SubscribableTrigger>): Promise<WebhookSubscription>;
  unsubscribe(body: WebhookTarget<TriggerName>): Promise<void>;
  /** The response body is undocumented: returned as parsed JSON, unvalidated. */
  listForCampaign(campaignId: string): Promise<unknown>;
  /** A sample event payload built from a real campaign; envelope undocumented, returned as parsed JSON. */
  sample(triggerName: SubscribableTrigger, campaignId: string): Promise<unknown>;
}

export function webhooksApi(transport: KeyedTransport): WebhooksApi {
  return {
    subscribe(body) {
      return transport.requestJson(
        {
          method: 'POST',
          path: '/events-gateway/trigger/subscribe',
          json: {
            hookUrl: body.hookUrl,
            campaignId: body.campaignId,
            triggerName: body.triggerName,
            provider: PROVIDER,
          },
        },
        webhookSubscriptionSchema,
      );
    },
    unsubscribe(body) {
      return transport.requestEmpty({
        method: 'DELETE',
        path: '/events-gateway/trigger/unsubscribe',
        json: { hookUrl: body.hookUrl, campaignId: body.campaignId, triggerName: body.triggerName, provider: PROVIDER },
      });
    },
    listForCampaign(campaignId) {
      return transport.requestJson(
        { method: 'GET', path: '/events-gateway/triggers/campaign/{campaignId}', params: { campaignId } },
        z.unknown(),
      );
    },
    sample(triggerName, campaignId) {
      return transport.requestJson(
        {
          method: 'GET',
          path: '/events-gateway/trigger/perform/{triggerName}',
          params: { triggerName },
          query: { campaignId },
        },
        z.unknown(),
      );
    },
  };
}
