/**
 * Response validation: tolerant (unknown fields pass, documented nulls accepted, void endpoints ignore
 * their body) but strict on documented types — a mismatch is an ApiSchemaError with the zod issue path.
 */
import { describe, expect, it } from 'vitest';
import { ApiSchemaError } from '../../src/api/index.js';
import { rejectionOf, usePlatform } from './support.js';

const h = usePlatform();

function schemaError(err: unknown): ApiSchemaError {
  expect(err).toBeInstanceOf(ApiSchemaError);
  return err as ApiSchemaError;
}

describe('wrong shapes → ApiSchemaError with the path', () => {
  it('a booking Status that is not a string (an unknown status string is accepted)', async () => {
    h.platform.state.bookings['camp-1']![0]!.Status = 'cancelled' as 'fail';
    const rows = await h.client.bookings.list('camp-1');
    expect(rows[0]?.Status).toBe('cancelled');

    h.platform.state.bookings['camp-1']![0]!.Status = 3 as unknown as 'fail';
    const err = schemaError(await rejectionOf(h.client.bookings.list('camp-1')));

    expect(err.paths).toEqual(['value.0.Status']);
    expect(err.endpoint).toBe('GET /campaign/{campaignId}/bookings');
    expect(err.status).toBe(200);
    expect(err.message).toContain('value.0.Status');
  });

  it('a documented field with the wrong type', async () => {
    h.platform.inject({
      path: '/call/scheduled/camp-1',
      body: JSON.stringify({ value: [{ Name: 'ok' }, { Name: 'x', SBSequenceNumber: '12' }] }),
    });
    const err = schemaError(await rejectionOf(h.client.calls.listScheduled('camp-1')));
    expect(err.paths).toEqual(['value.1.SBSequenceNumber']);
  });

  it('a list envelope without value', async () => {
    h.platform.inject({ path: '/customer-quota', body: '{"odata.metadata":"x"}' });
    expect(schemaError(await rejectionOf(h.client.quota.list())).paths).toEqual(['value']);
  });

  it('quota milliseconds sent as a JSON number (precision may be lost) are refused', async () => {
    h.platform.inject({ path: '/customer-quota', body: '{"value":[{"PurchasedMs":9007199254740993}]}' });
    expect(schemaError(await rejectionOf(h.client.quota.list())).paths).toEqual(['value.0.PurchasedMs']);
  });

  it('quota milliseconds that are not integers are refused', async () => {
    h.platform.state.quota[0]!.RolloverMs = '12.5';
    expect(schemaError(await rejectionOf(h.client.quota.list())).paths).toEqual(['value.0.RolloverMs']);
  });

  it('a required field of nested verification data is missing', async () => {
    h.platform.state.verification.profile.voiceIntegrityData = {
      use_case: 'appointments',
      business_employee_count: '10-50',
    };
    const err = schemaError(await rejectionOf(h.client.verification.submit()));
    expect(err.paths).toEqual(['voiceIntegrityData.average_business_day_call_volume']);
  });

  it('a 200 that is not JSON', async () => {
    h.platform.inject({
      path: '/dashboard/dashboard-stats',
      body: '<html>maintenance</html>',
      contentType: 'text/html',
    });
    const err = schemaError(await rejectionOf(h.client.dashboard.getStats()));
    expect(err.paths).toEqual(['']);
    expect(err.message).toMatch(/not JSON/);
  });

  it('an empty 200 on an endpoint that has a schema', async () => {
    h.platform.inject({ path: '/campaign/templates/tpl-web-concierge', body: '' });
    expect(await rejectionOf(h.client.templates.get('tpl-web-concierge'))).toBeInstanceOf(ApiSchemaError);
  });

  it('never carries response values (the key list holds secrets)', async () => {
    const secret = 'ck_live_secret_value_in_a_bad_row_99';
    h.platform.inject({ path: '/open-api', body: JSON.stringify({ value: [{ RowKey: secret, Active: 'yes' }] }) });
    const err = schemaError(await rejectionOf(h.client.keys.list()));
    expect(err.paths).toEqual(['value.0.Active']);
    expect(err.message).not.toContain(secret);
    expect(JSON.stringify(err)).not.toContain(secret);
  });
});

describe('tolerance', () => {
  it('unknown fields pass through, at every level', async () => {
    const row = h.platform.state.bookings['camp-1']![0]! as unknown as Record<string, unknown>;
    row.Channel = 'phone';
    const bookings = await h.client.bookings.list('camp-1');
    expect(bookings[0]!.Channel).toBe('phone');
    expect(bookings[0]!['odata.etag']).toBe(h.platform.state.bookings['camp-1']![0]!['odata.etag']);
  });

  it('missing documented fields are fine', async () => {
    h.platform.inject({ path: '/campaign/camp-1/bookings', body: '{"value":[{"RowKey":"bk-1"}]}' });
    expect(await h.client.bookings.list('camp-1')).toEqual([{ RowKey: 'bk-1' }]);
  });

  it('nullable verification lists and data accept null', async () => {
    Object.assign(h.platform.state.verification.profile, {
      providerFailures: null,
      voiceIntegrityFailures: null,
      cnamFailures: null,
      cnamData: null,
      voiceIntegrityData: null,
      lastEvaluationErrors: { legacy: ['anything'] },
    });
    const profile = await h.client.verification.submit();
    expect(profile).toMatchObject({
      providerFailures: null,
      voiceIntegrityFailures: null,
      cnamFailures: null,
      cnamData: null,
    });
    expect(profile.lastEvaluationErrors).toEqual({ legacy: ['anything'] });
  });

  it.each(['', '{}', '{"ok":true}'])('a "no schema" 200 with body %j resolves void', async (body) => {
    h.platform.inject({ path: '/phone-number/link', body });
    await expect(h.client.phoneNumbers.link({ phoneNumberId: 'pn-2', campaignId: 'camp-1' })).resolves.toBeUndefined();
  });

  it('a "no schema" 200 that is not JSON still resolves void (the body is not parsed)', async () => {
    h.platform.inject({ path: '/events-gateway/trigger/unsubscribe', body: 'OK', contentType: 'text/plain' });
    await expect(
      h.client.webhooks.unsubscribe({
        hookUrl: 'https://h.example.com/x',
        campaignId: 'camp-1',
        triggerName: 'call_started',
      }),
    ).resolves.toBeUndefined();
  });

  it('undocumented bodies (webhook list) come back as parsed JSON of any shape', async () => {
    h.platform.inject({
      path: '/events-gateway/triggers/campaign/camp-1',
      body: '{"hooks":[{"url":"https://x"}],"count":1}',
    });
    expect(await h.client.webhooks.listForCampaign('camp-1')).toEqual({ hooks: [{ url: 'https://x' }], count: 1 });
  });
});
