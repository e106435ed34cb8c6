/**
 * The read subcommands, driven over HTTP with signed slash commands against the fakes.
 */
import { describe, expect, it } from 'vitest';
import { seedQuota } from '../fakes/platform.js';
import { findAction } from '../support/blocks.js';
import { MEMBER_ID, startHarness, useHarness } from '../support/harness.js';
import { SLOW_NOTICE_MS } from '../../src/commands/dispatch.js';

const h = useHarness(() => startHarness(), ['platform']);

/** The pager button with this action_id (its value says which page it asks for). */
function pagerButton(blocks: unknown, actionId: string): { action_id: string; value: string } {
  const found = findAction(blocks, actionId);
  expect(found?.value).toBeDefined();
  return { action_id: actionId, value: found!.value! };
}

/** Runs `/campaign <text>` and returns the first response_url post (the answer). */
async function ask(text: string, responseUrlId = `r-${Math.random().toString(36).slice(2)}`) {
  const ack = await h.signer.command({ text, userId: MEMBER_ID, responseUrlId });
  expect(ack.status).toBe(200);
  const answer = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === responseUrlId));
  return { ack, answer: answer.body, text: JSON.stringify(answer.body) };
}

describe('/campaign stats', () => {
  it('asks the platform with the workspace key and answers privately with the figures', async () => {
    const { answer, text } = await ask('stats');
    const req = h.platform.requests.find((r) => r.path === '/dashboard/dashboard-stats');
    expect(req?.method).toBe('GET');
    expect(req?.headers['api-key']).toBe(h.platform.apiKey);
    expect(answer.response_type).toBe('ephemeral');
    expect(text).toContain('1,284'); // outbound calls
    expect(text).toContain('62%'); // outbound connection rate
    expect(text).toContain('Inbound');
    expect(text).toContain('camp-1');
    expect(text).toContain('Knowledge files: *14*');
    expect(answer.text).toContain('1,792 calls');
  });

  it('posts in the channel with --public', async () => {
    const { answer } = await ask('stats --public');
    expect(answer.response_type).toBe('in_channel');
  });

  it('tells the user within Slack’s 3 s when the platform is slow (the notice’s delay leaves room to spare)', () => {
    expect(SLOW_NOTICE_MS).toBeLessThan(3_000);
  });
});

describe('/campaign stats on a slow platform', () => {
  /** The slow notice’s delay for these tests: shorter than the bot’s, yet a command on a platform answering at once is far quicker. */
  const NOTICE_MS = 1_000;
  const slow = useHarness(() => startHarness({ bot: { slowNoticeMs: NOTICE_MS } }));
  const answersTo = (id: string) => slow.slack.responses.filter((r) => r.id === id);

  it('acks at once while the platform has not answered, says the platform is slow, and answers when it does', async () => {
    slow.platform.inject({ path: '/dashboard/dashboard-stats', hold: true, times: 1 });
    const id = 'slow-stats';
    const sentAt = Date.now();
    const ack = await slow.signer.command({ text: 'stats', userId: MEMBER_ID, responseUrlId: id });
    expect(ack.status).toBe(200);
    expect(ack.timedOut).toBe(false);
    await slow.slack.waitFor(() => slow.platform.held().length === 1);
    // First the notice, privately, once its time has come…
    const notice = await slow.slack.waitFor(() => answersTo(id)[0]);
    expect(notice.at - sentAt).toBeGreaterThanOrEqual(NOTICE_MS);
    expect(notice.status).toBe(200);
    expect(notice.body).toMatchObject({ response_type: 'ephemeral' });
    expect(String(notice.body.text)).toContain('platform is slow to answer');
    // …then the answer, once the platform gives it: two posts to the response_url, in that order.
    expect(slow.platform.release()).toBe(1);
    const answer = await slow.slack.waitFor(() => answersTo(id)[1]);
    expect(JSON.stringify(answer.body)).toContain('Campaign dashboard');
    expect(answersTo(id)).toHaveLength(2);
  });

  it('sends no slow notice when the platform answers in time, not even once the notice would have been due', async () => {
    const quick = 'quick-stats';
    expect(await slow.signer.command({ text: 'stats', userId: MEMBER_ID, responseUrlId: quick })).toMatchObject({
      status: 200,
    });
    const first = await slow.slack.waitFor(() => answersTo(quick)[0]);
    expect(JSON.stringify(first.body)).toContain('Campaign dashboard');
    // A later command on a platform that does not answer gets its notice: by then this one's would have gone
    // too (same delay, started earlier). Its answer, after that, is one more round trip later still.
    slow.platform.inject({ path: '/dashboard/dashboard-stats', hold: true, times: 1 });
    const later = 'later-stats';
    await slow.signer.command({ text: 'stats', userId: MEMBER_ID, responseUrlId: later });
    const notice = await slow.slack.waitFor(() => answersTo(later)[0]);
    expect(String(notice.body.text)).toContain('platform is slow to answer');
    expect(slow.platform.release()).toBe(1);
    await slow.slack.waitFor(() => answersTo(later)[1]);
    expect(answersTo(quick)).toHaveLength(1);
  });
});

describe('/campaign bookings', () => {
  it('lists bookings with status icons and the failure reason', async () => {
    const { text } = await ask('bookings camp-1');
    expect(h.platform.requests.at(-1)?.path).toBe('/campaign/camp-1/bookings');
    expect(text).toContain('✅');
    expect(text).toContain('❌');
    expect(text).toContain('⏳');
    expect(text).toContain('The requested slot is no longer available in the calendar');
    expect(text).toContain('<!date^');
  });

  it('pages 200 bookings within Slack limits and moves to page 2 and back, each page accepted by Slack', async () => {
    const base = h.platform.state.bookings['camp-1']![0]!;
    h.platform.state.bookings['camp-big'] = Array.from({ length: 200 }, (_, i) => ({
      ...base,
      RowKey: `bk-${i}`,
      CustomerName: `Customer ${String(i).padStart(3, '0')}`,
      BookingDate: new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString(),
    }));
    const { answer } = await ask('bookings camp-big', 'big-1');
    expect(h.slack.responses.find((r) => r.id === 'big-1')?.status).toBe(200);
    const blocks = answer.blocks as unknown[];
    expect(blocks.length).toBeLessThanOrEqual(50);
    expect(JSON.stringify(blocks)).toContain('Showing 1–20 of 200 bookings');
    // Newest first.
    expect(JSON.stringify(blocks)).toContain('Customer 199');
    const next = pagerButton(blocks, 'bookings_page:next');

    const click = await h.signer.blockAction({
      actionId: next.action_id,
      value: next.value,
      userId: MEMBER_ID,
      responseUrlId: 'big-2',
    });
    expect(click.status).toBe(200);
    const page2 = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === 'big-2'));
    // Page 2 has both Previous and Next: Slack refuses a message whose block repeats an action_id.
    expect(page2.status).toBe(200);
    expect(page2.body.replace_original).toBe(true);
    const text2 = JSON.stringify(page2.body);
    expect(text2).toContain('Showing 21–40 of 200 bookings');
    expect(text2).toContain('Customer 179');
    expect(text2).not.toContain('Customer 199');

    const previous = pagerButton(page2.body.blocks, 'bookings_page:prev');
    await h.signer.blockAction({
      actionId: previous.action_id,
      value: previous.value,
      userId: MEMBER_ID,
      responseUrlId: 'big-3',
    });
    const back = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === 'big-3'));
    expect(back.status).toBe(200);
    expect(JSON.stringify(back.body)).toContain('Showing 1–20 of 200 bookings');
  });

  it('keeps a customer name with * and _ inside its bold', async () => {
    h.platform.state.bookings['camp-1']![0]!.CustomerName = '*Star* _Client_';
    const { text } = await ask('bookings camp-1');
    expect(text).toContain('*∗Star∗ ˍClientˍ*');
  });

  it('does not answer “no bookings yet” for a campaign nobody has seen (the platform answers any id so)', async () => {
    const { text } = await ask('bookings camp-none');
    expect(h.platform.requests.at(-1)?.path).toBe('/campaign/camp-none/bookings');
    expect(text).toContain(
      'I don’t know a campaign “camp-none” — check its id: `/campaign stats` lists the top campaigns with their ids.',
    );
    expect(text).not.toContain('no bookings');
  });
});

describe('/campaign scheduled', () => {
  it('sorts by ScheduledDate and renders Slack dates', async () => {
    h.platform.state.scheduled['camp-1']!.reverse();
    const { text } = await ask('scheduled camp-1');
    expect(h.platform.requests.at(-1)?.path).toBe('/call/scheduled/camp-1');
    const first = text.indexOf('Olivia Brown');
    const second = text.indexOf('Noah Wilson');
    expect(text).toContain('2024-03-09 17:30:00 UTC');
    expect(first).toBeGreaterThan(-1);
    expect(second).toBeGreaterThan(first);
  });

  it('pages a long list: page 2 (Previous and Next) is accepted by Slack', async () => {
    const base = h.platform.state.scheduled['camp-1']![0]!;
    h.platform.state.scheduled['camp-2'] = Array.from({ length: 60 }, (_, i) => ({
      ...base,
      RowKey: `sc-${i}`,
      Name: `Contact ${String(i).padStart(2, '0')}`,
      ScheduledDate: new Date(Date.UTC(2024, 5, 1) + i * 3_600_000).toISOString(),
    }));
    const { answer } = await ask('scheduled camp-2', 'long-1');
    const next = pagerButton(answer.blocks, 'scheduled_page:next');
    await h.signer.blockAction({
      actionId: next.action_id,
      value: next.value,
      userId: MEMBER_ID,
      responseUrlId: 'long-2',
    });
    const page2 = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === 'long-2'));
    expect(page2.status).toBe(200);
    expect(JSON.stringify(page2.body)).toContain('Contact 25');
    expect(pagerButton(page2.body.blocks, 'scheduled_page:prev').value).toBeDefined();
  });

  it('answers a 404 with the campaign it could not find', async () => {
    const { answer } = await ask('scheduled nope-42');
    expect(answer).toMatchObject({
      text: 'I don’t know a campaign “nope-42” — check its id: `/campaign stats` lists the top campaigns with their ids.',
      blocks: [{ type: 'section' }, { type: 'context', elements: [{ text: expect.stringMatching(/^HTTP 404 · /) }] }],
    });
  });
});

describe('/campaign quota', () => {
  it('renders 64-bit millisecond values exactly, in hours and minutes, with a usage bar', async () => {
    h.platform.state.quota = seedQuota('beyond-2^53');
    const { text } = await ask('quota');
    // March 2024: purchased 9007199254740993 + rollover 25826771 ms; used 18014398509481985 ms.
    const used = 18014398509481985n / 60000n;
    expect(text).toContain(`${(used / 60n).toLocaleString('en-US')} h ${used % 60n} min`);
    expect(text).toContain('March 2024');
    expect(text).toContain('█');
    expect(text).toContain('Over by');
    expect(text).toContain('February 2024');
  });
});

describe('/campaign template', () => {
  it('shows type, order and required fields', async () => {
    const template = Object.values(h.platform.state.templates).find((t) => t.required_fields.length > 0)!;
    const { text } = await ask(`template ${template.assistant_id}`);
    expect(text).toContain(template.required_fields[0]);
    expect(text).toContain(`*Order*\\n${template.order}`);
  });

  it('escapes the platform’s title and type in the notification text too, and marks mrkdwn verbatim', async () => {
    const template = Object.values(h.platform.state.templates)[0]!;
    template.title = 'Promo <!channel> & friends';
    const { answer } = await ask(`template ${template.assistant_id}`);
    // The fallback `text` is mrkdwn as well: it is what notifications and screen readers show.
    expect(answer.text).toBe(`Template Promo &lt;!channel&gt; &amp; friends (${template.type})`);
    const objects = (answer.blocks as Array<{ text?: { type: string }; fields?: Array<{ type: string }> }>).flatMap(
      (b) => [...(b.text ? [b.text] : []), ...(b.fields ?? [])],
    );
    for (const t of objects.filter((o) => o.type === 'mrkdwn')) expect(t).toMatchObject({ verbatim: true });
  });

  it('answers a 404 with the template id', async () => {
    const { text } = await ask('template tpl-missing');
    expect(text).toContain('Template `tpl-missing` was not found');
  });
});

describe('failures become one sentence', () => {
  it('500: a sentence first, the platform’s code and request id in a context line below it', async () => {
    h.platform.inject({ path: '/dashboard/dashboard-stats', status: 500, code: 'INTERNAL', times: 1 });
    const { text } = await ask('stats');
    expect(text).toContain(
      '"type":"section","text":{"type":"mrkdwn","text":"The platform had an internal error — try again in a minute; if it keeps happening, give the platform’s support the request id."',
    );
    expect(text).toMatch(
      /"type":"context","elements":\[\{"type":"mrkdwn","text":"HTTP 500 · code INTERNAL · request id req_\w+"/,
    );
  });

  it('a dropped connection and a malformed body are explained, and the bot keeps serving', async () => {
    h.platform.inject({ path: '/customer-quota', reset: true });
    const dropped = await ask('quota');
    expect(dropped.text).toContain('could not be reached');
    h.platform.clearFaults();
    h.platform.inject({ path: '/customer-quota', body: '{"value": "nope"}', times: 1 });
    const odd = await ask('quota');
    expect(odd.text).toContain('does not understand');
    const ok = await ask('quota');
    expect(ok.text).toContain('Usage quota');
  });
});

describe('help and grammar', () => {
  it('lists the subcommands for no text and for help', async () => {
    for (const text of ['', 'help']) {
      const { text: out } = await ask(text);
      expect(out).toContain('/campaign bookings &lt;campaignId&gt;');
      expect(out).toContain('/campaign connect');
    }
  });

  it('groups the subcommands by who runs them: everyone, agents, admins', async () => {
    const { text } = await ask('help');
    const at = (part: string) => {
      expect(text).toContain(part);
      return text.indexOf(part);
    };
    const order = [
      '*For everyone*',
      '`/campaign stats`',
      '*For agents*',
      '`/campaign bookings',
      '`/campaign replies',
      '*For admins*',
      '`/campaign connect`',
      '`/campaign subscribe',
    ].map(at);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it('suggests the closest subcommand for a typo', async () => {
    const { text } = await ask('bokings camp-1');
    expect(text).toContain('There is no `/campaign bokings`');
    expect(text).toContain('Did you mean `/campaign bookings`?');
  });

  it('suggests every subcommand for a swapped or a dropped letter', async () => {
    const { answer } = await ask('help');
    const names = [...JSON.stringify(answer).matchAll(/• `\/campaign ([a-z-]+)/g)].map((m) => m[1]!);
    expect(names).toHaveLength(26);
    expect(names).toContain('stats');
    for (const name of names) {
      const swapped = `${name.slice(0, -2)}${name.at(-1)}${name.at(-2)}`; // stats → stast
      const dropped = `${name.slice(0, 1)}${name.slice(2)}`; // stats → sats
      for (const typo of [swapped, dropped])
        expect((await ask(typo)).text, typo).toContain(`Did you mean \`/campaign ${name}\`?`);
    }
  }, 60_000);

  it('escapes what the user typed', async () => {
    const { text } = await ask('<!channel>');
    expect(text).not.toContain('<!channel>');
    expect(text).toContain('&lt;!channel&gt;');
  });

  it('gives the usage line for missing or extra arguments', async () => {
    expect((await ask('bookings')).text).toContain('Usage: `/campaign bookings &lt;campaignId&gt;`');
    expect((await ask('quota extra')).text).toContain('Usage: `/campaign quota`');
    expect(h.platform.requests).toHaveLength(0);
  });
});

describe('Slack request verification', () => {
  it('rejects a forged signature with 401 and runs nothing', async () => {
    const body = new URLSearchParams({
      command: '/campaign',
      text: 'stats',
      team_id: 'T1',
      user_id: 'U1',
      response_url: h.slack.responseUrl('forged'),
    }).toString();
    const res = await h.signer.raw(
      body,
      {},
      { signature: 'v0=deadbeef', contentType: 'application/x-www-form-urlencoded' },
    );
    expect(res.status).toBe(401);
    expect(h.platform.requests).toHaveLength(0);
  });

  it('rejects a stale timestamp with 401', async () => {
    const body = new URLSearchParams({ command: '/campaign', text: 'stats' }).toString();
    const res = await h.signer.raw(
      body,
      {},
      { timestamp: Math.floor(Date.now() / 1000) - 600, contentType: 'application/x-www-form-urlencoded' },
    );
    expect(res.status).toBe(401);
  });
});

describe('future-dated requests', () => {
  it('rejects a correctly signed request dated 10 minutes ahead with 401', async () => {
    const body = new URLSearchParams({
      command: '/campaign',
      text: 'stats',
      team_id: 'T1',
      user_id: 'U1',
      response_url: h.slack.responseUrl('future'),
    }).toString();
    const res = await h.signer.raw(
      body,
      {},
      { timestamp: Math.floor(Date.now() / 1000) + 600, contentType: 'application/x-www-form-urlencoded' },
    );
    expect(res.status).toBe(401);
    expect(h.platform.requests).toHaveLength(0);
    // The same request a minute ahead (ordinary clock skew) is accepted: the signature itself is valid.
    const skewed = await h.signer.raw(
      body,
      {},
      { timestamp: Math.floor(Date.now() / 1000) + 60, contentType: 'application/x-www-form-urlencoded' },
    );
    expect(skewed.status).toBe(200);
  });
});

describe('health', () => {
  it('answers /healthz', async () => {
    const res = await fetch(`${h.url}/healthz`);
    expect(res.status).toBe(200);
  });
});
