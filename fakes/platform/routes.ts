/** The platform's endpoints (docs/PLATFORM-API.md), over the simulator's state: validation, rules, replies. */
import { SAMPLE_CALL, SAMPLE_RECORDINGS_ORIGIN, VOICE_PREVIEWS_BASE } from './recordings.js';
import type { FakeCampaign, PlatformState, SubscriptionState, VoiceRow } from './seed.js';
import type { RecordedRequest } from './types.js';

const SUBSCRIBABLE = ['call_started', 'call_completed', 'message_received', 'message_sent'];
const ALL_TRIGGERS = [...SUBSCRIBABLE, 'message_session_completed'];

const CODES: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  422: 'UNPROCESSABLE_ENTITY',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
  504: 'GATEWAY_TIMEOUT',
};

/** Thrown by handlers; becomes the error envelope. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string = CODES[status] ?? 'ERROR',
  ) {
    super(message);
  }
}

type Reply = { status: number; body?: unknown };

interface RouteContext {
  req: RecordedRequest;
  params: Record<string, string>;
  state: PlatformState;
}

interface Route {
  method: string;
  pattern: RegExp;
  /** Names of the `:param` segments, in order of the pattern's capture groups. */
  names: string[];
  handle: (ctx: RouteContext) => Reply;
}

// ---------------------------------------------------------------------------------------------- validation

function jsonObject(req: RecordedRequest): Record<string, unknown> {
  if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) {
    throw new HttpError(400, 'request body must be a JSON object');
  }
  return req.body as Record<string, unknown>;
}

function requiredString(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (typeof value !== 'string' || value === '') throw new HttpError(400, `${field} is required and must be a string`);
  return value;
}

function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new HttpError(400, `${field} must be a string`);
  return value;
}

function oneOf(body: Record<string, unknown>, field: string, allowed: readonly string[]): string {
  const value = body[field];
  if (typeof value !== 'string' || !allowed.includes(value)) {
    throw new HttpError(400, `${field} must be one of: ${allowed.join(', ')}`);
  }
  return value;
}

function httpsUrl(body: Record<string, unknown>, field: string): string {
  const value = requiredString(body, field);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new HttpError(400, `${field} must be a valid URL`);
  }
  if (url.protocol !== 'https:') throw new HttpError(400, `${field} must be an https URL`);
  return value;
}

function campaignOr404(state: PlatformState, campaignId: string): FakeCampaign {
  const campaign = state.campaigns[campaignId];
  if (!campaign) throw new HttpError(404, `campaign ${campaignId} not found`);
  return campaign;
}

// ------------------------------------------------------------------------------------------- sample events

/** A realistic event payload (spec section 6) built from the campaign's data. */
function sampleEvent(state: PlatformState, campaign: FakeCampaign, triggerName: string): Record<string, unknown> {
  const agent = state.agents[campaign.id]?.[0];
  const common = {
    campaignId: campaign.id,
    agentId: agent?.id ?? '',
    customerNumber: '+14155550123',
    customerName: 'Olivia Brown',
    campaignName: campaign.name,
    agentName: agent?.name ?? '',
    campaignType: campaign.type,
  };
  switch (triggerName) {
    case 'call_started':
      return { ...common, callId: SAMPLE_CALL.id };
    case 'call_completed': {
      const { durationMs } = SAMPLE_CALL;
      return {
        ...common,
        callId: SAMPLE_CALL.id,
        callSummary: 'Customer confirmed the check-up and booked Tuesday 10:00.',
        startedAt: '2024-03-08T16:38:35.000Z',
        endedAt: '2024-03-08T16:41:09.250Z',
        durationMs,
        durationSeconds: Math.round(durationMs / 1000),
        durationMinutes: Math.round((durationMs / 60_000) * 100) / 100,
        callTranscript: 'AI: Hi Olivia, this is Riley from Acme Dental...\nCustomer: Hi, yes, Tuesday works.',
        audioUrl: `${SAMPLE_RECORDINGS_ORIGIN}/${SAMPLE_CALL.id}.mp3`,
        customerEmail: 'olivia.brown@example.com',
        status: 'completed',
        endedReason: 'customer-ended-call',
      };
    }
    case 'message_received':
      return {
        ...common,
        messageContent: 'Can I move my appointment to Friday?',
        receivedAt: '2024-03-08T16:45:00.000Z',
      };
    default:
      return {
        ...common,
        messageContent: 'Sure! Friday 9:30 is free. Shall I book it?',
        sentAt: '2024-03-08T16:45:04.000Z',
      };
  }
}

// ------------------------------------------------------------------------------------------------- routes

const seg = '([^/]+)';

/** `path` uses `:name` for one URL-encoded segment; handlers get the decoded values in `params`. */
function route(method: string, path: string, handle: Route['handle']): Route {
  const names: string[] = [];
  const source = path.replace(/:(\w+)/g, (_, name: string) => {
    names.push(name);
    return seg;
  });
  return { method, pattern: new RegExp(`^${source}$`), names, handle };
}

function subscriptionView(s: SubscriptionState) {
  return {
    id: s.hookUrl,
    hookUrl: s.hookUrl,
    campaignId: s.campaignId,
    triggerName: s.triggerName,
    provider: s.provider,
  };
}

function tableEnvelope(table: string, value: unknown[]) {
  return { 'odata.metadata': `https://campaignstore.table.core.windows.net/$metadata#${table}`, value };
}

const routes: Route[] = [
  route('GET', '/open-api', ({ state }) => ({ status: 200, body: tableEnvelope('ApiKeys', state.apiKeys) })),

  route('GET', '/campaign/templates/:id', ({ state, params }) => {
    const template = state.templates[params.id!];
    if (!template) throw new HttpError(404, `template ${params.id} not found`);
    return { status: 200, body: template };
  }),

  route('POST', '/campaign-chat/:campaignId/send-human-response', ({ state, params, req }) => {
    const body = jsonObject(req);
    const sessionId = requiredString(body, 'sessionId');
    const message = requiredString(body, 'message');
    const agentId = optionalString(body, 'agentId');
    const attachments = body.attachments;
    if (
      attachments !== undefined &&
      (!Array.isArray(attachments) || !attachments.every((a) => typeof a === 'string'))
    ) {
      throw new HttpError(400, 'attachments must be a list of strings');
    }
    const session = state.sessions[sessionId];
    if (!session || !session.handoff || session.campaignId !== params.campaignId) {
      throw new HttpError(400, 'Human handoff is not enabled for the campaign', 'BAD_REQUEST');
    }
    state.humanResponses.push({
      campaignId: params.campaignId,
      sessionId,
      message,
      ...(agentId !== undefined && { agentId }),
      ...(attachments !== undefined && { attachments }),
    });
    return { status: 200, body: {} };
  }),

  route('POST', '/business-verification/submit', ({ state }) => {
    if (state.verification.status === 'not-configured') {
      throw new HttpError(422, 'The platform is not configured for business verification');
    }
    if (state.verification.status === 'processing') {
      throw new HttpError(409, 'The business verification profile is being processed; retry after it settles');
    }
    return { status: 202, body: state.verification.profile };
  }),

  route('GET', '/call/scheduled/:campaignId', ({ state, params }) => {
    campaignOr404(state, params.campaignId!);
    return { status: 200, body: tableEnvelope('ScheduledMessages', state.scheduled[params.campaignId!] ?? []) };
  }),

  // Unknown campaigns answer an empty list: the spec documents only 500 for this endpoint.
  route('GET', '/campaign/:campaignId/bookings', ({ state, params }) => ({
    status: 200,
    body: tableEnvelope('Bookings', state.bookings[params.campaignId!] ?? []),
  })),

  route('GET', '/dashboard/dashboard-stats', ({ state }) => ({ status: 200, body: state.stats })),

  route('POST', '/account/profile', ({ state, req }) => {
    const body = jsonObject(req);
    const company = optionalString(body, 'company');
    const fullName = optionalString(body, 'full_name');
    const picture = optionalString(body, 'picture');
    if (company !== undefined) state.profile.company = company;
    if (fullName !== undefined) state.profile.full_name = fullName;
    if (picture !== undefined) state.profile.picture = picture;
    const { profile } = state;
    return {
      status: 200,
      body: { user_metadata: { company: profile.company, full_name: profile.full_name }, picture: profile.picture },
    };
  }),

  route('POST', '/phone-number/link', ({ state, req }) => {
    const body = jsonObject(req);
    const phoneNumberId = requiredString(body, 'phoneNumberId');
    const campaignId = requiredString(body, 'campaignId');
    const phone = state.phoneNumbers.find((p) => p.id === phoneNumberId);
    if (!phone) throw new HttpError(400, `phoneNumberId ${phoneNumberId} does not exist`);
    if (!state.campaigns[campaignId]) throw new HttpError(400, `campaignId ${campaignId} does not exist`);
    phone.campaignId = campaignId;
    return { status: 200, body: {} };
  }),

  route('GET', '/customer-quota', ({ state }) => ({ status: 200, body: tableEnvelope('CustomerQuota', state.quota) })),

  route('POST', '/voices', ({ state, req }) => {
    const form = req.multipart;
    if (!form) throw new HttpError(400, 'request must be multipart/form-data');
    if (form.files.length === 0 || form.files.some((f) => f.field !== 'files')) {
      throw new HttpError(400, 'files is required: one or more audio samples in "files" parts');
    }
    const name = requiredString(form.fields, 'name');
    const language = requiredString(form.fields, 'language');
    const gender = requiredString(form.fields, 'gender');
    const provider = requiredString(form.fields, 'provider');
    const noise = form.fields.removeBackgroundNoise;
    if (noise !== undefined && noise !== 'true' && noise !== 'false') {
      throw new HttpError(400, 'removeBackgroundNoise must be true or false');
    }
    const id = `voice-${state.voices.length + 1}`;
    const ts = new Date().toISOString();
    const voice: VoiceRow = {
      'odata.etag': `W/"datetime'${encodeURIComponent(ts)}'"`,
      PartitionKey: state.apiKeys[0]?.CustomerId ?? 'customer',
      RowKey: id,
      Timestamp: ts,
      Name: name,
      Description: form.fields.description ?? '',
      Gender: gender,
      Language: language,
      Provider: provider,
      ProviderID: `${provider}-${id}`,
      PreviewUrl: `${VOICE_PREVIEWS_BASE}${id}/preview.mp3`,
      ProviderSettings: JSON.stringify({ removeBackgroundNoise: noise === 'true', samples: form.files.length }),
    };
    state.voices.push(voice);
    const first = form.files[0]!;
    state.voiceSamples[id] = { contentType: first.contentType, data: first.data };
    return { status: 200, body: voice };
  }),

  route('DELETE', '/agent/:campaignId/:id', ({ state, params }) => {
    const agents = state.agents[params.campaignId!] ?? [];
    const index = agents.findIndex((a) => a.id === params.id);
    if (index < 0) throw new HttpError(404, `agent ${params.id} not found in campaign ${params.campaignId}`);
    agents.splice(index, 1);
    return { status: 204 };
  }),

  route('POST', '/events-gateway/trigger/subscribe', ({ state, req }) => {
    const body = jsonObject(req);
    const hookUrl = httpsUrl(body, 'hookUrl');
    const campaignId = requiredString(body, 'campaignId');
    const triggerName = oneOf(body, 'triggerName', SUBSCRIBABLE);
    const provider = oneOf(body, 'provider', ['custom']);
    if (campaignId !== '*') campaignOr404(state, campaignId);
    const existing = state.subscriptions.find(
      (s) => s.hookUrl === hookUrl && s.campaignId === campaignId && s.triggerName === triggerName,
    );
    if (!existing) state.subscriptions.push({ hookUrl, campaignId, triggerName, provider });
    return { status: 201, body: { id: hookUrl, campaignId, triggerName } };
  }),

  route('GET', '/events-gateway/trigger/perform/:triggerName', ({ state, params, req }) => {
    const triggerName = oneOf(params, 'triggerName', SUBSCRIBABLE);
    const campaignId = requiredString(req.query, 'campaignId');
    const campaign = campaignOr404(state, campaignId);
    // Same shape as a delivery: a JSON array holding one event.
    return { status: 200, body: [sampleEvent(state, campaign, triggerName)] };
  }),

  route('GET', '/events-gateway/triggers/campaign/:campaignId', ({ state, params }) => ({
    status: 200,
    body: state.subscriptions.filter((s) => s.campaignId === params.campaignId).map(subscriptionView),
  })),

  route('DELETE', '/events-gateway/trigger/unsubscribe', ({ state, req }) => {
    const body = jsonObject(req);
    const hookUrl = requiredString(body, 'hookUrl');
    const campaignId = requiredString(body, 'campaignId');
    const triggerName = oneOf(body, 'triggerName', ALL_TRIGGERS);
    oneOf(body, 'provider', ['custom']);
    const index = state.subscriptions.findIndex(
      (s) => s.hookUrl === hookUrl && s.campaignId === campaignId && s.triggerName === triggerName,
    );
    if (index < 0) throw new HttpError(400, 'no subscription matches hookUrl, campaignId and triggerName');
    state.subscriptions.splice(index, 1);
    return { status: 200, body: {} };
  }),
];

export function matchRoute(
  method: string,
  path: string,
): { route: Route; params: Record<string, string> } | 'wrong-method' | undefined {
  let pathMatched = false;
  for (const r of routes) {
    const m = r.pattern.exec(path);
    if (!m) continue;
    pathMatched = true;
    if (r.method !== method) continue;
    const params: Record<string, string> = {};
    r.names.forEach((name, i) => {
      try {
        params[name] = decodeURIComponent(m[i + 1]!);
      } catch {
        throw new HttpError(400, `path parameter ${name} is not valid URL encoding`);
      }
    });
    return { route: r, params };
  }
  return pathMatched ? 'wrong-method' : undefined;
}
