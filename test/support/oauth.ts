/**
 * Slack's OAuth install flow against the harness (OAuth mode): /slack/install → authorize on the fake
 * Slack → /slack/oauth_redirect with the state cookie, as a browser would follow it.
 */
import { expect } from 'vitest';
import type { Harness } from './harness.js';

/** Installs the app in `teamId`; resolves with the bot token Slack granted it. */
export async function installApp(h: Harness, teamId: string): Promise<string> {
  const start = await fetch(`${h.url}/slack/install`, { redirect: 'manual' });
  expect(start.status).toBe(302);
  const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const authorize = new URL(start.headers.get('location') ?? '');
  authorize.searchParams.set('team', teamId);
  // With PUBLIC_URL the bot names its public redirect URL (and Slack checks it again on oauth.v2.access).
  if (!authorize.searchParams.has('redirect_uri'))
    authorize.searchParams.set('redirect_uri', `${h.url}/slack/oauth_redirect`);
  const granted = await fetch(authorize, { redirect: 'manual' });
  const back = new URL(granted.headers.get('location') ?? '');
  const callback = await fetch(`${h.url}${back.pathname}${back.search}`, { headers: { cookie }, redirect: 'manual' });
  expect(callback.status).toBe(200);
  const grant = h.slack
    .callsTo('oauth.v2.access')
    .map((c) => c.response as { team?: { id: string }; access_token?: string })
    .findLast((g) => g.team?.id === teamId);
  expect(grant?.access_token).toMatch(/^xoxb-/);
  return grant!.access_token!;
}
