/**
 * OAuth v2 install against the fake with Bolt's own InstallProvider (HTTPReceiver install routes):
 * /slack/install → fake authorize → /slack/oauth_redirect → oauth.v2.access + auth.test on the fake.
 * Then the new workspace's token works, and apps.uninstall revokes it.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App, HTTPReceiver, LogLevel, type Installation, type InstallationStore } from '@slack/bolt';
import { LogLevel as WebLogLevel, WebClient } from '@slack/web-api';
import { startFakeSlack, type FakeSlack } from '../fakes/slack.js';

const clientId = '1234567890.0987654321';
const clientSecret = 'fake-client-secret';
let fake: FakeSlack;
let app: App;
let botBase: string;
const installations: Installation[] = [];

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  fake = await startFakeSlack({ oauthClient: { clientId, clientSecret } });
  const port = await freePort();
  botBase = `http://127.0.0.1:${port}`;
  const installationStore: InstallationStore = {
    storeInstallation: (installation) => {
      installations.push(installation);
      return Promise.resolve();
    },
    fetchInstallation: () => Promise.reject(new Error('not needed here')),
  };
  const receiver = new HTTPReceiver({
    signingSecret: 'oauth-selftest-secret',
    clientId,
    clientSecret,
    stateSecret: 'oauth-selftest-state',
    scopes: ['commands', 'chat:write'],
    redirectUri: `${botBase}/slack/oauth_redirect`,
    installationStore,
    logLevel: LogLevel.ERROR,
    installerOptions: {
      directInstall: true,
      redirectUriPath: '/slack/oauth_redirect',
      authorizationUrl: `${fake.baseUrl}/oauth/v2/authorize`,
      clientOptions: { slackApiUrl: fake.apiUrl },
    },
  });
  app = new App({ receiver, logLevel: LogLevel.ERROR });
  await app.start({ port, host: '127.0.0.1' });
});
afterAll(async () => {
  await app.stop();
  await fake.close();
});

describe('fake Slack OAuth', () => {
  it('installs through Bolt’s InstallProvider and the new bot token works', async () => {
    const install = await fetch(`${botBase}/slack/install`, { redirect: 'manual' });
    expect(install.status).toBe(302);
    const cookie = (install.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const authorize = await fetch(install.headers.get('location') ?? '', { redirect: 'manual' });
    expect(authorize.status).toBe(302);
    const callbackUrl = authorize.headers.get('location') ?? '';
    expect(callbackUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/slack\/oauth_redirect\?code=.+&state=.+/);

    const callback = await fetch(callbackUrl, { headers: { cookie }, redirect: 'manual' });
    expect(callback.status).toBe(200);

    const access = fake.callsTo('oauth.v2.access')[0];
    expect(access?.args).toMatchObject({ client_id: clientId, client_secret: clientSecret, code: expect.any(String) });
    expect(access?.response).toMatchObject({
      ok: true,
      token_type: 'bot',
      scope: 'commands,chat:write',
      access_token: expect.stringMatching(/^xoxb-/),
      team: { id: fake.teamId },
    });
    expect(installations).toHaveLength(1);
    const inst = installations[0]!;
    expect(inst.team?.id).toBe(fake.teamId);
    expect(inst.bot?.scopes).toEqual(['commands', 'chat:write']);

    const client = new WebClient(inst.bot?.token, { slackApiUrl: fake.apiUrl, logLevel: WebLogLevel.ERROR });
    expect(await client.auth.test()).toMatchObject({
      ok: true,
      team_id: fake.teamId,
      user_id: inst.bot?.userId,
      bot_id: inst.bot?.id,
    });

    // The same code cannot be exchanged twice.
    const code = new URL(callbackUrl).searchParams.get('code') ?? '';
    const anon = new WebClient(undefined, { slackApiUrl: fake.apiUrl, logLevel: WebLogLevel.ERROR });
    fake.expectRefusal('oauth.v2.access', 'code_already_used');
    await expect(
      anon.oauth.v2.access({ client_id: clientId, client_secret: clientSecret, code }),
    ).rejects.toMatchObject({ data: { error: 'code_already_used' } });
  });

  it('exchanges a configured code, checks client credentials, and apps.uninstall revokes the tokens', async () => {
    const grant = fake.oauthCode({ teamId: 'T0OTHERWS01', teamName: 'Other Workspace', userScopes: ['search:read'] });
    const anon = new WebClient(undefined, { slackApiUrl: fake.apiUrl, logLevel: WebLogLevel.ERROR });
    fake.expectRefusal('oauth.v2.access', 'bad_client_secret');
    await expect(
      anon.oauth.v2.access({ client_id: clientId, client_secret: 'wrong', code: grant.code }),
    ).rejects.toMatchObject({ data: { error: 'bad_client_secret' } });
    fake.expectRefusal('oauth.v2.access', 'invalid_code');
    await expect(
      anon.oauth.v2.access({ client_id: clientId, client_secret: clientSecret, code: 'nope' }),
    ).rejects.toMatchObject({ data: { error: 'invalid_code' } });
    const res = await anon.oauth.v2.access({ client_id: clientId, client_secret: clientSecret, code: grant.code });
    expect(res).toMatchObject({
      ok: true,
      access_token: grant.botToken,
      bot_user_id: grant.botUserId,
      team: { id: 'T0OTHERWS01', name: 'Other Workspace' },
      authed_user: {
        id: grant.installerUserId,
        access_token: grant.userToken,
        scope: 'search:read',
        token_type: 'user',
      },
      enterprise: null,
      is_enterprise_install: false,
    });

    const bot = new WebClient(grant.botToken, { slackApiUrl: fake.apiUrl, logLevel: WebLogLevel.ERROR });
    expect(await bot.auth.test()).toMatchObject({ team_id: 'T0OTHERWS01', team: 'Other Workspace' });
    await bot.apps.uninstall({ client_id: clientId, client_secret: clientSecret });
    fake.expectRefusal('auth.test', 'token_revoked');
    await expect(bot.auth.test()).rejects.toMatchObject({ data: { error: 'token_revoked' } });
    // the default workspace is untouched
    const main = new WebClient(fake.botToken, { slackApiUrl: fake.apiUrl, logLevel: WebLogLevel.ERROR });
    expect((await main.auth.test()).ok).toBe(true);
  });
});
