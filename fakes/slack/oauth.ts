/** OAuth v2: the authorize redirect, oauth.v2.access (new installations and tokens), apps.uninstall. */
import type { ServerResponse } from 'node:http';
import type { Handler, RefreshGrant, SlackState } from './state.js';
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
    orgWide: grant.orgWide === true && grant.enterpriseId !== undefined,
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
  // An org admin installing for the whole Enterprise Grid org: `enterprise` without `team`.
  const enterpriseId = url.searchParams.get('enterprise') ?? undefined;
  const teamId = url.searchParams.get('team') ?? (enterpriseId ? undefined : s.teamId);
  const grant = oauthCode(s, {
    teamId: teamId ?? enterpriseId,
    ...(enterpriseId ? { enterpriseId, orgWide: teamId === undefined } : {}),
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
  if (str(args, 'grant_type') === 'refresh_token') return refreshGrant(s, str(args, 'refresh_token'));
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
  const orgWide = grant.orgWide === true;
  const rotation = botToken(s, grant.botToken, {
    teamId: grant.teamId,
    ...(grant.enterpriseId ? { enterpriseId: grant.enterpriseId } : {}),
    orgWide,
    botUserId: grant.botUserId,
    botId: grant.botId,
    scopes: [...grant.botScopes],
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
    access_token: rotation.token,
    bot_user_id: grant.botUserId,
    ...rotation.fields,
    team: orgWide ? null : { id: grant.teamId, name: grant.teamName },
    enterprise: grant.enterpriseId ? { id: grant.enterpriseId, name: `Enterprise ${grant.enterpriseId}` } : null,
    is_enterprise_install: orgWide,
  };
}

/**
 * Makes a bot token valid. With token rotation on, an expiring one (`xoxe.` before it) with its refresh token:
 * what oauth.v2.access adds to its answer then (`refresh_token`, `expires_in`).
 */
function botToken(s: SlackState, plain: string, grant: RefreshGrant): { token: string; fields: Json } {
  const rotation = s.opts.tokenRotation;
  const token = rotation ? `xoxe.${plain}` : plain;
  s.tokens.set(token, {
    token,
    kind: 'bot',
    teamId: grant.teamId,
    userId: grant.botUserId,
    botId: grant.botId,
    scopes: [...grant.scopes],
    revoked: false,
    ...(grant.orgWide ? { orgWide: true } : {}),
    ...(rotation ? { expiresAt: s.expiryNow() + rotation.lifeS * 1000 } : {}),
  });
  if (!rotation) return { token, fields: {} };
  const refreshToken = `xoxe-1-${hex(32)}`;
  s.refreshTokens.set(refreshToken, grant);
  return { token, fields: { refresh_token: refreshToken, expires_in: rotation.lifeS } };
}

/** oauth.v2.access with `grant_type=refresh_token`: a new expiring bot token (the one before works until it expires). */
function refreshGrant(s: SlackState, refreshToken: string | undefined): Json {
  const grant = refreshToken ? s.refreshTokens.get(refreshToken) : undefined;
  if (!grant || !s.opts.tokenRotation) return fail('invalid_refresh_token');
  const plain = `xoxb-${Date.now() % 1e11}-${hex(6)}-${hex(12)}`;
  const rotation = botToken(s, plain, grant);
  const team = s.team(grant.teamId);
  return {
    ok: true,
    app_id: s.appId,
    scope: grant.scopes.join(','),
    token_type: 'bot',
    access_token: rotation.token,
    bot_user_id: grant.botUserId,
    ...rotation.fields,
    team: grant.orgWide ? null : { id: team.id, name: team.name },
    enterprise: grant.enterpriseId ? { id: grant.enterpriseId, name: `Enterprise ${grant.enterpriseId}` } : null,
    is_enterprise_install: grant.orgWide,
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
