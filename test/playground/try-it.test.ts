/**
 * What a newcomer tries in the playground, over its JSON API (the browser test drives the same through the
 * page): being someone else of the workspace (admin, member, guest), mentioning people, making the platform
 * slow, down or failing, calls that end in varied ways and many at once, and links that stay on the page.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import type { PageChannel, PageMessage } from '../../playground/page-api.js';
import { SAMPLE_CALL } from '../../fakes/platform/recordings.js';
import { customerFor } from '../../playground/call-outcomes.js';
import {
  CALLS,
  channel,
  eventually,
  GENERAL,
  startTestPlayground,
  SUPPORT,
  type PlaygroundHarness,
  wavSeconds,
} from './support.js';

const YOU = 'U0PLAYYOU01';
const DANA = 'U0PLAYDANA1';
const SAM = 'U0PLAYSAM01';
const GWEN = 'U0PLAYGWEN1';

let h: PlaygroundHarness;

beforeAll(async () => {
  h = await startTestPlayground();
});

afterEach(async () => {
  await h.post('/playground/you', { userId: YOU });
  await h.post('/playground/platform', { mode: 'normal' });
});

afterAll(async () => {
  await h?.pg.stop();
});

const everything = (c: PageChannel): PageMessage[] => [...c.messages, ...Object.values(c.threads).flat()];

/** Runs `/campaign <text>` in #general as whoever the page is now, and waits for the bot's private answer. */
async function ask(text: string, matching: RegExp, timeoutMs = 10_000): Promise<PageMessage> {
  const before = new Set(channel(await h.state(), GENERAL).messages.map((m) => m.ts));
  expect(await h.post('/playground/command', { channel: GENERAL, text })).toEqual({ ok: true });
  return eventually(async () => {
    const fresh = channel(await h.state(), GENERAL).messages.filter((m) => m.ephemeral && !before.has(m.ts));
    return fresh.find((m) => matching.test(m.html));
  }, timeoutMs);
}

describe('people of the workspace', () => {
  it('lists an admin, a second admin, two members and a guest, and the page is the first of them', async () => {
    const { workspace } = await h.state();
    expect(workspace.people.map((p) => [p.name, p.role])).toEqual([
      ['you', 'admin'],
      ['dana', 'admin'],
      ['sam', 'member'],
      ['priya', 'member'],
      ['gwen', 'guest'],
    ]);
    expect(workspace.you.id).toBe(YOU);
    // Slack tells the bot who the guest is.
    expect(h.pg.slack.user(GWEN)).toMatchObject({ is_restricted: true });
  });

  it('a guest asking for bookings is refused with the members-only sentence, and only the guest sees it', async () => {
    expect(await h.post('/playground/you', { userId: GWEN })).toEqual({ ok: true });
    expect((await h.state()).workspace.you).toMatchObject({ name: 'gwen', role: 'guest' });
    const asked = h.pg.platform.requests.length;
    const refusal = await ask('bookings camp-1', /guests can’t see it/);
    expect(refusal.html).toContain('shows customer details');
    // Refused before the platform was asked: the answer is there, and no bookings request was made for it.
    expect(h.pg.platform.requests.slice(asked).some((r) => r.path.endsWith('/bookings'))).toBe(false);

    await h.post('/playground/you', { userId: YOU });
    const mine = channel(await h.state(), GENERAL).messages.filter((m) => m.ts === refusal.ts);
    expect(mine).toEqual([]);
  });

  it('a member reads figures but may not run admin commands; the second admin may', async () => {
    await h.post('/playground/you', { userId: SAM });
    await ask('stats', /Connection rate/);
    const refused = await ask('keys', /Only Slack workspace admins and owners/);
    expect(refused.html).toContain('ADMIN_USER_IDS');

    // Dana is not a Slack admin: she is an admin through the bot's ADMIN_USER_IDS.
    expect(h.pg.slack.user(DANA)?.is_admin).toBeFalsy();
    await h.post('/playground/you', { userId: DANA });
    const keys = await ask('keys', /API keys/i);
    expect(keys.html).not.toContain('Only Slack workspace admins');
  });

  it('refuses someone who is not in the workspace', async () => {
    const res = await request(`${h.base}/playground/you`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-playground': '1' },
      body: JSON.stringify({ userId: 'U0NOBODY001' }),
    });
    expect(res.statusCode).toBe(400);
    await res.body.text();
  });
});

describe('mentions', () => {
  it('a mention chosen in a command reaches the bot as Slack escapes it, and the bot acts on that person', async () => {
    const linked = await ask(`agent-link <@${SAM}|sam> agent-31`, /now sent as agent/);
    expect(linked.html).toContain('@sam');
    expect(await h.pg.bot.deps.store.agentLinks.get(h.pg.slack.teamId, SAM)).toBe('agent-31');
  });

  it('a mention in a message is shown as the person', async () => {
    expect(await h.post('/playground/message', { channel: GENERAL, text: `thanks <@${DANA}>!` })).toEqual({
      ok: true,
    });
    const posted = await eventually(async () =>
      channel(await h.state(), GENERAL).messages.find((m) => m.html.includes('thanks')),
    );
    expect(posted.html).toContain('<span class="bk-mention">@dana</span>');
  });
});

describe('the platform switch', () => {
  it('down: the user reads that the platform could not be reached; normal again: the answer comes', async () => {
    expect(await h.post('/playground/platform', { mode: 'down' })).toEqual({ ok: true });
    expect((await h.state()).platform.mode).toBe('down');
    await ask('stats', /could not be reached — try again in a minute/, 20_000);
    await h.post('/playground/platform', { mode: 'normal' });
    await ask('stats', /Connection rate/);
  }, 30_000);

  it('errors: the user reads that the platform had an internal error, with its request id', async () => {
    await h.post('/playground/platform', { mode: 'errors' });
    const answer = await ask('quota', /internal error/);
    const requestId = /request id (req_\d+)/.exec(answer.html)?.[1];
    expect(requestId).toBeDefined();
    expect(answer.html).toContain('INTERNAL_SERVER_ERROR');
  });

  it('slow: answers still come, after the delay', async () => {
    await h.post('/playground/platform', { mode: 'slow' });
    const state = await h.state();
    expect(state.platform).toEqual({ mode: 'slow', modes: ['normal', 'slow', 'down', 'errors'], slowMs: 3000 });
    const started = Date.now();
    await ask('template tpl-outbound-recall', /Required fields/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(3000);
  }, 20_000);
});

describe('simulated calls', () => {
  it('end the way asked: status, ended reason and a summary to match', async () => {
    const outcome = await h.post('/playground/simulate', {
      trigger: 'call_completed',
      campaignId: 'camp-1',
      customerName: 'Ines Novak',
      customerNumber: '+14155550177',
      outcome: 'no-answer',
    });
    expect(outcome.ok).toBe(true);
    expect(outcome.simulation?.event).toMatchObject({
      status: 'no-answer',
      endedReason: 'customer-did-not-answer',
      callSummary: 'No answer.',
    });
    const card = await eventually(async () =>
      channel(await h.state(), CALLS).messages.find((m) => m.html.includes('Ines Novak')),
    );
    expect(card.html).toContain('no-answer');

    const hot = await h.post('/playground/simulate', {
      trigger: 'call_completed',
      campaignId: 'camp-1',
      outcome: 'hot-lead',
    });
    expect(String(hot.simulation?.event.callSummary)).toMatch(/interested/);
    expect(Number(hot.simulation?.event.durationMs)).toBeGreaterThanOrEqual(120_000);
  });

  it('a burst: 20 calls of one campaign end at once, each accepted by the bot and shown in #calls', async () => {
    const outcome = await h.post('/playground/burst', { campaignId: 'camp-1', count: 20 });
    expect(outcome.ok).toBe(true);
    expect(outcome.burst?.calls).toBe(20);
    expect(outcome.burst?.answers).toEqual({ 200: 20 });
    expect(Object.values(outcome.burst?.statuses ?? {}).reduce((a, b) => a + b, 0)).toBe(20);
    const customers = Array.from({ length: 20 }, (_, i) => customerFor(i).customerName);
    // Cards or roll-ups, as the channel keeps up: every call shows up.
    await eventually(async () => {
      const html = everything(channel(await h.state(), CALLS))
        .map((m) => m.html)
        .join('\n');
      return customers.every((name) => html.includes(name));
    }, 30_000);
  }, 40_000);
});

describe('links that stay on the page', () => {
  it('a sample call’s recording plays from the page, not from the platform’s address', async () => {
    const card = await ask('sample call_completed camp-1', /call-sample-0001|Recording/);
    expect(card.html).not.toContain('recordings.example.com');
    // The card's button asks the bot, which answers a full member with the link, privately.
    const value = /data-action-id="call_recording_open"[^>]*data-value="([^"]+)"/.exec(card.html)?.[1];
    expect(value).toBeDefined();
    const before = new Set(channel(await h.state(), GENERAL).messages.map((m) => m.ts));
    const pressed = { container: 'message', channel: GENERAL, ts: card.ts, ephemeral: true };
    expect(await h.post('/playground/action', { ...pressed, actionId: 'call_recording_open', value })).toEqual({
      ok: true,
    });
    const link = await eventually(async () =>
      channel(await h.state(), GENERAL).messages.find((m) => !before.has(m.ts) && m.html.includes('data-audio-src')),
    );
    expect(link.html).not.toContain('recordings.example.com');
    const src = /data-audio-src="([^"]+)"/.exec(link.html)?.[1];
    expect(src).toBe('/playground/media/recording/call-sample-0001.mp3');
    const played = await request(`${h.base}${src}`);
    expect(played.headers['content-type']).toBe('audio/wav');
    // As long as the sample card's duration (2 min 34 s).
    expect(wavSeconds(Buffer.from(await played.body.arrayBuffer()))).toBeCloseTo(SAMPLE_CALL.durationMs / 1000, 2);
  });

  it('“open thread” in /campaign handoffs opens the thread on the page', async () => {
    const fired = await h.post('/playground/simulate', {
      trigger: 'message_received',
      campaignId: 'camp-3',
      customerName: 'Lena Kim',
      customerNumber: '+14155550166',
      text: 'Is Saturday possible?',
    });
    expect(fired.ok).toBe(true);
    const card = await eventually(async () =>
      channel(await h.state(), SUPPORT).messages.find((m) => m.html.includes('Lena Kim')),
    );
    const list = await ask('handoffs', /Lena Kim/);
    expect(list.html).not.toContain('slack.com');
    expect(list.html).toContain(`data-goto-channel="${SUPPORT}"`);
    expect(list.html).toContain(`data-goto-thread="${card.ts}"`);
  });

  it('a cloned voice’s preview plays the first sample it was made from', async () => {
    h.pg.platform.state.voiceSamples['voice-77'] = { contentType: 'audio/mpeg', data: Buffer.from('ID3 sample') };
    const preview = await request(`${h.base}/playground/media/voice/voice-77`);
    expect(preview.headers['content-type']).toBe('audio/mpeg');
    expect(await preview.body.text()).toBe('ID3 sample');
    for (const name of ['voice-78', '__proto__', 'constructor']) {
      const missing = await request(`${h.base}/playground/media/voice/${name}`);
      expect(missing.statusCode, name).toBe(404);
      await missing.body.text();
    }
  });
});

describe('the Slack switch', () => {
  it('shows its position and each channel’s, refuses a mode Slack has none of, and heals back to normal', async () => {
    await expect(h.post('/playground/slack', { mode: 'sideways' })).rejects.toThrow(/answered 400/);
    expect(await h.post('/playground/slack', { mode: 'failing' })).toEqual({ ok: true });
    expect(await h.post('/playground/slack-channel', { channel: GENERAL, state: 'archived' })).toEqual({ ok: true });
    const state = await h.state();
    expect(state.slack.mode).toBe('failing');
    expect(state.slack.channels.find((c) => c.id === GENERAL)?.state).toBe('archived');
    // Nobody can post in an archived channel: the page says so, nothing reaches the bot.
    const refused = await h.post('/playground/command', { channel: GENERAL, text: 'stats' });
    expect(refused).toEqual({ ok: false, error: expect.stringContaining('This channel is archived') });

    await h.post('/playground/slack', { mode: 'normal' });
    await h.post('/playground/slack-channel', { channel: GENERAL, state: 'normal' });
    expect(h.pg.slack.channel(GENERAL)?.is_archived).toBe(false);
    await ask('stats', /Connection rate/);
  });

  it('down: Slack would deliver nothing, so the command never reaches the bot', async () => {
    await h.post('/playground/slack', { mode: 'down' });
    const before = h.pg.slack.responses.length;
    const refused = await h.post('/playground/command', { channel: GENERAL, text: 'stats' });
    expect(refused.error).toContain('Slack is down (HTTP 503)');
    await h.post('/playground/slack', { mode: 'normal' });
    await ask('quota', /Usage quota/);
    // Only the quota's answer came: the stats command was never sent.
    expect(h.pg.slack.responses.slice(before).some((r) => JSON.stringify(r).includes('Connection rate'))).toBe(false);
  });
});

describe('the simulator', () => {
  it('says why an event does nothing: a chat session completed with no open conversation', async () => {
    const outcome = await h.post('/playground/simulate', {
      trigger: 'message_session_completed',
      campaignId: 'camp-3',
      customerName: 'Nobody Yet',
      customerNumber: '+14155550155',
    });
    expect(outcome).toMatchObject({ ok: false });
    expect(outcome.error).toBe(
      'Chat session completed did nothing: no open conversation for Nobody Yet (+14155550155) in SMS Appointment Follow-up. Fire a customer message for them first.',
    );
  });
});
