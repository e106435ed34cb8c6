/** Public surface of the platform client. Import from here, not from the individual modules. */
export { CampaignClient } from './client.js';
export { createTransport } from './transport.js';
export type { PlatformTransport, TransportOptions, TurnListener } from './transport.js';
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
  PlatformBusyError,
  apiErrorClassFor,
} from './errors.js';
export type { HttpMethod, PlatformLane } from './errors.js';

export type { ApiKeyRow } from './keys.js';
export type { Template } from './templates.js';
export type { ProviderFailure, VerificationProfile } from './verification.js';
export type { ScheduledCall } from './calls.js';
export type { Booking } from './bookings.js';
export type { CategoryStats, DashboardStats } from './dashboard.js';
export type { UserProfile } from './account.js';
export type { QuotaRow } from './quota.js';
export type { Voice } from './voices.js';
export { SUBSCRIBABLE_TRIGGERS, TRIGGER_NAMES } from './webhooks.js';
export type { SubscribableTrigger, TriggerName } from './webhooks.js';
