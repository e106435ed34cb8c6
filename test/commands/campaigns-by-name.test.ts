/**
 * Campaigns by name, ids discoverable — through the real routes and the stand-ins, with Redis: the catalog
 * learns names from webhook events and ids from stats; commands take a name (a pick list when several
 * campaigns share it), a mistyped id gets "did you mean", an id the bot never saw still reaches the platform,
 * and link-number's menus are served from the catalog through Slack's options requests.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { findAction } from '../support/blocks.js';
import { ADMIN_ID, MEMBER_ID, TEAM_ID, type Harness } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { deliver, queueDrained, run, startEventsHarness } from '../events/support.js';

const redis = await requireRedis();
const CHANNEL = 'C0CALLS001';

let h: Harness;
let hook: string;
beforeAll(async () => {
  h = await startEventsHarness({ redisUrl: redis.url, keyPrefix: `${redis.prefix}bot:` });
  hook = `${h.url}/hooks/${await h.bot.deps.store.workspaces.createHookToken(TEAM_ID)}`;
});
afterAll(async () => {
  await h.close();
});
beforeEach(async () => {
  h.platform.reset();
  h.platform.resetState();
  h.slack.reset();
  await h.bot.deps.store.catalog.clear(TEAM_ID);
  for (const r of await h.bot.deps.store.routes.listForTeam(TEAM_ID)) await h.bot.deps.store.routes.remove(r);
});

let calls = 0;
/** A call starting on the platform, as its webhook delivers it (no channel routes it: only the catalog learns). */
async function callStarted(campaignId: string, campaignName: string, agent = { id: 'agent-11', name: 'Riley' }) {
  const res = await deliver(hook, [
    {
      campaignId,
      campaignName,
      campaignType: 'outbound',
      agentId: agent.id,
      agentName: agent.name,
      callId: `call-${++calls}`,
      customerNumber: '+14155550123',
      customerName: 'Olivia Brown',
    },
  ]);
  expect(res.status).toBe(200);
  await queueDrained(h);
}

/** The catalog hash of a kind, as stored in Redis: id → what the bot recorded. */
async function stored(kind: string): Promise<Record<string, { n?: string; c?: string }>> {
  const raw = await redis.redis.hgetall(`${redis.prefix}bot:catalog:${TEAM_ID}:${kind}`);
  return Object.fromEntries(Object.entries(raw).map(([id, json]) => [id, JSON.parse(json) as { n?: string }]));
}

const bookingRequests = () => h.platform.requests.filter((r) => /\/bookings$/.test(r.path)).map((r) => r.path);

describe('names learned from webhook events', () => {
  it('`bookings spring` asks the platform for camp-1’s bookings once an event named “Spring Recall Reminders”', async () => {
    await callStarted('camp-1', 'Spring Recall Reminders');
    expect((await stored('campaigns'))['camp-1']).toMatchObject({ n: 'Spring Recall Reminders' });
    expect((await stored('agents'))['agent-11']).toMatchObject({ n: 'Riley', c: 'camp-1' });

    const { id, text } = await run(h, 'bookings spring', { userId: MEMBER_ID });
    expect(bookingRequests()).toEqual(['/campaign/camp-1/bookings']);
    expect(h.slack.responses.find((r) => r.id === id)?.status).toBe(200);
    expect(text).toContain('Bookings — Spring Recall Reminders (camp-1)');

    // The whole name in any case, and a word's start, work too.
    await run(h, 'bookings SPRING recall   reminders', { userId: MEMBER_ID });
    await run(h, 'scheduled spr rem', { userId: MEMBER_ID });
    expect(bookingRequests()).toEqual(['/campaign/camp-1/bookings', '/campaign/camp-1/bookings']);
    expect(h.platform.requests.at(-1)?.path).toBe('/call/scheduled/camp-1');
  });

  it('answers a name several campaigns share with a pick list of their ids, asking the platform nothing', async () => {
    await callStarted('camp-1', 'Spring Recall Reminders');
    await callStarted('camp-7', 'Spring Promo', { id: 'agent-71', name: 'Jo' });
    h.platform.reset();

    const { text } = await run(h, 'bookings spring', { userId: MEMBER_ID });
    expect(text).toContain(
      'Several campaigns match “spring”: `camp-7` (Spring Promo), `camp-1` (Spring Recall Reminders) — use the id of the one you mean.',
    );
    expect(h.platform.requests).toHaveLength(0);

    await run(h, 'bookings spring promo', { userId: MEMBER_ID });
    expect(bookingRequests()).toEqual(['/campaign/camp-7/bookings']);
  });

  it('takes names in subscribe and delete-agent (and the agent’s name), naming both in the confirmation', async () => {
    await callStarted('camp-1', 'Spring Recall Reminders', { id: 'agent-11', name: 'Riley (recall)' });
    const sub = await run(h, 'subscribe spring recall reminders call_completed', { channelId: CHANNEL });
    expect(sub.text).toContain(
      'This channel now receives `call_completed` for campaign `camp-1` (Spring Recall Reminders)',
    );
    expect(h.platform.requests.find((r) => r.path === '/events-gateway/trigger/subscribe')?.body).toMatchObject({
      campaignId: 'camp-1',
      triggerName: 'call_completed',
    });

    const ask = await run(h, 'delete-agent spring riley', { userId: ADMIN_ID });
    expect(ask.text).toContain(
      'Delete agent `agent-11` (Riley (recall)) from campaign `camp-1` (Spring Recall Reminders)?',
    );
    const confirm = findAction(ask.body.blocks, 'delete_agent_confirm');
    await h.signer.blockAction({
      actionId: 'delete_agent_confirm',
      value: confirm!.value!,
      userId: ADMIN_ID,
      responseUrlId: 'deleted',
    });
    const done = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === 'deleted'));
    expect(JSON.stringify(done.body)).toContain('Deleted agent `agent-11`');
    expect(h.platform.requests.at(-1)).toMatchObject({ method: 'DELETE', path: '/agent/camp-1/agent-11' });
    // The platform deleted it: the catalog no longer offers it.
    expect((await stored('agents'))['agent-11']).toBeUndefined();
  });
});

describe('agents by name', () => {
  it('links a Slack user to the agent an event named, and says so for an id a typo away from a known one', async () => {
    await callStarted('camp-1', 'Spring Recall Reminders', { id: 'agent-11', name: 'Riley' });
    const linked = await run(h, `agent-link <@${MEMBER_ID}|max> riley`);
    expect(linked.text).toContain('now sent as agent `agent-11` (Riley)');
    expect(await h.bot.deps.store.agentLinks.get(TEAM_ID, MEMBER_ID)).toBe('agent-11');

    const typo = await run(h, `agent-link <@${MEMBER_ID}|max> agent-1l`);
    expect(typo.text).toContain(
      'now sent as agent `agent-1l`. The bot has not seen agent `agent-1l` in the platform’s events or lists. Did you mean `agent-11` (Riley)?',
    );
    expect(await h.bot.deps.store.agentLinks.get(TEAM_ID, MEMBER_ID)).toBe('agent-1l');
  });
});

describe('ids the bot has not seen', () => {
  const SPRING = '`camp-1` (Spring Recall Reminders)';
  const DONT_KNOW = `I don’t know a campaign “camp-l” — did you mean ${SPRING}?`;

  it('suggests the known campaign for a mistyped id instead of “no bookings yet”', async () => {
    await callStarted('camp-1', 'Spring Recall Reminders');
    const { text } = await run(h, 'bookings camp-l', { userId: MEMBER_ID });
    // The platform is still asked: it is the source of truth.
    expect(bookingRequests()).toEqual(['/campaign/camp-l/bookings']);
    expect(text).toContain(DONT_KNOW);
    expect(text).not.toContain('no bookings');
    // Nothing the platform showed: the catalog does not learn the typo.
    expect(Object.keys(await stored('campaigns'))).toEqual(['camp-1']);

    // A 404 from the platform gets the same sentence; its code and request id go in a context line below.
    const scheduled = await run(h, 'scheduled camp-l', { userId: MEMBER_ID });
    expect(scheduled.body).toMatchObject({
      text: DONT_KNOW,
      blocks: [
        { type: 'section', text: { text: DONT_KNOW } },
        {
          type: 'context',
          elements: [{ text: expect.stringMatching(/^HTTP 404 · code NOT_FOUND · request id req_\w+$/) }],
        },
      ],
    });
  });

  it('answers a mistyped campaign the same in every subcommand that takes one, changing nothing', async () => {
    await callStarted('camp-1', 'Spring Recall Reminders');
    h.platform.reset();
    const asked = [
      'bookings camp-l',
      'scheduled camp-l',
      'sample call_completed camp-l',
      'subscribe camp-l call_completed',
      'subscriptions camp-l',
      'digest daily camp-l',
      'digest now camp-l',
      'alert camp-l status:failed above:50',
      'delete-agent camp-l agent-11',
    ];
    for (const command of asked) {
      const { text } = await run(h, command, { channelId: CHANNEL });
      expect(text, command).toContain(DONT_KNOW);
    }
    // Nothing was set up, posted or deleted: no route, digest, alert, channel notice, nor an agent deleted.
    expect(await h.bot.deps.store.routes.listForTeam(TEAM_ID)).toEqual([]);
    expect(await h.bot.deps.store.reports.digest(TEAM_ID, CHANNEL)).toBeUndefined();
    expect(await h.bot.deps.store.outcomeAlerts.list(TEAM_ID)).toEqual([]);
    expect(h.slack.messages(CHANNEL)).toEqual([]);
    // subscribe's own request is its check (the platform refused it with a 404); nothing else but reads was sent.
    expect(h.platform.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /events-gateway/trigger/subscribe',
    ]);
    expect(Object.keys(await stored('campaigns'))).toEqual(['camp-1']);

    // unsubscribe suggests the campaigns this channel receives (the only ones it could mean).
    const unsub = await run(h, 'unsubscribe camp-l', { channelId: CHANNEL });
    expect(unsub.text).toContain(
      'I don’t know a campaign “camp-l” — check its id: `/campaign subscriptions` lists what this channel receives. Nothing changed.',
    );
    await run(h, 'subscribe camp-1 call_completed', { channelId: CHANNEL });
    expect((await run(h, 'unsubscribe camp-l', { channelId: CHANNEL })).text).toContain(
      `${DONT_KNOW} Nothing changed.`,
    );
    expect(await h.bot.deps.store.routes.listForTeam(TEAM_ID)).toHaveLength(1);

    // A name nobody knows reads the same way.
    const named = await run(h, 'bookings spring recal reminderz', { userId: MEMBER_ID });
    expect(named.text).toContain(`I don’t know a campaign “spring recal reminderz” — did you mean ${SPRING}?`);
  });

  it('says how to find the id when no known campaign is near what was typed', async () => {
    await callStarted('camp-1', 'Spring Recall Reminders');
    const { text } = await run(h, 'bookings nonexistent', { userId: MEMBER_ID });
    expect(text).toContain(
      'I don’t know a campaign “nonexistent” — check its id: `/campaign stats` lists the top campaigns with their ids.',
    );
    expect(text).not.toContain('no bookings');
  });

  it('gives a known campaign with nothing its empty answer', async () => {
    await callStarted('camp-4', 'Website Concierge');
    const bookings = await run(h, 'bookings camp-4', { userId: MEMBER_ID });
    expect(bookings.text).toContain('Campaign `camp-4` has no bookings yet.');
    const scheduled = await run(h, 'scheduled website concierge', { userId: MEMBER_ID });
    expect(scheduled.text).toContain('Campaign `camp-4` has no scheduled calls.');
    expect(scheduled.text).not.toContain('I don’t know');
  });

  it('still works for a real campaign the bot never saw, and learns its id then', async () => {
    await callStarted('camp-1', 'Spring Recall Reminders');
    const { text } = await run(h, 'bookings camp-2', { userId: MEMBER_ID });
    expect(bookingRequests()).toEqual(['/campaign/camp-2/bookings']);
    expect(text).toContain('Bookings — camp-2');
    expect(Object.keys(await stored('campaigns')).sort()).toEqual(['camp-1', 'camp-2']);
    // Scheduled calls answer 404 for a campaign the platform does not have: an empty list shows it has this one.
    await run(h, 'scheduled camp-4', { userId: MEMBER_ID });
    expect(Object.keys(await stored('campaigns')).sort()).toEqual(['camp-1', 'camp-2', 'camp-4']);
  });
});

describe('ids learned from stats', () => {
  it('records the top campaigns’ ids and names the ones it knows', async () => {
    await callStarted('camp-1', 'Spring Recall Reminders');
    const { text } = await run(h, 'stats');
    // The top campaigns' table: a known campaign by its name and id, another by its id.
    expect(text).toContain('"text":"Spring Recall Reminders (camp-1)"},{"type":"raw_number","value":1284');
    expect(text).toContain('"text":"camp-2"},{"type":"raw_number","value":412');
    expect(Object.keys(await stored('campaigns')).sort()).toEqual(['camp-1', 'camp-2', 'camp-4']);
  });
});

describe('link-number’s menus', () => {
  async function openLinkNumber(): Promise<string> {
    const before = h.slack.views('link_number_modal').length;
    await h.signer.command({ text: 'link-number', userId: ADMIN_ID, responseUrlId: `ln-${++calls}` });
    const view = await h.slack.waitFor(() => h.slack.views('link_number_modal')[before]);
    return view.view.id;
  }
  const suggest = (viewId: string, blockId: string, value: string) =>
    h.signer.blockSuggestion({ viewId, blockId, value, userId: ADMIN_ID });
  const option = (text: string, value: string) => ({ text: { type: 'plain_text', text, emoji: true }, value });

  it('offers the known campaigns as soon as the menu opens, the fitting ones as the admin types, and the typed text', async () => {
    await callStarted('camp-1', 'Spring Recall Reminders');
    await callStarted('camp-3', 'SMS Appointment Follow-up', { id: 'agent-31', name: 'Mia' });
    const viewId = await openLinkNumber();

    // min_query_length 0: Slack asks with nothing typed; Slack accepted each answer (no errors).
    const opened = await suggest(viewId, 'catalog_campaign', '');
    expect(opened.errors).toEqual([]);
    expect(opened.options).toEqual([
      option('SMS Appointment Follow-up (camp-3)', 'camp-3'),
      option('Spring Recall Reminders (camp-1)', 'camp-1'),
    ]);
    const typed = await suggest(viewId, 'catalog_campaign', 'spr');
    expect(typed.options).toEqual([
      option('Spring Recall Reminders (camp-1)', 'camp-1'),
      option('Use “spr” as typed', 'spr'),
    ]);
    const unknown = await suggest(viewId, 'catalog_campaign', 'camp-9');
    expect(unknown.options).toEqual([option('Use “camp-9” as typed', 'camp-9')]);

    // Chosen: the known campaign, and a phone number id typed as it is.
    const number = (await suggest(viewId, 'catalog_number', 'pn-2')).options?.[0];
    expect(number).toEqual(option('Use “pn-2” as typed', 'pn-2'));
    const res = await h.signer.viewSubmission({
      callbackId: 'link_number_modal',
      viewId,
      userId: ADMIN_ID,
      values: {
        catalog_number: { value: { type: 'external_select', selected_option: number } },
        catalog_campaign: { value: { type: 'external_select', selected_option: typed.options?.[0] } },
      },
    });
    expect(res.body).toBe('');
    expect(h.platform.requests.find((r) => r.path === '/phone-number/link')?.body).toEqual({
      phoneNumberId: 'pn-2',
      campaignId: 'camp-1',
    });
    // The linked number is offered next time, with its campaign.
    expect((await stored('numbers'))['pn-2']).toMatchObject({ c: 'camp-1' });
    const next = await suggest(await openLinkNumber(), 'catalog_number', '');
    expect(next.options).toEqual([option('pn-2 → camp-1', 'pn-2')]);
  });

  it('takes a name typed as it is, and answers a name several campaigns share on the field', async () => {
    await callStarted('camp-1', 'Spring Recall Reminders');
    await callStarted('camp-7', 'Spring Promo', { id: 'agent-71', name: 'Jo' });
    const viewId = await openLinkNumber();
    const typed = (await suggest(viewId, 'catalog_campaign', 'spring')).options?.at(-1);
    expect(typed).toEqual(option('Use “spring” as typed', 'spring'));
    const res = await h.signer.viewSubmission({
      callbackId: 'link_number_modal',
      viewId,
      userId: ADMIN_ID,
      values: {
        catalog_number: { value: { type: 'external_select', selected_option: option('Use “pn-1” as typed', 'pn-1') } },
        catalog_campaign: { value: { type: 'external_select', selected_option: typed } },
      },
    });
    expect(res.json).toEqual({
      response_action: 'errors',
      errors: {
        catalog_campaign: expect.stringContaining(
          'Several campaigns match “spring”: `camp-7` (Spring Promo), `camp-1`',
        ),
      },
    });
    expect(h.platform.requests.some((r) => r.path === '/phone-number/link')).toBe(false);
  });

  it('offers at most the 100 options Slack shows, however many campaigns the bot knows', async () => {
    for (let i = 0; i < 150; i++) await h.bot.deps.store.catalog.note(TEAM_ID, 'campaigns', { id: `camp-x${i}` });
    const answer = await suggest(await openLinkNumber(), 'catalog_campaign', 'camp-x');
    expect(answer.errors).toEqual([]);
    expect(answer.options).toHaveLength(100);
    expect(answer.options?.at(-1)).toEqual(option('Use “camp-x” as typed', 'camp-x'));
  });
});
