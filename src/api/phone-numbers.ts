import type { KeyedTransport } from './transport.js';

interface PhoneNumberLink {
  phoneNumberId: string;
  campaignId: string;
}

export interface PhoneNumbersApi {
  link(body: PhoneNumberLink): Promise<void>;
}

export function phoneNumbersApi(transport: KeyedTransport): PhoneNumbersApi {
  return {
    link(body) {
      return transport.requestEmpty({
        method: 'POST',
        path: '/phone-number/link',
        json: { phoneNumberId: body.phoneNumberId, campaignId: body.campaignId },
      });
    },
  };
}
