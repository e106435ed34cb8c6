/**
 * The stand-in's expiring tokens and org-wide installs, as Slack answers them
 * (https://docs.slack.dev/authentication/using-token-rotation): oauth.v2.access grants an `xoxe.xoxb-` token,
 * a refresh token and `expires_in`; a token past its life is refused with `token_expired`; `grant_type=refresh_token`
 * grants a new one, and an unknown refresh token is refused. An org admin's grant names no team.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebClient } from '@slack/web-api';
import { startFakeSlack, type FakeSlack } from '../fakes/slack.js';

const client = { clientId: '1234567890.0987654321', clientSecret: 'fake-client-secret' };
let now = Date.UTC(2026, 0, 5, 9);
let fake: FakeSlack;

beforeAll(async () => {
  fake = await startFakeSlack({ oauthClient: client, tokenRotation: { lifeS: 43_200 }, expiryClock: () => now });
});
afterAll(async () => {
  await fake.close();
});

function web(token?: string): WebClient {
  return new WebClient(token, { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
}

async function exchange(args: Record<string, string>): Promise<Record<string, unknown>> {
  const res = await fetch(`${fake.apiUrl}oauth.v2.access`, {
    method: 'POST',
    body: new URLSearchParams({ client_id: client.clientId, client_secret: client.clientSecret, ...args }),
  });
  return (await res.json()) as Record<string, unknown>;
}

describe('the stand-in with token rotation', () => {
  it('grants an expiring token, refuses it once expired, and refreshes it', async () => {
    const granted = await exchange({ code: fake.oauthCode({ teamId: 'T0ROTATE01' }).code });
    expect(granted).toMatchObject({ ok: true, expires_in: 43_200, team: { id: 'T0ROTATE01' } });
    const token = String(granted.access_token);
    expect(token).toMatch(/^xoxe\.xoxb-/);
    expect(String(granted.refresh_token)).toMatch(/^xoxe-1-/);
    expect((await web(token).auth.test()).ok).toBe(true);

    now += 43_200_000;
    fake.expectRefusal('auth.test', 'token_expired');
    await expect(web(token).auth.test()).rejects.toMatchObject({ data: { error: 'token_expired' } });

    const refreshed = await exchange({ grant_type: 'refresh_token', refresh_token: String(granted.refresh_token) });
    expect(refreshed).toMatchObject({ ok: true, token_type: 'bot', expires_in: 43_200 });
    expect(refreshed.access_token).not.toBe(token);
    expect((await web(String(refreshed.access_token)).auth.test()).ok).toBe(true);

    fake.expectRefusal('oauth.v2.access', 'invalid_refresh_token');
    expect(await exchange({ grant_type: 'refresh_token', refresh_token: 'xoxe-1-unknown' })).toMatchObject({
      ok: false,
      error: 'invalid_refresh_token',
    });
  });

  it('grants an org-wide install: no team, the org named, one token for the org', async () => {
    const grant = fake.oauthCode({ teamId: 'E0ROTATEORG', enterpriseId: 'E0ROTATEORG', orgWide: true });
    const granted = await exchange({ code: grant.code });
    expect(granted).toMatchObject({
      ok: true,
      is_enterprise_install: true,
      team: null,
      enterprise: { id: 'E0ROTATEORG' },
    });
    const auth = await web(String(granted.access_token)).auth.test();
    expect(auth).toMatchObject({ ok: true, is_enterprise_install: true, enterprise_id: 'E0ROTATEORG' });
  });
});
