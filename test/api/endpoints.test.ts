/**
 * Every endpoint over real HTTP against the fake platform: what the platform received (method, path,
 * api-key, body) and what the client returned.
 */
import { describe, expect, it } from 'vitest';
import { BadRequestError, NotFoundError } from '../../src/api/index.js';
import { seedQuota } from '../fakes/platform.js';
import { rejectionOf, usePlatform } from './support.js';

const h = usePlatform();

function only<T>(items: T[]): T {
  expect(items).toHaveLength(1);
  return items[0]!;
}

describe('GET /open-api — keys.list', () => {
  it('returns the raw key rows, table fields included, and sent the api-key', async () => {
    const rows = await h.client.keys.list();

    const req = only(h.received('GET', '/open-api'));
    expect(req.headers['api-key']).toBe(h.platform.apiKey);
    expect(req.raw.length).toBe(0);
    expect(rows.map((r) => r.RowKey)).toEqual(h.platform.state.apiKeys.map((k) => k.RowKey));
    expect(rows[0]).toMatchObject({ Active: true, CompanyName: 'Acme Dental Group', CustomerId: 'cust-7f3a91' });
    expect(rows[0]!['odata.etag']).toMatch(/^W\/"datetime'/);
    expect(rows[1]!.Active).toBe(false);
  });
});

describe('GET /campaign/templates/{id} — templates.get', () => {
  it.each(['outbound', 'inbound', 'web', 'messages'] as const)('returns a %s template', async (type) => {
    const id = Object.values(h.platform.state.templates).find((t) => t.type === type)!.assistant_id;
    const template = await h.client.templates.get(id);

    const req = only(h.received('GET', `/campaign/templates/${id}`));
    expect(req.headers['api-key']).toBe(h.platform.apiKey);
    expect(template).toEqual(h.platform.state.templates[id]);
    expect(template.type).toBe(type);
  });

  it('URL-encodes the id', async () => {
    h.platform.state.templates['tpl/ä b?'] = {
      assistant_id: 'tpl/ä b?',
      title: 'odd',
      type: 'web',
      order: 9,
      required_fields: [],
    };
    const template = await h.client.templates.get('tpl/ä b?');
    expect(template.title).toBe('odd');
    expect(h.platform.requests[0]!.path).toBe('/campaign/templates/tpl%2F%C3%A4%20b%3F');
  });

  it('404 for an unknown template', async () => {
    const err = await rejectionOf(h.client.templates.get('tpl-missing'));
    expect(err).toBeInstanceOf(NotFoundError);
  });
});

describe('POST /campaign-chat/{campaignId}/send-human-response — chat.sendHumanResponse', () => {
  it('posts the reply as JSON and resolves void on the empty-object 200', async () => {
    const result = await h.client.chat.sendHumanResponse('camp-3', {
      sessionId: 'sess-handoff-1',
      message: 'Hi, this is Dana from the front desk.',
      agentId: 'agent-31',
      attachments: ['https://files.example.com/map.pdf'],
    });

    expect(result).toBeUndefined();
    const req = only(h.received('POST', '/campaign-chat/camp-3/send-human-response'));
    expect(req.headers['api-key']).toBe(h.platform.apiKey);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.body).toEqual({
      sessionId: 'sess-handoff-1',
      message: 'Hi, this is Dana from the front desk.',
      agentId: 'agent-31',
      attachments: ['https://files.example.com/map.pdf'],
    });
    expect(h.platform.state.humanResponses).toHaveLength(1);
  });

  it('omits the optional fields when not given', async () => {
    await h.client.chat.sendHumanResponse('camp-3', { sessionId: 'sess-handoff-1', message: 'ok' });
    expect(only(h.received('POST', '/campaign-chat/camp-3/send-human-response')).body).toEqual({
      sessionId: 'sess-handoff-1',
      message: 'ok',
    });
  });
});

describe('POST /business-verification/submit — verification.submit', () => {
  it('posts without a body and returns the 202 profile snapshot, nulls included', async () => {
    const profile = await h.client.verification.submit();

    const req = only(h.received('POST', '/business-verification/submit'));
    expect(req.headers['api-key']).toBe(h.platform.apiKey);
    expect(req.raw.length).toBe(0);
    expect(profile).toEqual(h.platform.state.verification.profile);
    expect(profile.providerFailures).toBeNull();
    expect(profile.voiceIntegrityData).toBeNull();
    expect(profile.formData?.authorizedRep2).toBeNull();
    expect(profile.cnamStatus).toBe('twilio-rejected');
    expect(profile.cnamFailures?.[0]?.code).toBe('CNAM_DISPLAY_NAME_INVALID');
  });
});

describe('GET /call/scheduled/{campaignId} — calls.listScheduled', () => {
  it('returns the scheduled calls of the campaign', async () => {
    const calls = await h.client.calls.listScheduled('camp-1');

    const req = only(h.received('GET', '/call/scheduled/camp-1'));
    expect(req.headers['api-key']).toBe(h.platform.apiKey);
    expect(calls).toEqual(h.platform.state.scheduled['camp-1']);
    expect(calls[0]).toMatchObject({ Name: 'Olivia Brown', PhoneNumber: '+14155550123', SBSequenceNumber: 7215 });
  });

  it('404 for an unknown campaign', async () => {
    expect(await rejectionOf(h.client.calls.listScheduled('camp-nope'))).toBeInstanceOf(NotFoundError);
  });
});

describe('GET /campaign/{campaignId}/bookings — bookings.list', () => {
  it('returns bookings in all three statuses, with the failure reason', async () => {
    const bookings = await h.client.bookings.list('camp-1');

    const req = only(h.received('GET', '/campaign/camp-1/bookings'));
    expect(req.headers['api-key']).toBe(h.platform.apiKey);
    expect(bookings.map((b) => b.Status).sort()).toEqual(['booking', 'fail', 'success']);
    expect(bookings.find((b) => b.Status === 'fail')?.Reason).toMatch(/no longer available/);
    expect(bookings).toEqual(h.platform.state.bookings['camp-1']);
  });

  it('an unknown campaign has no bookings', async () => {
    expect(await h.client.bookings.list('camp-unknown')).toEqual([]);
  });
});

describe('GET /dashboard/dashboard-stats — dashboard.getStats', () => {
  it('returns totals, top campaigns and element counts', async () => {
    const stats = await h.client.dashboard.getStats();

    expect(only(h.received('GET', '/dashboard/dashboard-stats')).headers['api-key']).toBe(h.platform.apiKey);
    expect(stats).toEqual(h.platform.state.stats);
    expect(stats.totals?.Outbound?.calls).toBe(1284);
    expect(stats.topCampaigns?.[0]?.campaignId).toBe('camp-1');
    expect(stats.elements?.knowledgeFiles).toBe(14);
  });
});

describe('POST /account/profile — account.updateProfile', () => {
  it('sends only the given fields and returns the updated profile', async () => {
    const profile = await h.client.account.updateProfile({ company: 'Acme Dental & Ortho' });

    const req = only(h.received('POST', '/account/profile'));
    expect(req.headers['api-key']).toBe(h.platform.apiKey);
    expect(req.body).toEqual({ company: 'Acme Dental & Ortho' });
    expect(profile).toEqual({
      user_metadata: { company: 'Acme Dental & Ortho', full_name: 'Dana Whitfield' },
      picture: 'https://cdn.example.com/avatars/dana.png',
    });
  });
});

describe('POST /phone-number/link — phoneNumbers.link', () => {
  it('posts the ids and resolves void; the number is linked', async () => {
    const result = await h.client.phoneNumbers.link({ phoneNumberId: 'pn-2', campaignId: 'camp-1' });

    expect(result).toBeUndefined();
    const req = only(h.received('POST', '/phone-number/link'));
    expect(req.headers['api-key']).toBe(h.platform.apiKey);
    expect(req.body).toEqual({ phoneNumberId: 'pn-2', campaignId: 'camp-1' });
    expect(h.platform.state.phoneNumbers.find((p) => p.id === 'pn-2')?.campaignId).toBe('camp-1');
  });
});

describe('GET /customer-quota — quota.list', () => {
  it('parses millisecond strings to exact bigints, above 2^53 too', async () => {
    h.platform.state.quota = seedQuota('beyond-2^53');
    const rows = await h.client.quota.list();

    expect(only(h.received('GET', '/customer-quota')).headers['api-key']).toBe(h.platform.apiKey);
    expect(rows).toHaveLength(2);
    const big = rows.find((r) => r.RowKey === '2024-03')!;
    expect(big.PurchasedMs).toBe(9007199254740993n); // 2^53 + 1: not representable as a Number
    expect(big.TotalUsageMs).toBe(18014398509481985n);
    expect(typeof big.RolloverMs).toBe('bigint');
    expect(big.PlanQuota).toBe('enterprise-pooled');
    expect(rows.find((r) => r.RowKey === '2024-02')!.PurchasedMs).toBe(180000000n);
  });
});

describe('DELETE /agent/{campaignId}/{id} — agents.delete', () => {
  it('deletes on 204 and resolves void', async () => {
    const result = await h.client.agents.delete('camp-1', 'agent-12');

    expect(result).toBeUndefined();
    const req = only(h.received('DELETE', '/agent/camp-1/agent-12'));
    expect(req.headers['api-key']).toBe(h.platform.apiKey);
    expect(h.platform.state.agents['camp-1']!.map((a) => a.id)).toEqual(['agent-11']);
  });

  it('404 for an unknown agent (e.g. deleted twice)', async () => {
    await h.client.agents.delete('camp-1', 'agent-12');
    expect(await rejectionOf(h.client.agents.delete('camp-1', 'agent-12'))).toBeInstanceOf(NotFoundError);
  });
});

describe('webhooks', () => {
  const hookUrl = 'https://hooks.example.com/campaign/4b1f0c2e9d';

  it('subscribe posts provider "custom" and returns the 201 subscription', async () => {
    const sub = await h.client.webhooks.subscribe({ hookUrl, campaignId: 'camp-1', triggerName: 'call_completed' });

    const req = only(h.received('POST', '/events-gateway/trigger/subscribe'));
    expect(req.headers['api-key']).toBe(h.platform.apiKey);
    expect(req.body).toEqual({ hookUrl, campaignId: 'camp-1', triggerName: 'call_completed', provider: 'custom' });
    expect(sub).toEqual({ id: hookUrl, campaignId: 'camp-1', triggerName: 'call_completed' });
    expect(h.platform.state.subscriptions).toHaveLength(1);
  });

  it('subscribe with a non-https hookUrl is a 400 naming the field', async () => {
    const err = await rejectionOf(
      h.client.webhooks.subscribe({
        hookUrl: 'http://hooks.example.com/x',
        campaignId: 'camp-1',
        triggerName: 'call_started',
      }),
    );
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as BadRequestError).message).toMatch(/hookUrl/);
  });

  it('listForCampaign returns the stored hooks as unknown JSON', async () => {
    await h.client.webhooks.subscribe({ hookUrl, campaignId: 'camp-2', triggerName: 'call_started' });
    await h.client.webhooks.subscribe({ hookUrl, campaignId: 'camp-2', triggerName: 'call_completed' });
    await h.client.webhooks.subscribe({ hookUrl, campaignId: 'camp-1', triggerName: 'call_started' });

    const list = await h.client.webhooks.listForCampaign('camp-2');

    expect(only(h.received('GET', '/events-gateway/triggers/campaign/camp-2')).headers['api-key']).toBe(
      h.platform.apiKey,
    );
    expect(list).toEqual([
      expect.objectContaining({ id: hookUrl, campaignId: 'camp-2', triggerName: 'call_started' }),
      expect.objectContaining({ id: hookUrl, campaignId: 'camp-2', triggerName: 'call_completed' }),
    ]);
  });

  it('sample GETs perform/{triggerName}?campaignId= and returns the payload', async () => {
    const sample = await h.client.webhooks.sample('call_completed', 'camp-1');

    const req = only(h.received('GET', '/events-gateway/trigger/perform/call_completed'));
    expect(req.query).toEqual({ campaignId: 'camp-1' });
    expect(req.headers['api-key']).toBe(h.platform.apiKey);
    expect(sample).toEqual([
      expect.objectContaining({
        campaignId: 'camp-1',
        campaignName: 'Spring Recall Reminders',
        callId: expect.any(String),
        callTranscript: expect.any(String),
        durationMs: expect.any(Number),
        endedReason: expect.any(String),
      }),
    ]);
  });

  it('sample of message_received carries receivedAt and the message', async () => {
    const sample = await h.client.webhooks.sample('message_received', 'camp-3');
    expect(sample).toEqual([
      expect.objectContaining({
        campaignId: 'camp-3',
        messageContent: expect.any(String),
        receivedAt: expect.any(String),
      }),
    ]);
  });

  it('unsubscribe sends DELETE with a JSON body (provider "custom") and resolves void', async () => {
    await h.client.webhooks.subscribe({ hookUrl, campaignId: 'camp-1', triggerName: 'message_sent' });

    const result = await h.client.webhooks.unsubscribe({ hookUrl, campaignId: 'camp-1', triggerName: 'message_sent' });

    expect(result).toBeUndefined();
    const req = only(h.received('DELETE', '/events-gateway/trigger/unsubscribe'));
    expect(req.headers['api-key']).toBe(h.platform.apiKey);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.body).toEqual({ hookUrl, campaignId: 'camp-1', triggerName: 'message_sent', provider: 'custom' });
    expect(h.platform.state.subscriptions).toEqual([]);
  });
});
