/**
 * GovSlack: with SLACK_DOMAIN=slack-gov.com (and no SLACK_API_URL) every Slack host the bot uses derives from it
 * — the install sends the browser to slack-gov.com's authorize page, oauth.v2.access and every Web API call go to
 * https://slack-gov.com/api/, and files are downloaded (bot token and all) from files.slack-gov.com. The test answers for slack-gov.com with the stand-in: a dispatcher of the test's
 * own sends whatever is addressed to https://slack-gov.com or https://files.slack-gov.com to the stand-in's port,
 * and the stand-in names its files on files.slack-gov.com; nothing else changes.
 */
import { Agent, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { startEventsHarness } from '../events/support.js';
import { openConversation, reactions, sends } from '../handoff/support.js';
import { ADMIN_ID, MEMBER_ID, type Harness } from '../support/harness.js';

const GOV = 'https://slack-gov.com';
const GOV_FILES = 'https://files.slack-gov.com';
let h: Harness;
let standIn = '';
/** Origins the bot asked for, in order (slack-gov.com's, before they reach the stand-in). */
const asked: string[] = [];
const original: Dispatcher = getGlobalDispatcher();

beforeAll(async () => {
  setGlobalDispatcher(
    new Agent().compose((dispatch) => (opts, handler) => {
      const origin = String(opts.origin);
      if (origin !== GOV && origin !== GOV_FILES) return dispatch(opts, handler);
      asked.push(`${origin}${opts.path.split('?')[0]}`);
      return dispatch({ ...opts, origin: standIn }, handler);
    }),
  );
  h = await startEventsHarness({
    oauth: true,
    env: { SLACK_DOMAIN: 'slack-gov.com', SLACK_API_URL: '' },
    // GovSlack's file host names the files; the dispatcher answers for it with the stand-in.
    slack: { fileOrigin: GOV_FILES },
    unlimitedSlackBecause: 'hosts, not pace: a card, its thread and a reply with a file in one channel',
  });
  standIn = h.slack.baseUrl;
});
afterAll(async () => {
  await h.close();
  setGlobalDispatcher(original);
});

describe('GovSlack (SLACK_DOMAIN=slack-gov.com)', () => {
  it('installs through slack-gov.com: its authorize page, then oauth.v2.access on its Web API', async () => {
    expect(h.config.slack.apiUrl).toBe(`${GOV}/api/`);
    const start = await fetch(`${h.url}/slack/install`, { redirect: 'manual' });
    const authorize = new URL(start.headers.get('location') ?? '');
    expect(authorize.origin + authorize.pathname).toBe(`${GOV}/oauth/v2/authorize`);
    const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    authorize.searchParams.set('team', h.slack.teamId);
    // With PUBLIC_URL the bot names its public redirect URL itself.
    if (!authorize.searchParams.has('redirect_uri'))
      authorize.searchParams.set('redirect_uri', `${h.url}/slack/oauth_redirect`);
    const granted = await fetch(authorize, { redirect: 'manual' }); // the browser at slack-gov.com
    const back = new URL(granted.headers.get('location') ?? '');
    const callback = await fetch(`${h.url}${back.pathname}${back.search}`, { headers: { cookie }, redirect: 'manual' });
    expect(callback.status).toBe(200);
    expect(asked).toContain(`${GOV}/api/oauth.v2.access`);
    expect(h.slack.callsTo('oauth.v2.access').at(-1)?.response.ok).toBe(true);
  });

  it('talks to Slack’s Web API on slack-gov.com only', async () => {
    const grant = h.slack.callsTo('oauth.v2.access').at(-1)!.response as { access_token: string };
    await h.signer.command({ text: 'connect', userId: ADMIN_ID, responseUrlId: 'gov-connect' });
    const opened = await h.slack.waitFor(() => h.slack.callsTo('views.open')[0]);
    expect(opened.token).toBe(grant.access_token);
    expect(asked).toContain(`${GOV}/api/views.open`);
    await h.signer.command({ text: 'help', userId: MEMBER_ID, responseUrlId: 'gov-help' });
    await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === 'gov-help'));
    // Every Web API call the stand-in saw came through slack-gov.com.
    const methods = h.slack.calls.map((c) => `${GOV}/api/${c.method}`);
    expect(methods.every((m) => asked.includes(m))).toBe(true);
  });

  it('downloads a file an agent sends a customer from files.slack-gov.com, with the bot token', async () => {
    const conv = await openConversation(h);
    await conv.customer('Can you send me the form?');
    const sessionId = conv.session();
    await conv.linkSession(sessionId);
    const channel = conv.channels[0]!;
    const data = randomBytes(64 * 1024);
    const file = h.slack.addFile({ name: 'form.pdf', mimetype: 'application/pdf', data });
    expect(file.url_private_download?.startsWith(`${GOV_FILES}/`)).toBe(true);
    const ts = await conv.reply('Here is the form', { extra: { subtype: 'file_share', files: [file] } });
    await h.slack.waitFor(() => reactions(h, channel, ts).includes('white_check_mark'));
    const [sent] = sends(h, conv.campaignId);
    const link = (sent!.body as { attachments: string[] }).attachments[0]!;
    const opened = await fetch(`${h.url}${new URL(link).pathname}`);
    expect(opened.status).toBe(200);
    expect(Buffer.from(await opened.arrayBuffer()).equals(data)).toBe(true);
    expect(asked).toContain(`${GOV_FILES}${new URL(file.url_private_download).pathname}`);
  });
});
