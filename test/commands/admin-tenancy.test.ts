/**
 * The admin gate and the values admin forms carry: an admin of another organisation is not ours; rights are
 * asked afresh before anything is deleted or replaced; a form's private_metadata and response_url can only
 * send the outcome back to Slack. Over HTTP against the stand-ins.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_ID, TEAM_ID, type Harness } from '../support/harness.js';
import { run, startEventsHarness } from '../events/support.js';

const PARTNER_ADMIN = 'U0PARTADM1';
const ENTERPRISE = 'E0GRID0001';
const SIBLING_ADMIN = 'U0SIBADM01';
const NEW_KEY = 'ck_live_tenancy_key_5e4d3c2b1a09f8e7';

let h: Harness;
/** A server that is not Slack: any request reaching it is a leak. */
let trap: Server;
let trapHits: string[] = [];
let trapUrl = '';
beforeAll(async () => {
  h = await startEventsHarness();
  h.platform.addApiKey(NEW_KEY, { CompanyName: 'Tenancy Co' });
  // Admin in their own organisation, present in ours through a Slack Connect channel.
  h.slack.addUser({ id: PARTNER_ADMIN, name: 'pam', team_id: 'T0PARTNER1', is_admin: true });
  // Admin of another workspace of the same Enterprise Grid org.
  h.slack.addUser({ id: SIBLING_ADMIN, name: 'sib', team_id: 'T0SIBLING1', enterprise_id: ENTERPRISE, is_admin: true });
  trap = createServer((req, res) => {
    trapHits.push(`${req.method} ${req.url}`);
    res.end('ok');
  });
  await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
  trapUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}/commands/${TEAM_ID}/1/leak`;
});
afterAll(async () => {
  await h.close();
  await new Promise((resolve) => trap.close(resolve));
});
beforeEach(() => {
  trapHits = [];
  h.platform.reset();
});

let seq = 0;
/** A fresh workspace admin (so one test's demotion can't leak into another's cache). */
function newAdmin(): string {
  const id = `U0ADM${String(++seq).padStart(5, '0')}`;
  h.slack.addUser({ id, name: `adm${seq}`, is_admin: true });
  return id;
}
function demote(id: string): void {
  h.slack.addUser({ ...h.slack.user(id)!, is_admin: false });
}

/** `/campaign <text>` signed as Slack would send it, with the given fields changed (e.g. a response_url). */
function rawCommand(text: string, userId: string, fields: Record<string, string> = {}) {
  const form = new URLSearchParams({
    token: h.signer.verificationToken,
    team_id: TEAM_ID,
    team_domain: h.signer.teamDomain,
    channel_id: 'C0GENERAL01',
    channel_name: 'general',
    user_id: userId,
    user_name: userId.toLowerCase(),
    command: '/campaign',
    text,
    api_app_id: h.signer.apiAppId,
    is_enterprise_install: 'false',
    response_url: h.slack.responseUrl(`raw-${++seq}`, { channelId: 'C0GENERAL01', userId }),
    trigger_id: h.slack.issueTrigger({ userId }),
    ...fields,
  });
  return h.signer.raw(form.toString());
}

const keyValues = { api_key: { value: { type: 'plain_text_input', value: NEW_KEY } } };

describe('admin gate: members of the workspace only', () => {
  it('refuses an admin of another organisation in a shared channel', async () => {
    const { text } = await run(h, 'keys', { userId: PARTNER_ADMIN });
    expect(text).toContain('Only Slack workspace admins and owners');
    expect(h.platform.requests).toHaveLength(0);
  });

  it('counts an admin of the same Enterprise Grid org as ours', async () => {
    const id = `raw-${seq + 1}`;
    const res = await rawCommand('keys', SIBLING_ADMIN, { enterprise_id: ENTERPRISE });
    expect(res.status).toBe(200);
    const answer = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === id));
    expect(answer.status).toBe(200);
    expect(JSON.stringify(answer.body)).toContain('API keys');
  });
});

describe('admin gate: asked afresh before anything is deleted or replaced', () => {
  it('refuses the delete-agent confirmation of an admin demoted since the cached check', async () => {
    const admin = newAdmin();
    expect((await run(h, 'keys', { userId: admin })).text).toContain('API keys'); // cached as admin
    demote(admin);
    await h.signer.blockAction({
      actionId: 'delete_agent_confirm',
      value: JSON.stringify({ campaignId: 'camp-2', agentId: 'agent-21' }),
      userId: admin,
      responseUrlId: 'del-demoted',
    });
    const done = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === 'del-demoted'));
    expect(done.status).toBe(200);
    expect(done.body.text).toContain('Only Slack workspace admins');
    expect(h.platform.requests.filter((r) => r.method === 'DELETE')).toHaveLength(0);
  });

  it.each(['rotate-hook', 'unsubscribe * call_started'])(
    'refuses `%s` from an admin demoted since the cached check',
    async (command) => {
      const admin = newAdmin();
      expect((await run(h, 'keys', { userId: admin })).text).toContain('API keys');
      demote(admin);
      h.platform.reset();
      const token = await h.bot.deps.store.workspaces.getHookToken(TEAM_ID);
      const { text } = await run(h, command, { userId: admin });
      expect(text).toContain('Only Slack workspace admins and owners');
      expect(h.platform.requests).toHaveLength(0);
      expect(await h.bot.deps.store.workspaces.getHookToken(TEAM_ID)).toBe(token);
    },
  );

  it('refuses a connect submission from an admin demoted while the form was open', async () => {
    const admin = newAdmin();
    const before = await h.bot.deps.store.workspaces.getConnection(TEAM_ID);
    const opened = h.slack.views('connect_modal').length;
    await h.signer.command({ text: 'connect', userId: admin, responseUrlId: `connect-${seq}` });
    await h.slack.waitFor(() => h.slack.views('connect_modal').length > opened);
    demote(admin);
    const res = await h.signer.viewSubmission({ callbackId: 'connect_modal', userId: admin, values: keyValues });
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.json)).toContain('Only Slack workspace admins');
    expect(h.platform.requests).toHaveLength(0);
    expect(await h.bot.deps.store.workspaces.getConnection(TEAM_ID)).toEqual(before);
  });
});

describe('form metadata and response_urls', () => {
  it('refuses a form whose private_metadata was not sealed by the bot: nothing saved, nothing announced', async () => {
    const opened = h.slack.views('connect_modal').length;
    await h.signer.command({ text: 'connect', userId: ADMIN_ID, responseUrlId: 'forged-meta' });
    await h.slack.waitFor(() => h.slack.views('connect_modal').length > opened);
    const before = await h.bot.deps.store.workspaces.getConnection(TEAM_ID);
    const res = await h.signer.viewSubmission({
      callbackId: 'connect_modal',
      userId: ADMIN_ID,
      values: keyValues,
      privateMetadata: JSON.stringify({ responseUrl: trapUrl }),
    });
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.json)).toContain('This form could not be verified, so nothing was changed');
    expect(h.platform.requests).toHaveLength(0);
    expect(await h.bot.deps.store.workspaces.getConnection(TEAM_ID)).toEqual(before);
    expect(trapHits).toEqual([]);
  });

  it('never POSTs to a response_url outside Slack’s hooks host, and logs the refusal', async () => {
    const opened = h.slack.views('connect_modal').length;
    const res = await rawCommand('connect', ADMIN_ID, { response_url: trapUrl });
    expect(res.status).toBe(200);
    await h.slack.waitFor(() => h.slack.views('connect_modal').length > opened);
    const submitted = await h.signer.viewSubmission({
      callbackId: 'connect_modal',
      userId: ADMIN_ID,
      values: keyValues,
    });
    expect(submitted.status).toBe(200);
    // The key is saved (the modal tells how it went); only the announcement to the foreign URL is dropped.
    await h.slack.waitFor(() => h.logs().includes('refused to post to a response_url that is not Slack’s'));
    expect((await h.bot.deps.store.workspaces.getConnection(TEAM_ID))?.last4).toBe(NEW_KEY.slice(-4));
    expect(trapHits).toEqual([]);
  });
});
