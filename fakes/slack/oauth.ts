/** OAuth v2: the authorize redirect, oauth.v2.access (new installations and tokens), apps.uninstall. */
import type { ServerResponse } from 'node:http';
import type { SlackState, Handler } from './state.js';
import type { OAuthGrant, SlackArgs } from './types.js';
import { fail, hex, slackId, str, type Json } from './util.js';

const OAUTH_CODE_TTL_MS = 10 * 60_000;

export function oauthCode(
  s: SlackState,
  grant: Partial<Omit<OAuthGrant, 'code'>> & { code?: string } = {},
): OAuthGrant {
  const teamId = grant.teamId ?? slackId('T');
  const g: OAuthGrant = {
    code: grant.code ?? `${Date.now()}.${hex(20)}`,
    teamId,
    teamName: grant.teamName ?? (teamId === s.teamId ? s.teamName : `Workspace ${teamId}`),
    botToken: grant.botToken ?? `xoxb-${Date.now() % 1e11}-${hex(6)}-${hex(12)}`,
    botUserId: grant.botUserId ?? slackId('U'),
    botId: grant.botId ?? slackId('B'),
    userToken:
      grant.userToken ?? ((grant.userScopes?.length ?? 0) > 0 ? `xoxp-${Date.now() % 1e11}-${hex(12)}` : undefined),
    installerUserId: grant.installerUserId ?? slackId('U'),
    botScopes: grant.botScopes ?? [...s.opts.scopes],
    userScopes: grant.userScopes ?? [],
    redirectUri: grant.redirectUri,
    enterpriseId: grant.enterpriseId,
  };
  s.oauthCodes.set(g.code, { ...g, issuedAt: s.expiryNow(), used: false });
  return { ...g };
}

export function handleAuthorize(s: SlackState, res: ServerResponse, url: URL): void {
  const redirectUri = url.searchParams.get('redirect_uri');
  const clientId = url.searchParams.get('client_id');
  if (!redirectUri || !clientId) {
    res.writeHead(400, { 'content-type': 'text/plain' });
    res.end('missing client_id or redirect_uri');
    return;
  }
  const split = (v: string | null): string[] =>
    v
      ? v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : [];
  const grant = oauthCode(s, {
    teamId: url.searchParams.get('team') ?? s.teamId,
    botScopes: split(url.searchParams.get('scope')),
    userScopes: split(url.searchParams.get('user_scope')),
    redirectUri,
  });
  const target = new URL(redirectUri);
  target.searchParams.set('code', grant.code);
  const state = url.searchParams.get('state');
  if (state !== null) target.searchParams.set('state', state);
  res.writeHead(302, { location: target.toString() });
  res.end();
}

function clientCredentials(args: SlackArgs, authorization: string | undefined): { id?: string; secret?: string } {
  const basic = authorization ? /^Basic\s+(\S+)/i.exec(authorization)?.[1] : undefined;
  if (basic) {
    const [id, secret] = Buffer.from(basic, 'base64').toString('utf8').split(':');
    return { id, secret };
  }
  return { id: str(args, 'client_id'), secret: str(args, 'client_secret') };
}

function clientError(s: SlackState, args: SlackArgs, authorization: string | undefined): Json | undefined {
  const { id, secret } = clientCredentials(args, authorization);
  const expected = s.opts.oauthClient;
  if (!id || (expected && expected.clientId !== id)) return fail('invalid_client_id');
  if (!secret || (expected && expected.clientSecret !== secret)) return fail('bad_client_secret');
  return undefined;
}

export function oauthV2Access(s: SlackState, args: SlackArgs, authorization: string | undefined): Json {
  const clientErr = clientError(s, args, authorization);
  if (clientErr) return clientErr;
  if (str(args, 'grant_type') === 'refresh_token') return fail('invalid_refresh_token');
  const code = str(args, 'code');
  const grant = code ? s.oauthCodes.get(code) : undefined;
  if (!grant || s.expiryNow() - grant.issuedAt > OAUTH_CODE_TTL_MS) return fail('invalid_code');
  if (grant.used) return fail('code_already_used');
  const redirectUri = str(args, 'redirect_uri');
  if (grant.redirectUri && redirectUri !== undefined && redirectUri !== grant.redirectUri)
    return fail('bad_redirect_uri');
  grant.used = true;
  if (!s.teams.has(grant.teamId)) {
    s.teams.set(grant.teamId, {
      id: grant.teamId,
      name: grant.teamName,
      domain: grant.teamName.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
      enterpriseId: grant.enterpriseId,
    });
  }
  s.tokens.set(grant.botToken, {
    token: grant.botToken,
    kind: 'bot',
    teamId: grant.teamId,
    userId: grant.botUserId,
    botId: grant.botId,
    scopes: [...grant.botScopes],
    revoked: false,
  });
  s.users.set(grant.botUserId, {
    id: grant.botUserId,
    name: 'campaign',
    real_name: 'Campaign',
    is_bot: true,
    team_id: grant.teamId,
  });
  if (!s.users.has(grant.installerUserId)) {
    s.users.set(grant.installerUserId, {
      id: grant.installerUserId,
      name: 'installer',
      real_name: 'Installer',
      is_admin: true,
      team_id: grant.teamId,
    });
  }
  const authedUser: Json = { id: grant.installerUserId };
  if (grant.userToken) {
    s.tokens.set(grant.userToken, {
      token: grant.userToken,
      kind: 'user',
      teamId: grant.teamId,
      userId: grant.installerUserId,
      scopes: [...grant.userScopes],
      revoked: false,
    });
    Object.assign(authedUser, { scope: grant.userScopes.join(','), access_token: grant.userToken, token_type: 'user' });
  }
  return {
    ok: true,
    app_id: s.appId,
    authed_user: authedUser,
    scope: grant.botScopes.join(','),
    token_type: 'bot',
    access_token: grant.botToken,
    bot_user_id: grant.botUserId,
    team: { id: grant.teamId, name: grant.teamName },
    enterprise: grant.enterpriseId ? { id: grant.enterpriseId, name: `Enterprise ${grant.enterpriseId}` } : null,
    is_enterprise_install: false,
  };
}

export function oauthHandlers(s: SlackState): Record<string, Handler> {
  return {
    'apps.uninstall': (args, auth) => {
      const clientErr = clientError(s, args, undefined);
      if (clientErr) return clientErr;
      for (const t of s.tokens.values()) if (t.teamId === auth.teamId) t.revoked = true;
      return { ok: true };
    },
  };
}
