import { z } from 'zod';
import type { KeyedTransport } from './transport.js';
import { openEnum } from './schema.js';

/** `outbound`/`inbound` are phone, `web` the voice bubble, `messages` SMS; must match the campaign's channel. */
const TEMPLATE_TYPES = ['outbound', 'inbound', 'web', 'messages'] as const;

const templateSchema = z.looseObject({
  /** The template id, passed as `TemplateId` when a campaign is created. */
  assistant_id: z.string().optional(),
  title: z.string().optional(),
  description: z.string().optional(),
  type: openEnum(TEMPLATE_TYPES).optional(),
  order: z.number().optional(),
  /** Extra fields campaign creation needs with this template; empty means none. */
  required_fields: z.array(z.string()).optional(),
});
export type Template = z.infer<typeof templateSchema>;

export interface TemplatesApi {
  get(id: string): Promise<Template>;
}

export function templatesApi(transport: KeyedTransport): TemplatesApi {
  return {
    get(id) {
      return transport.requestJson({ method: 'GET', path: '/campaign/templates/{id}', params: { id } }, templateSchema);
    },
  };
}
