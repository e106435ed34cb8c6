/**
 * OAuth mode with CAMPAIGN_API_KEY: the operator's platform key serves only the workspace named by
 * CAMPAIGN_API_KEY_TEAM. Any other workspace that installs the app is "not connected" (and costs the
 * operator's account nothing) until one of its admins runs `/campaign connect` with its own key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackSigner } from '../fakes/slack-signer.js';
import { MEMBER_ID, SIGNING_SECRET, TEAM_ID, startHarness, type Harness } from '../support/harness.js';
import { installApp } from '../support/oauth.js';

const STRANGER_TEAM = 'T0STRANGER1';
const STRANGER_ADMIN = 'U0STRADMIN1';
const STRANGER_KEY = 'ck_live_stranger_own_key_0000ssss';
/** Listed in ADMIN_USER_IDS for TEAM_ID only (`TEAMID:USERID`); in Slack an ordinary member everywhere. */
const OPERATOR = 'U0OPERATOR1';

let h: Harness;
let stranger: SlackSigner;
beforeAll(async () => {
  // CAMPAIGN_API_KEY, serving TEAM_ID only; ADMIN_USER_IDS, the same.
  h = await startHarness({ oauth: true, env: { ADMIN_USER_IDS: `${TEAM_ID}:${OPERATOR}` } });
  h.platform.addApiKey(STRANGER_KEY, { CompanyName: 'Stranger Co' });
  h.slack.addUser({ id: STRANGER_ADMIN, name: 'sam', is_admin: true });
  h.slack.addUser({ id: OPERATOR, name: 'ops' });
  await installApp(h, TEAM_ID);
  await installApp(h, STRANGER_TEAM);
  stranger = new SlackSigner({
    signingSecret: SIGNING_SECRET,
    url: `${h.url}/slack/events`,
    teamId: STRANGER_TEAM,
    fake: h.slack,
  });
});
afterAll(async () => {
  await h.close();
});

async function answerTo(id: string): Promise<string> {
  const answer = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === id));
  expect(answer.status).toBe(200);
  return JSON.stringify(answer.body);
}

describe('CAMPAIGN_API_KEY in OAuth mode', () => {
  it('serves the workspace named by CAMPAIGN_API_KEY_TEAM', async () => {
    h.platform.reset();
    await h.signer.command({ text: 'quota', userId: MEMBER_ID, responseUrlId: 'own-quota' });
    expect(await answerTo('own-quota')).not.toContain('not connected');
    expect(h.platform.requests.map((r) => [r.path, r.headers['api-key']])).toEqual([
      ['/customer-quota', h.platform.apiKey],
    ]);
  });

  it('leaves every other workspace not connected: nothing reaches the platform with the operator’s key', async () => {
    h.platform.reset();
    await stranger.command({ text: 'quota', userId: MEMBER_ID, responseUrlId: 'stranger-quota' });
    await stranger.command({ text: 'stats', userId: MEMBER_ID, responseUrlId: 'stranger-stats' });
    expect(await answerTo('stranger-quota')).toContain('This workspace is not connected to the campaign platform yet');
    expect(await answerTo('stranger-stats')).toContain('This workspace is not connected to the campaign platform yet');
    expect(h.platform.requests).toEqual([]);
  });

  it('serves the other workspace with its own key once its admin connects it', async () => {
    await stranger.command({ text: 'connect', userId: STRANGER_ADMIN, responseUrlId: 'stranger-connect' });
    await h.slack.waitFor(() => h.slack.views('connect_modal').length > 0);
    const res = await stranger.viewSubmission({
      callbackId: 'connect_modal',
      userId: STRANGER_ADMIN,
      values: { api_key: { value: { type: 'plain_text_input', value: STRANGER_KEY } } },
    });
    expect(res.status).toBe(200);
    expect(await answerTo('stranger-connect')).toContain('Stranger Co');

    h.platform.reset();
    await stranger.command({ text: 'quota', userId: MEMBER_ID, responseUrlId: 'stranger-quota-2' });
    await h.signer.command({ text: 'quota', userId: MEMBER_ID, responseUrlId: 'own-quota-2' });
    expect(await answerTo('stranger-quota-2')).not.toContain('not connected');
    expect(await answerTo('own-quota-2')).not.toContain('not connected');
    expect(h.platform.requests.map((r) => r.headers['api-key']).sort()).toEqual(
      [h.platform.apiKey, STRANGER_KEY].sort(),
    );
  });
});

describe('ADMIN_USER_IDS in OAuth mode', () => {
  it('makes a TEAMID:USERID pair an admin of that workspace only: another workspace’s key stays out of reach', async () => {
    // Where listed: an admin.
    await h.signer.command({ text: 'keys', userId: OPERATOR, responseUrlId: 'operator-keys' });
    expect(await answerTo('operator-keys')).toContain('API keys');
    // Anywhere else: a member like any other — no connect modal, so no way to replace that workspace's key.
    const opened = h.slack.views('connect_modal').length;
    const before = await h.bot.deps.store.workspaces.getConnection(STRANGER_TEAM);
    await stranger.command({ text: 'connect', userId: OPERATOR, responseUrlId: 'operator-connect' });
    expect(await answerTo('operator-connect')).toContain('Only Slack workspace admins and owners');
    await stranger.command({ text: 'rotate-hook', userId: OPERATOR, responseUrlId: 'operator-rotate' });
    expect(await answerTo('operator-rotate')).toContain('Only Slack workspace admins and owners');
    expect(h.slack.views('connect_modal')).toHaveLength(opened);
    expect(await h.bot.deps.store.workspaces.getConnection(STRANGER_TEAM)).toEqual(before);
  });
});
