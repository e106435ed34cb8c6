import { z } from 'zod';
import type { KeyedTransport } from './transport.js';

interface ProfileUpdate {
  company?: string;
  full_name?: string;
  /** Profile picture URL. */
  picture?: string;
}

const userProfileSchema = z.looseObject({
  user_metadata: z
    .looseObject({
      company: z.string().optional(),
      full_name: z.string().optional(),
    })
    .optional(),
  picture: z.string().optional(),
});
export type UserProfile = z.infer<typeof userProfileSchema>;

export interface AccountApi {
  updateProfile(body: ProfileUpdate): Promise<UserProfile>;
}

export function accountApi(transport: KeyedTransport): AccountApi {
  return {
    updateProfile(body) {
      return transport.requestJson(
        {
          method: 'POST',
          path: '/account/profile',
          json: { company: body.company, full_name: body.full_name, picture: body.picture },
        },
        userProfileSchema,
      );
    },
  };
}
