/**
 * A fake of the campaign platform (docs: /work/shared/campaign-api.md) on a real HTTP socket.
 *
 * - All 16 endpoints under `${url}` (which already ends in /v1/api), backed by `state` (see platform-seed.ts).
 * - Checks the `api-key` header (401 envelope), validates request bodies (400 envelope naming the field) and
 *   applies the documented rules (404 unknown template/campaign/agent, handoff-only human replies, 409/422
 *   verification states, https-only webhooks, provider 'custom').
 * - Every response carries `x-request-id`; every error body is `{ error: { message, code, requestId } }`.
 * - Every request is recorded in `requests` (after its body was read, before faults/auth/routing), so tests
 *   can assert exactly what the platform received, including multipart parts.
 * - `inject()` adds faults (error status, delay, socket reset, raw body) for matching requests.
 *
 * Usage:
 *   const platform = await startFakePlatform();
 *   const client = new CampaignClient(createTransport({ baseUrl: platform.url }), platform.apiKey);
 *   ...
 *   await platform.close();
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSeedState } from './seed.js';
import type { FakeCampaign, PlatformState, SubscriptionState, VoiceRow } from './seed.js';

export type { PlatformState } from './seed.js';
export { DEFAULT_API_KEY, createSeedState } from './seed.js';

export const BASE_PATH = '/v1/api';

export interface RecordedFile {
  field: string;
  filename: string;
  contentType: string;
  data: Buffer;
}

export interface RecordedRequest {
  method: string;
  /** Path below the base, still URL-encoded as sent, e.g. '/campaign/camp%2F1/bookings'. */
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body, or undefined when there was none or it was not JSON. */
  body: unknown;
  raw: Buffer;
  /** Client port of the TCP connection: equal ports on consecutive requests mean the socket was kept alive. */
  remotePort: number | undefined;
  multipart?: { fields: Record<string, string>; files: RecordedFile[] };
}

export type Fault = {
  method?: string;
  /** Exact path below the base (as recorded), or a RegExp tested against it. */
  path?: string | RegExp;
  /** How many matching requests the fault applies to; every one when omitted. */
  times?: number;
} & (
  | { status: number; code?: string; message?: string }
  | { delayMs: number }
  | { reset: true }
  | { body: string; status?: number; contentType?: string }
);

export interface FakePlatform {
  /** Base URL including /v1/api, e.g. http://127.0.0.1:PORT/v1/api */
  readonly url: string;
  /** A valid key (the first active one). */
  readonly apiKey: string;
  readonly requests: RecordedRequest[];
  readonly state: PlatformState;
  inject(fault: Fault): void;
  clearFaults(): void;
  /** Clears recorded requests and faults (state is kept; see resetState). */
  reset(): void;
  /** Puts the default seed back into `state`, in place (references to `state` stay valid). */
  resetState(): void;
  close(): Promise<void>;
}

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
class HttpError extends Error {
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
      return { ...common, callId: 'call-sample-0001' };
    case 'call_completed': {
      const durationMs = 154_250;
      return {
        ...common,
        callId: 'call-sample-0001',
        callSummary: 'Customer confirmed the check-up and booked Tuesday 10:00.',
        startedAt: '2024-03-08T16:38:35.000Z',
        endedAt: '2024-03-08T16:41:09.250Z',
        durationMs,
        durationSeconds: Math.round(durationMs / 1000),
        durationMinutes: Math.round((durationMs / 60_000) * 100) / 100,
        callTranscript: 'AI: Hi Olivia, this is Riley from Acme Dental...\nCustomer: Hi, yes, Tuesday works.',
        audioUrl: 'https://recordings.example.com/call-sample-0001.mp3',
        customerEmail: 'olivia.brown@example.com',
        status: 'completed',
        endedReason: 'customer-ended-call',
      };
    }
    case 'message_received':
      return { ...common, messageContent: 'Can I move my appointment to Friday?', receivedAt: '2024-03-08T16:45:00.000Z' };
    default:
      return { ...common, messageContent: 'Sure! Friday 9:30 is free. Shall I book it?', sentAt: '2024-03-08T16:45:04.000Z' };
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
  return { id: s.hookUrl, hookUrl: s.hookUrl, campaignId: s.campaignId, triggerName: s.triggerName, provider: s.provider };
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
    if (attachments !== undefined && (!Array.isArray(attachments) || !attachments.every((a) => typeof a === 'string'))) {
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
      PreviewUrl: `https://cdn.example.com/voices/${id}/preview.mp3`,
      ProviderSettings: JSON.stringify({ removeBackgroundNoise: noise === 'true', samples: form.files.length }),
    };
    state.voices.push(voice);
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

function matchRoute(method: string, path: string): { route: Route; params: Record<string, string> } | 'wrong-method' | undefined {
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

// ------------------------------------------------------------------------------------------------- server

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function parseMultipart(raw: Buffer, contentType: string): Promise<RecordedRequest['multipart']> {
  try {
    const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
    const fields: Record<string, string> = {};
    const files: RecordedFile[] = [];
    for (const [field, value] of form.entries()) {
      if (typeof value === 'string') fields[field] = value;
      else files.push({ field, filename: value.name, contentType: value.type, data: Buffer.from(await value.arrayBuffer()) });
    }
    return { fields, files };
  } catch {
    return undefined;
  }
}

function parseJson(raw: Buffer, contentType: string): unknown {
  if (raw.length === 0 || !contentType.includes('json')) return undefined;
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function faultMatches(fault: Fault, req: RecordedRequest): boolean {
  if (fault.method && fault.method.toUpperCase() !== req.method) return false;
  if (fault.path === undefined) return true;
  return typeof fault.path === 'string' ? fault.path === req.path : fault.path.test(req.path);
}

export async function startFakePlatform(opts: { apiKeys?: string[] } = {}): Promise<FakePlatform> {
  const state = createSeedState(opts.apiKeys);
  const requests: RecordedRequest[] = [];
  let faults: Fault[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let requestCounter = 0;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  function send(res: ServerResponse, requestId: string, status: number, body?: unknown): void {
    if (res.destroyed || res.writableEnded) return; // the client gave up (timeout) while we were delaying
    res.setHeader('x-request-id', requestId);
    if (status === 204 || body === undefined) {
      res.writeHead(status).end();
      return;
    }
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
  }

  function sendError(res: ServerResponse, requestId: string, err: HttpError): void {
    send(res, requestId, err.status, { error: { message: err.message, code: err.code, requestId } });
  }

  /** Takes the first fault matching the request and uses up one of its `times`. */
  function takeFault(req: RecordedRequest): Fault | undefined {
    const fault = faults.find((f) => faultMatches(f, req));
    if (fault?.times !== undefined) {
      fault.times -= 1;
      if (fault.times <= 0) faults = faults.filter((f) => f !== fault);
    }
    return fault;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = `req_${String(++requestCounter).padStart(6, '0')}`;
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    const raw = await readBody(req);
    const contentType = req.headers['content-type'] ?? '';
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname.startsWith(BASE_PATH) ? url.pathname.slice(BASE_PATH.length) : url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      body: parseJson(raw, contentType),
      raw,
      remotePort: req.socket.remotePort,
      ...(contentType.startsWith('multipart/form-data') && { multipart: await parseMultipart(raw, contentType) }),
    };
    requests.push(recorded);

    const fault = takeFault(recorded);
    if (fault) {
      if ('reset' in fault) {
        req.socket.destroy();
        return;
      }
      if ('delayMs' in fault) {
        await sleep(fault.delayMs);
      } else if ('body' in fault) {
        if (res.destroyed) return;
        res.setHeader('x-request-id', requestId);
        res.writeHead(fault.status ?? 200, { 'content-type': fault.contentType ?? 'application/json' }).end(fault.body);
        return;
      } else {
        sendError(res, requestId, new HttpError(fault.status, fault.message ?? 'injected fault', fault.code));
        return;
      }
    }

    if (!url.pathname.startsWith(`${BASE_PATH}/`)) {
      sendError(res, requestId, new HttpError(404, `no such path: ${url.pathname}`));
      return;
    }
    const key = req.headers['api-key'];
    if (typeof key !== 'string' || key === '') {
      sendError(res, requestId, new HttpError(401, 'Missing api-key header', 'UNAUTHORIZED'));
      return;
    }
    if (!state.apiKeys.some((k) => k.RowKey === key && k.Active)) {
      sendError(res, requestId, new HttpError(401, 'Invalid or inactive API key', 'UNAUTHORIZED'));
      return;
    }

    try {
      const match = matchRoute(recorded.method, recorded.path);
      if (match === undefined) throw new HttpError(404, `no such endpoint: ${recorded.method} ${recorded.path}`);
      if (match === 'wrong-method') throw new HttpError(405, `method ${recorded.method} not allowed`, 'METHOD_NOT_ALLOWED');
      const reply = match.route.handle({ req: recorded, params: match.params, state });
      send(res, requestId, reply.status, reply.body);
    } catch (err) {
      sendError(res, requestId, err instanceof HttpError ? err : new HttpError(500, 'Internal server error'));
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent && !res.destroyed) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}${BASE_PATH}`,
    apiKey: state.apiKeys.find((k) => k.Active)?.RowKey ?? '',
    requests,
    state,
    inject(fault) {
      faults.push({ ...fault });
    },
    clearFaults() {
      faults = [];
    },
    reset() {
      requests.length = 0;
      faults = [];
    },
    resetState() {
      Object.assign(state, createSeedState(opts.apiKeys));
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}
