import { z } from 'zod';
import { reviewStatus } from './schema.js';
import type { KeyedTransport } from './transport.js';

/** A customer-actionable failure reported by the telephony provider. */
const providerFailureSchema = z.looseObject({
  code: z.string().optional(),
  message: z.string().optional(),
});
export type ProviderFailure = z.infer<typeof providerFailureSchema>;

const failureList = z.array(providerFailureSchema).nullable().optional();

const voiceIntegrityDataSchema = z.looseObject({
  use_case: z.string(),
  business_employee_count: z.string(),
  average_business_day_call_volume: z.string(),
  notes: z.string().optional(),
});

const cnamDataSchema = z.looseObject({
  cnam_display_name: z.string(),
  phoneNumbers: z.array(z.string()),
});

const addressSchema = z.looseObject({
  customerName: z.string(),
  street: z.string(),
  city: z.string(),
  region: z.string(),
  postalCode: z.string(),
  isoCountry: z.string(),
});

const BUSINESS_IDENTITIES = ['direct_customer', 'isv_reseller_or_partner'] as const;

const businessInfoSchema = z.looseObject({
  business_type: z.string(),
  business_registration_number: z.string(),
  business_name: z.string(),
  business_registration_identifier: z.string(),
  business_identity: z.enum(BUSINESS_IDENTITIES),
  business_industry: z.string(),
  website_url: z.string(),
  business_regions_of_operation: z.string(),
  social_media_profile_urls: z.string().optional(),
});

const authorizedRepSchema = z.looseObject({
  first_name: z.string(),
  last_name: z.string(),
  email: z.string(),
  phone_number: z.string(),
  business_title: z.string(),
  job_position: z.string(),
});

const businessVerificationFormDataSchema = z.looseObject({
  address: addressSchema.nullable().optional(),
  businessInformation: businessInfoSchema.nullable().optional(),
  authorizedRep1: authorizedRepSchema.nullable().optional(),
  authorizedRep2: authorizedRepSchema.nullable().optional(),
  email: z.string().optional(),
  friendlyName: z.string().optional(),
});

const verificationProfileSchema = z.looseObject({
  secondaryProfileSid: z.string().optional(),
  addressSid: z.string().optional(),
  addressDocumentSid: z.string().optional(),
  businessInfoEndUserSid: z.string().optional(),
  ar1EndUserSid: z.string().optional(),
  ar2EndUserSid: z.string().optional(),
  trustProductSid: z.string().optional(),
  secondaryProfileStatus: reviewStatus.optional(),
  trustProductStatus: reviewStatus.optional(),
  providerFailures: failureList,
  /** Legacy; structure undocumented. */
  lastEvaluationErrors: z.unknown().optional(),
  voiceIntegrityTrustProductSid: z.string().optional(),
  voiceIntegrityStatus: reviewStatus.optional(),
  voiceIntegrityFailures: failureList,
  voiceIntegrityData: voiceIntegrityDataSchema.nullable().optional(),
  cnamTrustProductSid: z.string().optional(),
  cnamStatus: reviewStatus.optional(),
  cnamPhoneNumbers: z.array(z.string()).optional(),
  cnamFailures: failureList,
  cnamData: cnamDataSchema.nullable().optional(),
  formData: businessVerificationFormDataSchema.optional(),
  lastUpdated: z.string().optional(),
});
export type VerificationProfile = z.infer<typeof verificationProfileSchema>;

export interface VerificationApi {
  /** 202 with a snapshot; ConflictError (409) while processing, UnprocessableError (422) when not configured. */
  submit(): Promise<VerificationProfile>;
}

export function verificationApi(transport: KeyedTransport): VerificationApi {
  return {
    submit() {
      return transport.requestJson(
        { method: 'POST', path: '/business-verification/submit' },
        verificationProfileSchema,
      );
    },
  };
}
