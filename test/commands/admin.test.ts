/**
 * Admin subcommands: the gate, keys (never whole), profile and link-number modals, the delete-agent
 * confirmation, and verify's statuses — over HTTP against the fakes.
 */
import { describe, expect, it } from 'vitest';
import { findAction } from '../support/blocks.js';
import { submitSlowForm } from '../support/forms.js';
import { ADMIN_ID, MEMBER_ID, TEAM_ID, startHarness, useHarness } from '../support/harness.js';

const ALLOWED_ID = 'U0ALLOWED1';
const CANARY_KEY = 'ck_live_CANARY_7d1e5b2a90c4f3e8a6b1d0c9';

const h = useHarness(async () => {
  const started = await startHarness({ env: { ADMIN_USER_IDS: ALLOWED_ID } });
  started.slack.addUser({ id: ALLOWED_ID, name: 'al', real_name: 'Al Lowed' });
  return started;
}, ['platform']);

let seq = 0;
async function run(text: string, userId = ADMIN_ID) {
  const id = `a${++seq}`;
  const ack = await h.signer.command({ text, userId, responseUrlId: id });
  expect(ack.status).toBe(200);
  const answer = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === id));
  return { id, body: answer.body, text: JSON.stringify(answer.body) };
}

async function openModal(text: string, callbackId: string, userId = ADMIN_ID) {
  const before = h.slack.views(callbackId).length;
  const id = `m${++seq}`;
  await h.signer.command({ text, userId, responseUrlId: id });
  await h.slack.waitFor(() => h.slack.views(callbackId).length > before);
  return id;
}

const text = (value: string) => ({ value: { type: 'plain_text_input', value } });

/**
 * What the link-number menus hold once the admin typed `typed` and chose the option with `value` (default: the
 * typed text, "as typed"): the options come from the bot's real answer to Slack's options request.
 */
async function chosen(blockId: string, typed: string, value = typed) {
  const answer = await h.signer.blockSuggestion({
    callbackId: 'link_number_modal',
    blockId,
    value: typed,
    userId: ADMIN_ID,
  });
  expect(answer.errors).toEqual([]);
  const option = answer.options?.find((o) => (o as { value?: string }).value === value);
  expect(option, `an option with value ${value} among ${JSON.stringify(answer.options)}`).toBeDefined();
  return { value: { type: 'external_select', selected_option: option } };
}

describe('admin gate', () => {
  it('refuses members, naming who may run it, and calls nothing', async () => {
    const { text: out } = await run('keys', MEMBER_ID);
    expect(out).toContain('Only Slack workspace admins and owners (or users listed in the app');
    expect(h.platform.requests).toHaveLength(0);
  });

  it('lets users from ADMIN_USER_IDS in without being workspace admins', async () => {
    const { text: out } = await run('keys', ALLOWED_ID);
    expect(out).toContain('API keys');
  });
});

describe('/campaign keys', () => {
  it('shows each key as its last 4 characters only — never whole, in Slack or in logs', async () => {
    h.platform.addApiKey(CANARY_KEY, { CompanyName: 'Canary Inc', Active: false });
    const { text: out } = await run('keys');
    expect(out).toContain('••••d0c9');
    expect(out).toContain('Canary Inc');
    expect(out).toContain('inactive');
    const everythingSlackSaw = JSON.stringify([h.slack.calls, h.slack.responses]);
    expect(everythingSlackSaw).not.toContain(CANARY_KEY);
    expect(everythingSlackSaw).not.toContain(h.platform.apiKey);
    expect(h.logs()).not.toContain(CANARY_KEY);
  });
});

describe('/campaign profile', () => {
  it('sends only the filled fields and shows what the platform saved', async () => {
    const id = await openModal('profile', 'profile_modal');
    const res = await h.signer.viewSubmission({
      callbackId: 'profile_modal',
      userId: ADMIN_ID,
      values: {
        company: text('Globex'),
        full_name: { value: { type: 'plain_text_input', value: null } },
        picture: text('https://img.example/p.png'),
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toBe('');
    const req = h.platform.requests.find((r) => r.path === '/account/profile');
    expect(req?.body).toEqual({ company: 'Globex', picture: 'https://img.example/p.png' });
    const done = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === id));
    const out = JSON.stringify(done.body);
    expect(out).toContain('Globex');
    expect(out).toContain('Dana Whitfield'); // unchanged full name, as returned
  });

  it('shows the saved picture as a link, not as an image Slack would have to download', async () => {
    // Slack fetches every image_url itself and refuses the whole message when it can't ("downloading
    // image failed"): https://api.slack.com/reference/block-kit/blocks#image
    const picture = 'https://img.example/p.png?size=200&v=<2>';
    const id = await openModal('profile', 'profile_modal');
    await h.signer.viewSubmission({
      callbackId: 'profile_modal',
      userId: ADMIN_ID,
      values: { picture: text(picture) },
    });
    const done = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === id));
    expect(done.status).toBe(200);
    const out = JSON.stringify(done.body);
    expect(out).not.toContain('image_url');
    expect(out).not.toContain('"type":"image"');
    const fields = (done.body.blocks as Array<{ fields?: Array<{ text: string }> }>).flatMap((b) => b.fields ?? []);
    const shown = fields.find((f) => f.text.startsWith('*Picture*'))?.text;
    expect(shown).toBe(
      '*Picture*\n<https://img.example/p.png?size=200&amp;v=%3C2%3E|img.example/p.png?size=200&amp;v=%3C2%3E>',
    );
  });

  it('refuses a picture that is not an https URL on its field', async () => {
    await openModal('profile', 'profile_modal');
    const res = await h.signer.viewSubmission({
      callbackId: 'profile_modal',
      userId: ADMIN_ID,
      values: { picture: text('http://insecure/p.png') },
    });
    expect(res.json).toEqual({ response_action: 'errors', errors: { picture: expect.stringContaining('https://') } });
    expect(h.platform.requests).toHaveLength(0);
  });

  it('asks for at least one field', async () => {
    await openModal('profile', 'profile_modal');
    const res = await h.signer.viewSubmission({ callbackId: 'profile_modal', userId: ADMIN_ID, values: {} });
    expect(res.json).toMatchObject({ response_action: 'errors' });
  });
});

describe('/campaign link-number', () => {
  it('links and confirms', async () => {
    const id = await openModal('link-number', 'link_number_modal');
    const res = await h.signer.viewSubmission({
      callbackId: 'link_number_modal',
      userId: ADMIN_ID,
      values: {
        catalog_number: await chosen('catalog_number', 'pn-1'),
        catalog_campaign: await chosen('catalog_campaign', 'camp-1'),
      },
    });
    expect(res.body).toBe('');
    expect(h.platform.requests.find((r) => r.path === '/phone-number/link')?.body).toEqual({
      phoneNumberId: 'pn-1',
      campaignId: 'camp-1',
    });
    const done = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === id));
    expect(JSON.stringify(done.body)).toContain('is now linked to campaign `camp-1`');
  });

  /** Opens link-number and submits `number` and `campaign` as chosen (or typed) in its menus. */
  async function submitLink(number: string, campaign: string) {
    await openModal('link-number', 'link_number_modal');
    return h.signer.viewSubmission({
      callbackId: 'link_number_modal',
      userId: ADMIN_ID,
      values: {
        catalog_number: await chosen('catalog_number', number),
        catalog_campaign: await chosen('catalog_campaign', campaign),
      },
    });
  }

  it('puts a 400 on the field it concerns, in words, the request id on a line below', async () => {
    const unknownCampaign = await submitLink('pn-1', 'camp-missing');
    expect(unknownCampaign.json).toEqual({
      response_action: 'errors',
      errors: {
        catalog_campaign: expect.stringMatching(
          /^The platform doesn’t know campaign “camp-missing” — choose one from the list, or check the id on the platform\.\nHTTP 400 · code BAD_REQUEST · request id req_\d+$/,
        ),
      },
    });
    const unknownNumber = await submitLink('pn-999', 'camp-1');
    expect(unknownNumber.json).toEqual({
      response_action: 'errors',
      errors: {
        catalog_number: expect.stringMatching(
          /^The platform doesn’t know phone number “pn-999” — choose one from the list, or check the id on the platform\.\nHTTP 400 · code BAD_REQUEST · request id req_\d+$/,
        ),
      },
    });
  });
});

describe('a form submission while users.info is rate limited', () => {
  it('is answered within Slack’s 3 s with the working view, then updated with the outcome', async () => {
    const id = await openModal('link-number', 'link_number_modal');
    const viewId = h.slack.views('link_number_modal').at(-1)!.view.id;
    // The admin verdict cached when the modal opened has expired by the time the form is sent.
    await h.bot.deps.store.cache.forget(TEAM_ID, `admin:${ADMIN_ID}`);
    // Slack answers 429 + Retry-After and the Web API client waits it out before asking again
    // (https://api.slack.com/apis/rate-limits).
    h.slack.rateLimit({ method: 'users.info', retryAfterSec: 3 });
    await submitSlowForm(h, viewId, {
      callbackId: 'link_number_modal',
      userId: ADMIN_ID,
      values: {
        catalog_number: await chosen('catalog_number', 'pn-1'),
        catalog_campaign: await chosen('catalog_campaign', 'camp-1'),
      },
    });
    expect(JSON.stringify(h.slack.view(viewId)?.view.blocks)).toContain('Done');
    expect(h.platform.requests.find((r) => r.path === '/phone-number/link')?.body).toEqual({
      phoneNumberId: 'pn-1',
      campaignId: 'camp-1',
    });
    const done = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === id));
    expect(done.status).toBe(200);
    expect(JSON.stringify(done.body)).toContain('is now linked to campaign `camp-1`');
  }, 15_000);
});

describe('/campaign delete-agent', () => {
  it('asks to confirm naming both ids, then deletes', async () => {
    const { body } = await run('delete-agent camp-2 agent-21');
    const out = JSON.stringify(body);
    expect(out).toContain('agent `agent-21` from campaign `camp-2`');
    // A campaign the bot has not seen is looked up first (a typo is told before any confirmation); nothing deleted.
    expect(h.platform.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /call/scheduled/camp-2']);
    const confirm = findAction(body.blocks, 'delete_agent_confirm')!;
    expect(confirm.confirm).toBeDefined();
    await h.signer.blockAction({
      actionId: 'delete_agent_confirm',
      value: confirm.value!,
      userId: ADMIN_ID,
      responseUrlId: 'del-1',
    });
    const done = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === 'del-1'));
    expect(done.body.text).toContain('Deleted agent `agent-21`');
    const req = h.platform.requests.find((r) => r.method === 'DELETE');
    expect(req?.path).toBe('/agent/camp-2/agent-21');
    expect(h.platform.state.agents['camp-2']).toEqual([]);
  });

  it('says there is no such agent on 404', async () => {
    await h.signer.blockAction({
      actionId: 'delete_agent_confirm',
      value: JSON.stringify({ campaignId: 'camp-2', agentId: 'ghost' }),
      userId: ADMIN_ID,
      responseUrlId: 'del-2',
    });
    const done = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === 'del-2'));
    expect(done.body.text).toContain('There is no agent `ghost` from campaign `camp-2`');
  });

  it('does nothing when a non-admin presses the button', async () => {
    await h.signer.blockAction({
      actionId: 'delete_agent_confirm',
      value: JSON.stringify({ campaignId: 'camp-2', agentId: 'agent-21' }),
      userId: MEMBER_ID,
      responseUrlId: 'del-3',
    });
    const done = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === 'del-3'));
    expect(done.body.text).toContain('Only Slack workspace admins');
    expect(h.platform.requests.filter((r) => r.method === 'DELETE')).toHaveLength(0);
  });
});

describe('/campaign verify', () => {
  const submits = () => h.platform.requests.filter((r) => r.path === '/business-verification/submit');
  let clicks = 0;
  /** Presses the answer's Submit for review button (behind its confirm dialog); returns what the user saw. */
  async function submit(answer: { blocks?: unknown }, userId = ADMIN_ID) {
    const pressed = findAction(answer.blocks, 'verification_submit')!;
    expect(pressed.confirm).toBeDefined();
    const id = `verify-${++clicks}`;
    await h.signer.blockAction({ actionId: 'verification_submit', userId, responseUrlId: id, ephemeral: true });
    const told = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === id));
    return { body: told.body, text: JSON.stringify(told.body) };
  }

  it('looks before it submits: with no submission on record it says so and offers Submit for review', async () => {
    const store = h.bot.deps.store;
    await store.kv.del(store.keys.verification(TEAM_ID));
    const { body, text: out } = await run('verify');
    expect(out).toContain('No submission is on record here yet');
    expect(findAction(body.blocks, 'verification_submit')).toBeDefined();
    expect(submits()).toHaveLength(0);
  });

  it('202: submits once on the button, shows the four statuses, failures and CNAM numbers, and shows them again without submitting', async () => {
    const { body } = await run('verify');
    const { text: out } = await submit(body);
    expect(submits()).toHaveLength(1);
    expect(submits()[0]?.method).toBe('POST');
    expect(submits()[0]?.raw.length).toBe(0);
    for (const label of [
      'Business verification submitted',
      'Secondary profile',
      'Trust product',
      'Voice integrity',
      'CNAM (caller ID name)',
    ])
      expect(out).toContain(label);
    expect(out).toContain('+14155550100'); // the seed's CNAM number

    // Looking again reads what was recorded: no second review is queued.
    const again = await run('verify');
    expect(again.text).toContain(`Submitted by <@${ADMIN_ID}>`);
    expect(again.text).toContain('+14155550100');
    expect(findAction(again.body.blocks, 'verification_submit')?.text?.text).toBe('Submit again for review');
    expect(submits()).toHaveLength(1);
  });

  it('renders null lists and null objects as none', async () => {
    Object.assign(h.platform.state.verification.profile, {
      providerFailures: null,
      voiceIntegrityFailures: null,
      cnamFailures: null,
      cnamData: null,
      cnamPhoneNumbers: [],
    });
    const { text: out } = await submit((await run('verify')).body);
    expect(out).toContain('*Business profile failures*\\nnone');
    expect(out).toContain('*CNAM numbers*\\nnone');
  });

  it('409 and 422 and 500 each get a sentence a user can act on', async () => {
    const { body } = await run('verify');
    h.platform.state.verification.status = 'processing';
    expect((await submit(body)).text).toContain('being processed — submit again when it settles');
    h.platform.state.verification.status = 'not-configured';
    expect((await submit(body)).text).toContain('not configured on the platform');
    h.platform.state.verification.status = 'ready';
    h.platform.inject({ path: '/business-verification/submit', status: 500, times: 1 });
    expect((await submit(body)).text).toMatch(/internal error .*request id/);
  });

  it('submits nothing when a member presses the button', async () => {
    const { body } = await run('verify');
    const { text: out } = await submit(body, MEMBER_ID);
    expect(out).toContain(
      'Only Slack workspace admins and owners (or users listed in the app’s ADMIN_USER_IDS) can submit business verification.',
    );
    expect(submits()).toHaveLength(0);
  });
});

describe('/campaign agent-link', () => {
  it('maps a mentioned user to a platform agent, shows it, and removes it', async () => {
    expect((await run(`agent-link <@${MEMBER_ID}|max> agent-31`)).text).toContain(
      `Replies from <@${MEMBER_ID}> in handoff threads are now sent as agent \`agent-31\``,
    );
    expect(await h.bot.deps.store.agentLinks.get(h.signer.teamId, MEMBER_ID)).toBe('agent-31');
    expect((await run(`agent-link <@${MEMBER_ID}>`)).text).toContain('answers handoff threads as agent `agent-31`');
    expect((await run(`agent-link <@${MEMBER_ID}> remove`)).text).toContain('no longer linked');
    expect(await h.bot.deps.store.agentLinks.get(h.signer.teamId, MEMBER_ID)).toBeUndefined();
  });

  it('asks for a mention when given a plain name, and is admin-only', async () => {
    expect((await run('agent-link dana agent-31')).text).toContain('Mention the Slack user');
    expect((await run(`agent-link <@${MEMBER_ID}> agent-31`, MEMBER_ID)).text).toContain('Only Slack workspace admins');
  });
});
