/** Public surface of the platform client. Import from here, not from the individual modules. */
export { CampaignClient } from './client.js';
export { createTransport } from './transport.js';
export type { PlatformTransport, TransportOptions } from './transport.js';
export { maskKey } from './mask.js';
export {
  PlatformError,
  ApiError,
  BadRequestError,
  AuthenticationError,
  NotFoundError,
  ConflictError,
  UnprocessableError,
  RateLimitError,
  ServerError,
  ApiTimeoutError,
  ApiConnectionError,
  ApiSchemaError,
  apiErrorClassFor,
} from './errors.js';
export type { HttpMethod, SchemaIssue } from './errors.js';

export type { ApiKeyRow, KeysApi } from './keys.js';
export { TEMPLATE_TYPES } from './templates.js';
export type { Template, TemplateType, TemplatesApi } from './templates.js';
export type { ChatApi, HumanResponse } from './chat.js';
export { REVIEW_STATUSES } from './schema.js';
export type { ReviewStatus } from './schema.js';
export type {
  Address,
  AuthorizedRep,
  BusinessInfo,
  BusinessVerificationFormData,
  CnamData,
  ProviderFailure,
  VerificationApi,
  VerificationProfile,
  VoiceIntegrityData,
} from './verification.js';
export type { CallsApi, ScheduledCall } from './calls.js';
export { BOOKING_STATUSES } from './bookings.js';
export type { Booking, BookingStatus, BookingsApi } from './bookings.js';
export type { CategoryStats, DashboardApi, DashboardStats } from './dashboard.js';
export type { AccountApi, ProfileUpdate, UserProfile } from './account.js';
export type { PhoneNumberLink, PhoneNumbersApi } from './phone-numbers.js';
export type { QuotaApi, QuotaRow } from './quota.js';
export type { CloneVoiceInput, Voice, VoiceFile, VoicesApi } from './voices.js';
export type { AgentsApi } from './agents.js';
export { SUBSCRIBABLE_TRIGGERS, TRIGGER_NAMES } from './webhooks.js';
export type { SubscribableTrigger, TriggerName, WebhookSubscription, WebhookTarget, WebhooksApi } from './webhooks.js';
