/**
 * Every documented error status (spec section 7) surfaces as the right error class with the envelope's
 * code, message and requestId; envelope-less bodies still give a readable ApiError; the key never leaks.
 */
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  AuthenticationError,
  BadRequestError,
  CampaignClient,
  ConflictError,
  NotFoundError,
  PlatformError,
  RateLimitError,
  ServerError,
  UnprocessableError,
  apiErrorClassFor,
} from '../../src/api/index.js';
import type { HttpMethod } from '../../src/api/index.js';
import { WORKSPACE, rejectionOf, usePlatform } from './support.js';

const h = usePlatform({ getRetries: 0 });

type Call = (c: CampaignClient) => Promise<unknown>;

const endpoints: { endpoint: string; method: HttpMethod; path: string; call: Call }[] = [
  { endpoint: 'GET /open-api', method: 'GET', path: '/open-api', call: (c) => c.keys.list() },
  {
    endpoint: 'GET /campaign/templates/{id}',
    method: 'GET',
    path: '/campaign/templates/tpl-web-concierge',
    call: (c) => c.templates.get('tpl-web-concierge'),
  },
  {
    endpoint: 'POST /campaign-chat/{campaignId}/send-human-response',
    method: 'POST',
    path: '/campaign-chat/camp-3/send-human-response',
    call: (c) => c.chat.sendHumanResponse('camp-3', { sessionId: 'sess-handoff-1', message: 'hi' }),
  },
  {
    endpoint: 'POST /business-verification/submit',
    method: 'POST',
    path: '/business-verification/submit',
    call: (c) => c.verification.submit(),
  },
  {
    endpoint: 'GET /call/scheduled/{campaignId}',
    method: 'GET',
    path: '/call/scheduled/camp-1',
    call: (c) => c.calls.listScheduled('camp-1'),
  },
  {
    endpoint: 'GET /campaign/{campaignId}/bookings',
    method: 'GET',
    path: '/campaign/camp-1/bookings',
    call: (c) => c.bookings.list('camp-1'),
  },
  {
    endpoint: 'GET /dashboard/dashboard-stats',
    method: 'GET',
    path: '/dashboard/dashboard-stats',
    call: (c) => c.dashboard.getStats(),
  },
  {
    endpoint: 'POST /account/profile',
    method: 'POST',
    path: '/account/profile',
    call: (c) => c.account.updateProfile({ full_name: 'D' }),
  },
  {
    endpoint: 'POST /phone-number/link',
    method: 'POST',
    path: '/phone-number/link',
    call: (c) => c.phoneNumbers.link({ phoneNumberId: 'pn-2', campaignId: 'camp-1' }),
  },
  { endpoint: 'GET /customer-quota', method: 'GET', path: '/customer-quota', call: (c) => c.quota.list() },
  {
    endpoint: 'POST /voices',
    method: 'POST',
    path: '/voices',
    call: (c) =>
      c.voices.clone({
        name: 'v',
        language: 'en',
        gender: 'female',
        provider: 'p',
        files: [{ filename: 'a.wav', contentType: 'audio/wav', data: Buffer.from('x') }],
      }),
  },
  {
    endpoint: 'DELETE /agent/{campaignId}/{id}',
    method: 'DELETE',
    path: '/agent/camp-1/agent-11',
    call: (c) => c.agents.delete('camp-1', 'agent-11'),
  },
  {
    endpoint: 'POST /events-gateway/trigger/subscribe',
    method: 'POST',
    path: '/events-gateway/trigger/subscribe',
    call: (c) =>
      c.webhooks.subscribe({ hookUrl: 'https://h.example.com/x', campaignId: 'camp-1', triggerName: 'call_started' }),
  },
  {
    endpoint: 'GET /events-gateway/trigger/perform/{triggerName}',
    method: 'GET',
    path: '/events-gateway/trigger/perform/call_started',
    call: (c) => c.webhooks.sample('call_started', 'camp-1'),
  },
  {
    endpoint: 'GET /events-gateway/triggers/campaign/{campaignId}',
    method: 'GET',
    path: '/events-gateway/triggers/campaign/camp-1',
    call: (c) => c.webhooks.listForCampaign('camp-1'),
  },
  {
    endpoint: 'DELETE /events-gateway/trigger/unsubscribe',
    method: 'DELETE',
    path: '/events-gateway/trigger/unsubscribe',
    call: (c) =>
      c.webhooks.unsubscribe({ hookUrl: 'https://h.example.com/x', campaignId: 'camp-1', triggerName: 'call_started' }),
  },
];

function expectEnvelope(err: unknown, ErrorClass: typeof ApiError, status: number, code: string): ApiError {
  expect(err).toBeInstanceOf(ErrorClass);
  const apiErr = err as ApiError;
  expect(apiErr).toBeInstanceOf(PlatformError);
  expect(apiErr.status).toBe(status);
  expect(apiErr.code).toBe(code);
  expect(apiErr.requestId).toMatch(/^req_\d+$/);
  return apiErr;
}

describe('documented error statuses from the platform rules', () => {
  it('templates 404 → NotFoundError', async () => {
    const err = expectEnvelope(await rejectionOf(h.client.templates.get('nope')), NotFoundError, 404, 'NOT_FOUND');
    expect(err.endpoint).toBe('GET /campaign/templates/{id}');
    expect(err.method).toBe('GET');
    expect(err.message).toBe('template nope not found');
  });

  it('send-human-response 400 BAD_REQUEST when the session is not in handoff', async () => {
    const err = expectEnvelope(
      await rejectionOf(h.client.chat.sendHumanResponse('camp-3', { sessionId: 'sess-bot-1', message: 'hi' })),
      BadRequestError,
      400,
      'BAD_REQUEST',
    );
    expect(err.message).toMatch(/human handoff is not enabled for the campaign/i);
    expect(err.endpoint).toBe('POST /campaign-chat/{campaignId}/send-human-response');
  });

  it('send-human-response 400 when the session belongs to another campaign', async () => {
    const err = await rejectionOf(
      h.client.chat.sendHumanResponse('camp-1', { sessionId: 'sess-handoff-1', message: 'hi' }),
    );
    expectEnvelope(err, BadRequestError, 400, 'BAD_REQUEST');
  });

  it('verification submit 409 while processing → ConflictError', async () => {
    h.platform.state.verification.status = 'processing';
    expectEnvelope(await rejectionOf(h.client.verification.submit()), ConflictError, 409, 'CONFLICT');
  });

  it('verification submit 422 when not configured → UnprocessableError', async () => {
    h.platform.state.verification.status = 'not-configured';
    expectEnvelope(await rejectionOf(h.client.verification.submit()), UnprocessableError, 422, 'UNPROCESSABLE_ENTITY');
  });

  it('scheduled 404 for an unknown campaign', async () => {
    expectEnvelope(await rejectionOf(h.client.calls.listScheduled('camp-x')), NotFoundError, 404, 'NOT_FOUND');
  });

  it('profile 400 for a field of the wrong type', async () => {
    const err = expectEnvelope(
      await rejectionOf(h.client.account.updateProfile({ company: 42 as unknown as string })),
      BadRequestError,
      400,
      'BAD_REQUEST',
    );
    expect(err.message).toMatch(/company/);
  });

  it('phone-number link 400 for an unknown number', async () => {
    const err = expectEnvelope(
      await rejectionOf(h.client.phoneNumbers.link({ phoneNumberId: 'pn-404', campaignId: 'camp-1' })),
      BadRequestError,
      400,
      'BAD_REQUEST',
    );
    expect(err.message).toMatch(/phoneNumberId/);
  });

  it('voices 400 without files', async () => {
    const err = expectEnvelope(
      await rejectionOf(h.client.voices.clone({ name: 'v', language: 'en', gender: 'male', provider: 'p', files: [] })),
      BadRequestError,
      400,
      'BAD_REQUEST',
    );
    expect(err.message).toMatch(/files/);
  });

  it('agent delete 404 for an unknown agent', async () => {
    expectEnvelope(await rejectionOf(h.client.agents.delete('camp-1', 'agent-x')), NotFoundError, 404, 'NOT_FOUND');
  });

  it('unsubscribe 400 for a subscription that does not exist', async () => {
    const err = await rejectionOf(
      h.client.webhooks.unsubscribe({
        hookUrl: 'https://h.example.com/x',
        campaignId: 'camp-1',
        triggerName: 'message_session_completed',
      }),
    );
    expectEnvelope(err, BadRequestError, 400, 'BAD_REQUEST');
  });

  it('401 for an unknown api key → AuthenticationError, and the key is not in the message', async () => {
    const secret = 'ck_live_this_key_is_not_known_0001';
    const client = new CampaignClient(h.transport, secret, WORKSPACE);
    const err = expectEnvelope(
      await rejectionOf(client.dashboard.getStats()),
      AuthenticationError,
      401,
      'UNAUTHORIZED',
    );
    expect(h.platform.requests[0]!.headers['api-key']).toBe(secret);
    expect(err.message).not.toContain(secret);
  });
});

describe('500 on every endpoint → ServerError with code and requestId', () => {
  it.each(endpoints)('$endpoint', async ({ endpoint, method, path, call }) => {
    h.platform.inject({ method, path, status: 500, code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error' });

    const err = expectEnvelope(await rejectionOf(call(h.client)), ServerError, 500, 'INTERNAL_SERVER_ERROR');

    expect(err.endpoint).toBe(endpoint);
    expect(err.method).toBe(method);
    expect(err.message).toBe('Internal server error');
    expect(h.platform.requests).toHaveLength(1);
    expect(h.platform.requests[0]!.path).toBe(path);
  });
});

describe('status → class', () => {
  it.each([
    [400, BadRequestError],
    [401, AuthenticationError],
    [403, AuthenticationError],
    [404, NotFoundError],
    [409, ConflictError],
    [422, UnprocessableError],
    [429, RateLimitError],
    [500, ServerError],
    [503, ServerError],
    [418, ApiError],
  ] as const)('%i over the wire', async (status, ErrorClass) => {
    h.platform.inject({ path: '/customer-quota', status, code: 'SOME_CODE', message: 'nope' });
    const err = await rejectionOf(h.client.quota.list());
    expect(err).toBeInstanceOf(ErrorClass);
    expect(err).toMatchObject({ status, code: 'SOME_CODE', message: 'nope' });
    expect(apiErrorClassFor(status)).toBe(ErrorClass);
  });

  it('subclasses are distinct', () => {
    expect(
      new NotFoundError({
        method: 'GET',
        endpoint: 'GET /x',
        status: 404,
        code: 'C',
        message: 'm',
        requestId: undefined,
      }),
    ).not.toBeInstanceOf(ServerError);
  });
});

describe('bodies without an envelope', () => {
  it('an HTML 502 page becomes a readable ApiError with code UNKNOWN, text truncated', async () => {
    const html = `<html><head><title>502 Bad Gateway</title></head><body>${'upstream error '.repeat(100)}</body></html>`;
    h.platform.inject({ path: '/customer-quota', status: 502, body: html, contentType: 'text/html' });

    const err = await rejectionOf(h.client.quota.list());

    expect(err).toBeInstanceOf(ServerError);
    const apiErr = err as ServerError;
    expect(apiErr.status).toBe(502);
    expect(apiErr.code).toBe('UNKNOWN');
    expect(apiErr.message).toMatch(/^<html><head><title>502 Bad Gateway/);
    expect(apiErr.message.length).toBeLessThanOrEqual(201);
    expect(apiErr.message.endsWith('…')).toBe(true);
    // no envelope requestId: falls back to the x-request-id header
    expect(apiErr.requestId).toMatch(/^req_\d+$/);
  });

  it('a JSON body of another shape is UNKNOWN too', async () => {
    h.platform.inject({ path: '/open-api', status: 400, body: '{"message":"bad things"}' });
    const err = await rejectionOf(h.client.keys.list());
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err).toMatchObject({ code: 'UNKNOWN', message: '{"message":"bad things"}' });
  });

  it('an empty error body says HTTP <status>', async () => {
    h.platform.inject({ path: '/open-api', status: 503, body: '' });
    const err = await rejectionOf(h.client.keys.list());
    expect(err).toMatchObject({ status: 503, code: 'UNKNOWN', message: 'HTTP 503' });
  });
});

describe('the api key never reaches an error message', () => {
  it('is masked when the platform echoes it in the envelope', async () => {
    const key = h.platform.apiKey;
    h.platform.inject({ path: '/open-api', status: 403, code: 'FORBIDDEN', message: `key ${key} is not allowed here` });
    const err = (await rejectionOf(h.client.keys.list())) as AuthenticationError;
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err.message).toBe(`key ••••${key.slice(-4)} is not allowed here`);
    expect(JSON.stringify(err)).not.toContain(key);
    expect(String(err.stack)).not.toContain(key);
  });

  it('is masked in a non-JSON body', async () => {
    const key = h.platform.apiKey;
    h.platform.inject({
      path: '/open-api',
      status: 500,
      body: `crash while handling api-key=${key}`,
      contentType: 'text/plain',
    });
    const err = (await rejectionOf(h.client.keys.list())) as ServerError;
    expect(err.message).not.toContain(key);
    expect(err.message).toContain('••••');
  });

  it('is masked in the code and request id as in the message, and they come as one bounded line', async () => {
    const key = h.platform.apiKey;
    const slackToken = 'xoxb-1234567890-abcdefghijkl';
    h.platform.inject({
      path: '/open-api',
      status: 500,
      body: JSON.stringify({
        error: { code: `E_${key}\n<!channel>`, requestId: `req ${slackToken} ${'x'.repeat(300)}`, message: 'boom' },
      }),
    });
    const err = (await rejectionOf(h.client.keys.list())) as ServerError;
    expect(err.code).toBe(`E_••••${key.slice(-4)} <!channel>`); // escaping for Slack is the renderer's job
    expect(err.requestId).toMatch(/^req xoxb-\[redacted\] x+…$/);
    expect(err.requestId!.length).toBeLessThanOrEqual(101);
    expect(JSON.stringify(err)).not.toContain(key);
    expect(JSON.stringify(err)).not.toContain(slackToken);
  });
});
