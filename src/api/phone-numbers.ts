import type { PlatformTransport } from './transport.js';

export interface PhoneNumberLink {
  phoneNumberId: string;
  campaignId: string;
}

export interface PhoneNumbersApi {
  link(body: PhoneNumberLink): Promise<void>;
}

export function phoneNumbersApi(transport: PlatformTransport, apiKey: string): PhoneNumbersApi {
  return {
    link(body) {
      return transport.requestEmpty({
        method: 'POST',
        path: '/phone-number/link',
        apiKey,
        json: { phoneNumberId: body.phoneNumberId, campaignId: body.campaignId },
      });
    },
  };
}
