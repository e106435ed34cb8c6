/**
 * In-memory state of the fake campaign platform and its believable default seed.
 *
 * Rows use the platform's wire format (table-style `PartitionKey`/`RowKey`/`odata.etag`, quota milliseconds as
 * strings) so handlers can return them as-is. Everything here is plain data: tests and the local playground
 * may mutate it freely through `FakePlatform.state`.
 */
import { SAMPLE_CALL } from './recordings.js';

type CampaignType = 'outbound' | 'inbound' | 'web' | 'messages';
type ReviewStatus = 'draft' | 'pending-review' | 'in-review' | 'twilio-approved' | 'twilio-rejected';

/** Not a documented resource: the fake's own record, used for 404s and sample payloads. */
export interface FakeCampaign {
  id: string;
  name: string;
  type: CampaignType;
}

interface FakeAgent {
  id: string;
  name: string;
}

interface ApiKeyRow {
  PartitionKey: string;
  RowKey: string;
  Timestamp: string;
  'odata.etag': string;
  CompanyName: string;
  CustomerId: string;
  CreatedAt: string;
  Active: boolean;
}

interface TemplateRecord {
  assistant_id: string;
  title: string;
  description?: string;
  type: CampaignType;
  order: number;
  required_fields: string[];
}

interface ScheduledCallRow {
  'odata.etag': string;
  PartitionKey: string;
  RowKey: string;
  Timestamp: string;
  Name: string;
  PhoneNumber: string;
  SBSequenceNumber: number;
  ScheduledDate: string;
}

interface BookingRow {
  'odata.etag': string;
  PartitionKey: string;
  RowKey: string;
  Timestamp: string;
  BookingDate: string;
  CallId: string;
  CustomerEmail: string;
  CustomerName: string;
  CalendarId: string;
  Reason?: string;
  Status: 'booking' | 'success' | 'fail';
}

export interface QuotaRow {
  PartitionKey: string;
  RowKey: string;
  Timestamp: string;
  'odata.etag': string;
  PlanQuota: string;
  /** 64-bit integers as decimal strings. */
  PurchasedMs: string;
  RolloverMs: string;
  TotalUsageMs: string;
  CreatedAt: string;
}

interface CategoryStats {
  calls: number;
  durationMs: number;
  connectionRate: number;
  successCalls: number;
  bookingsMade: number;
  transfersMade: number;
  lastCallDate: string;
}

interface DashboardStats {
  totals: { Outbound?: CategoryStats; Inbound?: CategoryStats; Web?: CategoryStats };
  topCampaigns: { campaignId: string; calls: number; connectionRate: number }[];
  elements: { agents: number; contacts: number; knowledgeFiles: number; actions: number };
}

interface ProfileState {
  company: string;
  full_name: string;
  picture: string;
}

interface ProviderFailure {
  code: string;
  message: string;
}

/** The verification profile as the submit endpoint returns it (spec 2.9). */
interface VerificationProfile {
  [field: string]: unknown;
  secondaryProfileStatus?: ReviewStatus;
  trustProductStatus?: ReviewStatus;
  providerFailures: ProviderFailure[] | null;
  lastEvaluationErrors: unknown;
  voiceIntegrityFailures: ProviderFailure[] | null;
  voiceIntegrityData: Record<string, string> | null;
  cnamFailures: ProviderFailure[] | null;
  cnamData: { cnam_display_name: string; phoneNumbers: string[] } | null;
}

interface VerificationState {
  /**
   * 'not-configured' → submit answers 422, 'processing' → 409, 'ready' → 202 with `profile`.
   * Submitting does not move the state on by itself; tests set it explicitly.
   */
  status: 'not-configured' | 'processing' | 'ready';
  profile: VerificationProfile;
}

interface SessionState {
  campaignId: string;
  /** Whether the session is the contact's current one and in human-handoff state. */
  handoff: boolean;
}

interface HumanResponseRecord {
  campaignId: string;
  sessionId: string;
  message: string;
  agentId?: string;
  attachments?: string[];
}

interface PhoneNumberState {
  id: string;
  number: string;
  /** The campaign the number is linked to, or null. */
  campaignId: string | null;
}

export interface SubscriptionState {
  hookUrl: string;
  campaignId: string;
  triggerName: string;
  provider: string;
}

export interface VoiceRow {
  'odata.etag': string;
  PartitionKey: string;
  RowKey: string;
  Timestamp: string;
  Name: string;
  Description: string;
  Gender: string;
  Language: string;
  Provider: string;
  ProviderID: string;
  PreviewUrl: string;
  ProviderSettings: string;
}

export interface PlatformState {
  campaigns: Record<string, FakeCampaign>;
  /** Accepted keys are the rows with `Active: true`. */
  apiKeys: ApiKeyRow[];
  templates: Record<string, TemplateRecord>;
  bookings: Record<string, BookingRow[]>;
  scheduled: Record<string, ScheduledCallRow[]>;
  quota: QuotaRow[];
  stats: DashboardStats;
  profile: ProfileState;
  verification: VerificationState;
  agents: Record<string, FakeAgent[]>;
  sessions: Record<string, SessionState>;
  /** Every accepted send-human-response, in order. */
  humanResponses: HumanResponseRecord[];
  phoneNumbers: PhoneNumberState[];
  subscriptions: SubscriptionState[];
  /** Voices created by POST /voices. */
  voices: VoiceRow[];
  /** Each call's length (ms) by call id, so its recording lasts as long (recordings.ts). */
  callDurations: Record<string, number>;
  /** Each created voice's first sample (not part of the API: the playground plays it as the voice's preview). */
  voiceSamples: Record<string, { contentType: string; data: Buffer }>;
}

const DEFAULT_API_KEY = 'ck_live_4f9a2c7e81d34b6f9e0a5c2d7b1e8f36';
const CUSTOMER_ID = 'cust-7f3a91';
const COMPANY = 'Acme Dental Group';

function etag(ts: string): string {
  return `W/"datetime'${encodeURIComponent(ts)}'"`;
}

function row(partitionKey: string, rowKey: string, ts: string) {
  return { PartitionKey: partitionKey, RowKey: rowKey, Timestamp: ts, 'odata.etag': etag(ts) };
}

function keyRow(key: string, active: boolean, createdAt: string): ApiKeyRow {
  return {
    ...row(CUSTOMER_ID, key, createdAt),
    CompanyName: COMPANY,
    CustomerId: CUSTOMER_ID,
    CreatedAt: createdAt,
    Active: active,
  };
}

/**
 * Which quota the simulator holds. 'believable' is what a person trying the playground sees first;
 * 'beyond-2^53' puts this month above 2^53 ms (exact only as strings/bigint), for tests that prove the
 * 64-bit handling (docs/PLATFORM-API.md › Limits: quota milliseconds are 64-bit integers carried as strings).
 */
export type QuotaSeed = 'believable' | 'beyond-2^53';

/** February on a small plan, then March on a bigger one with February's unused minutes rolled over. */
export function seedQuota(kind: QuotaSeed = 'believable'): QuotaRow[] {
  const february: QuotaRow = {
    ...row(CUSTOMER_ID, '2024-02', '2024-03-01T00:00:02.000Z'),
    PlanQuota: 'growth-3000min',
    PurchasedMs: '180000000',
    RolloverMs: '0',
    TotalUsageMs: '154328771',
    CreatedAt: '2024-02-01T00:00:00.000Z',
  };
  const march = { ...row(CUSTOMER_ID, '2024-03', '2024-03-08T09:12:44.000Z'), CreatedAt: '2024-03-01T00:00:00.000Z' };
  if (kind === 'beyond-2^53') {
    // Enterprise pool: values above 2^53, exact only as strings/bigint.
    return [
      february,
      {
        ...march,
        PlanQuota: 'enterprise-pooled',
        PurchasedMs: '9007199254740993',
        RolloverMs: '25826771',
        TotalUsageMs: '18014398509481985',
      },
    ];
  }
  // 500 h bought plus February's unused time; 313 h 11 min used (about 62 %).
  return [
    february,
    {
      ...march,
      PlanQuota: 'scale-30000min',
      PurchasedMs: '1800000000',
      RolloverMs: '25671229',
      TotalUsageMs: '1127482913',
    },
  ];
}

/** A fresh copy of the default data. `apiKeys` replaces the seeded keys (all of them active). */
export function createSeedState(apiKeys?: readonly string[], opts: { quota?: QuotaSeed } = {}): PlatformState {
  const keys =
    apiKeys && apiKeys.length > 0
      ? apiKeys.map((k) => keyRow(k, true, '2024-01-15T09:30:00.000Z'))
      : [
          keyRow(DEFAULT_API_KEY, true, '2024-01-15T09:30:00.000Z'),
          keyRow('ck_live_0b7d5e2a9c6f4e13a8d2b5c7e9f1a3d4', false, '2023-06-02T14:05:00.000Z'),
        ];

  return {
    campaigns: {
      'camp-1': { id: 'camp-1', name: 'Spring Recall Reminders', type: 'outbound' },
      'camp-2': { id: 'camp-2', name: 'Front Desk Line', type: 'inbound' },
      'camp-3': { id: 'camp-3', name: 'SMS Appointment Follow-up', type: 'messages' },
      'camp-4': { id: 'camp-4', name: 'Website Concierge', type: 'web' },
    },
    apiKeys: keys,
    templates: {
      'tpl-outbound-recall': {
        assistant_id: 'tpl-outbound-recall',
        title: 'Patient recall (outbound)',
        description: 'Calls patients who are due for a check-up and books a slot.',
        type: 'outbound',
        order: 1,
        required_fields: ['calendarId'],
      },
      'tpl-inbound-reception': {
        assistant_id: 'tpl-inbound-reception',
        title: 'Virtual receptionist',
        description: 'Answers the practice line, handles FAQs and transfers urgent calls.',
        type: 'inbound',
        order: 1,
        required_fields: ['transferNumber'],
      },
      'tpl-web-concierge': {
        assistant_id: 'tpl-web-concierge',
        title: 'Website voice concierge',
        type: 'web',
        order: 2,
        required_fields: [],
      },
      'tpl-messages-followup': {
        assistant_id: 'tpl-messages-followup',
        title: 'SMS follow-up',
        description: 'Texts patients after a visit and answers questions.',
        type: 'messages',
        order: 1,
        required_fields: [],
      },
    },
    bookings: {
      'camp-1': [
        {
          ...row('camp-1', 'bk-1001', '2024-03-04T15:02:11.000Z'),
          BookingDate: '2024-03-11T16:00:00.000Z',
          CallId: 'call-8842',
          CustomerEmail: 'maria.lopez@example.com',
          CustomerName: 'Maria Lopez',
          CalendarId: 'cal-main',
          Status: 'success',
        },
        {
          ...row('camp-1', 'bk-1002', '2024-03-04T15:20:40.000Z'),
          BookingDate: '2024-03-12T09:30:00.000Z',
          CallId: 'call-8851',
          CustomerEmail: 'j.chen@example.com',
          CustomerName: 'James Chen',
          CalendarId: 'cal-main',
          Status: 'booking',
        },
        {
          ...row('camp-1', 'bk-1003', '2024-03-05T10:11:09.000Z'),
          BookingDate: '2024-03-12T09:30:00.000Z',
          CallId: 'call-8860',
          CustomerEmail: 'priya.n@example.com',
          CustomerName: 'Priya Natarajan',
          CalendarId: 'cal-main',
          Reason: 'The requested slot is no longer available in the calendar',
          Status: 'fail',
        },
      ],
      'camp-2': [
        {
          ...row('camp-2', 'bk-2001', '2024-03-06T08:45:00.000Z'),
          BookingDate: '2024-03-07T13:00:00.000Z',
          CallId: 'call-9010',
          CustomerEmail: 'tom.baker@example.com',
          CustomerName: 'Tom Baker',
          CalendarId: 'cal-hygiene',
          Status: 'success',
        },
      ],
    },
    scheduled: {
      'camp-1': [
        {
          ...row('camp-1', 'sch-501', '2024-03-08T12:00:00.000Z'),
          Name: 'Olivia Brown',
          PhoneNumber: '+14155550123',
          SBSequenceNumber: 7215,
          ScheduledDate: '2024-03-09T17:30:00.000Z',
        },
        {
          ...row('camp-1', 'sch-502', '2024-03-08T12:00:05.000Z'),
          Name: 'Noah Wilson',
          PhoneNumber: '+14155550187',
          SBSequenceNumber: 7216,
          ScheduledDate: '2024-03-09T18:00:00.000Z',
        },
      ],
      'camp-2': [],
      'camp-3': [
        {
          ...row('camp-3', 'sch-601', '2024-03-08T13:10:00.000Z'),
          Name: 'Emma Davis',
          PhoneNumber: '+14155550142',
          SBSequenceNumber: 9004,
          ScheduledDate: '2024-03-10T15:00:00.000Z',
        },
      ],
      'camp-4': [],
    },
    quota: seedQuota(opts.quota),
    stats: {
      totals: {
        Outbound: {
          calls: 1284,
          durationMs: 98_765_432,
          connectionRate: 0.62,
          successCalls: 611,
          bookingsMade: 143,
          transfersMade: 37,
          lastCallDate: '2024-03-08T16:41:09.000Z',
        },
        Inbound: {
          calls: 412,
          durationMs: 31_002_117,
          connectionRate: 0.97,
          successCalls: 380,
          bookingsMade: 58,
          transfersMade: 71,
          lastCallDate: '2024-03-08T17:02:55.000Z',
        },
        Web: {
          calls: 96,
          durationMs: 5_400_310,
          connectionRate: 1,
          successCalls: 81,
          bookingsMade: 12,
          transfersMade: 0,
          lastCallDate: '2024-03-07T11:20:00.000Z',
        },
      },
      topCampaigns: [
        { campaignId: 'camp-1', calls: 1284, connectionRate: 0.62 },
        { campaignId: 'camp-2', calls: 412, connectionRate: 0.97 },
        { campaignId: 'camp-4', calls: 96, connectionRate: 1 },
      ],
      elements: { agents: 5, contacts: 2380, knowledgeFiles: 14, actions: 6 },
    },
    profile: {
      company: COMPANY,
      full_name: 'Dana Whitfield',
      picture: 'https://cdn.example.com/avatars/dana.png',
    },
    verification: {
      status: 'ready',
      profile: {
        secondaryProfileSid: 'BU3f1e0a9c2d7b4e8f6a5c1d2e3f4a5b6c',
        addressSid: 'AD8c2d7b4e8f6a5c1d2e3f4a5b6c3f1e0a',
        addressDocumentSid: 'RD1d2e3f4a5b6c3f1e0a8c2d7b4e8f6a5c',
        businessInfoEndUserSid: 'IT4e8f6a5c1d2e3f4a5b6c3f1e0a8c2d7b',
        ar1EndUserSid: 'IT6a5c1d2e3f4a5b6c3f1e0a8c2d7b4e8f',
        ar2EndUserSid: 'IT9c2d7b4e8f6a5c1d2e3f4a5b6c3f1e0a',
        trustProductSid: 'BU7b4e8f6a5c1d2e3f4a5b6c3f1e0a8c2d',
        secondaryProfileStatus: 'in-review',
        trustProductStatus: 'draft',
        providerFailures: null,
        lastEvaluationErrors: null,
        voiceIntegrityTrustProductSid: '',
        voiceIntegrityStatus: 'draft',
        voiceIntegrityFailures: null,
        voiceIntegrityData: null,
        cnamTrustProductSid: '',
        cnamStatus: 'twilio-rejected',
        cnamPhoneNumbers: ['+14155550100'],
        cnamFailures: [{ code: 'CNAM_DISPLAY_NAME_INVALID', message: 'Display name must begin with a letter' }],
        cnamData: { cnam_display_name: '1Acme Dental', phoneNumbers: ['+14155550100'] },
        formData: {
          address: {
            customerName: COMPANY,
            street: '500 Market St',
            city: 'San Francisco',
            region: 'CA',
            postalCode: '94105',
            isoCountry: 'US',
          },
          businessInformation: {
            business_type: 'Corporation',
            business_registration_number: '84-1234567',
            business_name: COMPANY,
            business_registration_identifier: 'EIN',
            business_identity: 'direct_customer',
            business_industry: 'HEALTHCARE',
            website_url: 'https://acmedental.example.com',
            business_regions_of_operation: 'USA_AND_CANADA',
          },
          authorizedRep1: {
            first_name: 'Dana',
            last_name: 'Whitfield',
            email: 'dana@acmedental.example.com',
            phone_number: '+14155550100',
            business_title: 'Owner',
            job_position: 'CEO',
          },
          authorizedRep2: null,
          email: 'compliance@acmedental.example.com',
          friendlyName: 'Acme Dental primary profile',
        },
        lastUpdated: '2024-03-02T18:22:10.000Z',
      },
    },
    agents: {
      'camp-1': [
        { id: 'agent-11', name: 'Riley (recall)' },
        { id: 'agent-12', name: 'Sam (overflow)' },
      ],
      'camp-2': [{ id: 'agent-21', name: 'Ava (reception)' }],
      'camp-3': [{ id: 'agent-31', name: 'Mia (SMS)' }],
      'camp-4': [{ id: 'agent-41', name: 'Leo (web)' }],
    },
    sessions: {
      'sess-handoff-1': { campaignId: 'camp-3', handoff: true },
      'sess-bot-1': { campaignId: 'camp-3', handoff: false },
    },
    humanResponses: [],
    phoneNumbers: [
      { id: 'pn-1', number: '+14155550100', campaignId: 'camp-2' },
      { id: 'pn-2', number: '+14155550111', campaignId: null },
      { id: 'pn-3', number: '+14155550122', campaignId: null },
    ],
    subscriptions: [],
    voices: [],
    callDurations: { [SAMPLE_CALL.id]: SAMPLE_CALL.durationMs },
    voiceSamples: {},
  };
}
