import { accountApi } from './account.js';
import type { AccountApi } from './account.js';
import { agentsApi } from './agents.js';
import type { AgentsApi } from './agents.js';
import { bookingsApi } from './bookings.js';
import type { BookingsApi } from './bookings.js';
import { callsApi } from './calls.js';
import type { CallsApi } from './calls.js';
import { chatApi } from './chat.js';
import type { ChatApi } from './chat.js';
import { dashboardApi } from './dashboard.js';
import type { DashboardApi } from './dashboard.js';
import { keysApi } from './keys.js';
import type { KeysApi } from './keys.js';
import { phoneNumbersApi } from './phone-numbers.js';
import type { PhoneNumbersApi } from './phone-numbers.js';
import { quotaApi } from './quota.js';
import type { QuotaApi } from './quota.js';
import { templatesApi } from './templates.js';
import type { TemplatesApi } from './templates.js';
import type { PlatformTransport } from './transport.js';
import { verificationApi } from './verification.js';
import type { VerificationApi } from './verification.js';
import { voicesApi } from './voices.js';
import type { VoicesApi } from './voices.js';
import { webhooksApi } from './webhooks.js';
import type { WebhooksApi } from './webhooks.js';

/**
 * The platform API for one workspace's key. Cheap to create: all clients share the transport's connection
 * pools, and each request takes a turn among its workspace's (`workspace`: the Slack team id). The key lives
 * only in closures, never on a property, so logging or inspecting a client cannot leak it.
 */
export class CampaignClient {
  readonly keys: KeysApi;
  readonly templates: TemplatesApi;
  readonly chat: ChatApi;
  readonly verification: VerificationApi;
  readonly calls: CallsApi;
  readonly bookings: BookingsApi;
  readonly dashboard: DashboardApi;
  readonly account: AccountApi;
  readonly phoneNumbers: PhoneNumbersApi;
  readonly quota: QuotaApi;
  readonly voices: VoicesApi;
  readonly agents: AgentsApi;
  readonly webhooks: WebhooksApi;

  constructor(platform: PlatformTransport, apiKey: string, workspace: string) {
    const transport = platform.withKey(apiKey, workspace);
    this.keys = keysApi(transport);
    this.templates = templatesApi(transport);
    this.chat = chatApi(transport);
    this.verification = verificationApi(transport);
    this.calls = callsApi(transport);
    this.bookings = bookingsApi(transport);
    this.dashboard = dashboardApi(transport);
    this.account = accountApi(transport);
    this.phoneNumbers = phoneNumbersApi(transport);
    this.quota = quotaApi(transport);
    this.voices = voicesApi(transport);
    this.agents = agentsApi(transport);
    this.webhooks = webhooksApi(transport);
  }
}
