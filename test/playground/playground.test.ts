/**
 * The playground end to end over HTTP (no browser): what `npm start` without configuration serves, driven
 * through the page's JSON API. Every action must reach the bot through its real routes and show up as the
 * bot's real effects in the Slack stand-in and the platform simulator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { PLAYGROUND_PUBLIC_URL } from '../../src/config.js';
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

let h: PlaygroundHarness;

beforeAll(async () => {
  h = await startTestPlayground();
});

afterAll(async () => {
  await h?.pg.stop();
});

describe('start', () => {
  it('logs the banner and listens on loopback only', () => {
    expect(h.logs()).toContain('PLAYGROUND MODE — not connected to Slack or the platform');
    expect(h.pg.url).toBe(`http://localhost:${h.pg.port}/`);
  });

  it('has subscribed #calls and #support through the real /campaign subscribe', async () => {
    const subs = h.pg.platform.state.subscriptions;
    expect(subs.map((s) => `${s.triggerName}:${s.campaignId}`).sort()).toEqual([
      'call_completed:*',
      'call_started:*',
      'message_received:*',
      'message_sent:*',
    ]);
    expect(subs.every((s) => s.hookUrl.startsWith(`${PLAYGROUND_PUBLIC_URL}/hooks/`))).toBe(true);
    const state = await h.state();
    expect(
      channel(state, CALLS)
        .messages.map((m) => m.html)
        .join('\n'),
    ).toContain('This channel now receives');
    expect(
      channel(state, SUPPORT)
        .messages.map((m) => m.html)
        .join('\n'),
    ).toContain('<code>message_received</code>');
  });

  it('serves the page with a strict content security policy, and its assets', async () => {
    const page = await request(`${h.base}/`);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    const html = await page.body.text();
    expect(html).toContain('PLAYGROUND MODE');
    // Every stylesheet the page links.
    const sheets = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1]!);
    expect(sheets).toHaveLength(4);
    for (const sheet of sheets) {
      const css = await request(`${h.base}${sheet}`);
      expect(css.statusCode, sheet).toBe(200);
      expect(css.headers['content-type']).toContain('text/css');
      await css.body.text();
    }
    // The script and every module it imports, however deep (a module left unserved breaks the whole page).
    const modules = ['app.js'];
    for (const name of modules) {
      const js = await request(`${h.base}/playground/assets/${name}`);
      expect(js.statusCode, name).toBe(200);
      expect(js.headers['content-type']).toContain('javascript');
      for (const [, imported] of (await js.body.text()).matchAll(/^import [^;]*? from '\.\/([\w-]+\.js)';$/gm))
        if (imported && !modules.includes(imported)) modules.push(imported);
    }
    expect(modules.sort()).toEqual([
      'app.js',
      'connection.js',
      'dom.js',
      'home.js',
      'links.js',
      'mentions.js',
      'modal.js',
      'simulator.js',
      'slack-switch.js',
      'try-these.js',
      'uploads.js',
      'workflows.js',
    ]);
    // An encoded traversal never reaches the assets route: refused 400 before routing.
    const missing = await request(`${h.base}/playground/assets/..%2F..%2Fconfig.ts`);
    expect(missing.statusCode).toBe(400);
    await missing.body.text();
  });

  it('refuses requests naming another host, and POSTs without the playground header', async () => {
    const rebound = await request(`${h.base}/playground/state`, { headers: { host: 'evil.example' } });
    expect(rebound.statusCode).toBe(403);
    await rebound.body.text();
    const forged = await request(`${h.base}/playground/command`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ channel: GENERAL, text: 'keys' }),
    });
    expect(forged.statusCode).toBe(403);
    await forged.body.text();
  });

  it('answers "unchanged" when nothing happened since the version the page has, naming this run', async () => {
    const { version, instance } = await h.state();
    expect(version.startsWith(`${instance}.`)).toBe(true);
    const res = await request(`${h.base}/playground/state?since=${encodeURIComponent(version)}`);
    expect(await res.body.json()).toEqual({ version, instance, unchanged: true });
  });
});

describe('commands', () => {
  it('/campaign stats answers with the platform figures, only to the person who asked', async () => {
    expect(await h.post('/playground/command', { channel: GENERAL, text: 'stats' })).toEqual({ ok: true });
    const answer = await eventually(async () =>
      channel(await h.state(), GENERAL).messages.find((m) => m.html.includes('1,284')),
    );
    expect(answer.ephemeral).toBe(true);
    expect(answer.author).toBe('Campaign');
    expect(h.pg.platform.requests.some((r) => r.path === '/dashboard/dashboard-stats')).toBe(true);
  });

  it('/campaign quota shows a believable account at first: a few hundred hours of the plan, under 100 %', async () => {
    expect(await h.post('/playground/command', { channel: GENERAL, text: 'quota' })).toEqual({ ok: true });
    const answer = await eventually(async () =>
      channel(await h.state(), GENERAL).messages.find((m) => m.html.includes('Usage quota')),
    );
    const percent = /(\d+(?:\.\d)?)%/.exec(answer.html);
    expect(Number(percent?.[1])).toBeGreaterThan(0);
    expect(Number(percent?.[1])).toBeLessThan(100);
    const usedHours = /Used<\/strong>\D*([\d,]+) h/.exec(answer.html);
    expect(Number(usedHours?.[1]?.replace(/,/g, ''))).toBeGreaterThanOrEqual(100);
    expect(Number(usedHours?.[1]?.replace(/,/g, ''))).toBeLessThan(1000);
    expect(answer.html).toContain('Left');
    expect(answer.html).not.toContain('Over by');
  });

  it('runs a modal: /campaign profile opens a form whose submission reaches the platform', async () => {
    await h.post('/playground/command', { channel: GENERAL, text: 'profile' });
    const modal = await eventually(async () => (await h.state()).modal);
    expect(modal.title).toBe('Account profile');
    expect(modal.body).toContain('data-block-id="company"');
    const outcome = await h.post('/playground/view-submission', {
      viewId: modal.id,
      values: { company: { value: 'Acme & <Sons>' } },
    });
    expect(outcome.ok).toBe(true);
    await eventually(() => Promise.resolve(h.pg.platform.requests.find((r) => r.path === '/account/profile')));
    expect(h.pg.platform.state.profile.company).toBe('Acme & <Sons>');
    const confirmation = await eventually(async () =>
      channel(await h.state(), GENERAL).messages.find((m) => m.html.includes('Account profile updated')),
    );
    expect(confirmation.html).toContain('Acme &#38; &#60;Sons&#62;');
    expect((await h.state()).modal).toBeNull();
  });

  it('keeps a modal open with Slack’s message when a required field is empty, sending nothing', async () => {
    await h.post('/playground/command', { channel: GENERAL, text: 'link-number' });
    const modal = await eventually(async () => {
      const m = (await h.state()).modal;
      return m?.title === 'Link phone number' ? m : undefined;
    });
    const before = h.pg.platform.requests.length;
    const outcome = await h.post('/playground/view-submission', { viewId: modal.id, values: {} });
    expect(outcome.ok).toBe(false);
    expect(Object.values(outcome.errors ?? {})).toContain('Please complete this required field.');
    expect((await h.state()).modal?.errors).toEqual(outcome.errors);
    expect(h.pg.platform.requests.length).toBe(before);
    await h.post('/playground/view-closed', { viewId: modal.id });
    expect((await h.state()).modal).toBeNull();
  });

  it('offers link-number’s campaigns from what the bot has seen, and links the one chosen', async () => {
    const fired = await h.post('/playground/simulate', { trigger: 'call_started', campaignId: 'camp-2' });
    expect(fired.ok).toBe(true);
    await h.post('/playground/command', { channel: GENERAL, text: 'link-number' });
    const modal = await eventually(async () => {
      const m = (await h.state()).modal;
      return m?.title === 'Link phone number' ? m : undefined;
    });
    expect(modal.body).toContain('data-type="external_select"');
    // The menu lists the campaign the simulated call named, by name, once the bot's worker has recorded it.
    const offered = await eventually(async () => {
      const outcome = await h.post('/playground/options', {
        viewId: modal.id,
        blockId: 'catalog_campaign',
        actionId: 'value',
        value: 'front',
      });
      return outcome.options?.some((o) => o.value === 'camp-2') ? outcome.options : undefined;
    });
    expect(offered[0]).toEqual({ text: 'Front Desk Line (camp-2)', value: 'camp-2' });
    const outcome = await h.post('/playground/view-submission', {
      viewId: modal.id,
      values: { catalog_number: { value: 'pn-2' }, catalog_campaign: { value: 'camp-2' } },
    });
    expect(outcome.ok).toBe(true);
    await eventually(() => Promise.resolve(h.pg.platform.requests.find((r) => r.path === '/phone-number/link')));
    expect(h.pg.platform.requests.find((r) => r.path === '/phone-number/link')?.body).toEqual({
      phoneNumberId: 'pn-2',
      campaignId: 'camp-2',
    });
  });

  it('opens the Home tab through app_home_opened', async () => {
    await h.post('/playground/home', {});
    const home = await eventually(async () => (await h.state()).home);
    expect(home.html).toContain('bk-');
  });
});

describe('simulated platform events', () => {
  it('delivers a completed call through the real webhook route into #calls', async () => {
    const outcome = await h.post('/playground/simulate', {
      trigger: 'call_completed',
      campaignId: 'camp-1',
      customerName: 'Maria Lopez',
      text: 'Booked a cleaning for Tuesday.',
      // An answered call: its recording is long enough to tell a clip from the whole call.
      outcome: 'booked',
    });
    expect(outcome.ok).toBe(true);
    expect(outcome.simulation?.deliveries).toEqual([expect.objectContaining({ status: 200 })]);
    const card = await eventually(async () =>
      channel(await h.state(), CALLS).messages.find((m) => m.html.includes('Booked a cleaning for Tuesday.')),
    );
    expect(card.html).toContain('Maria Lopez');
    expect(card.authorKind).toBe('bot');

    // The simulator serves the call's recording; the bot copies it into the card's thread, where it plays.
    const recording = await eventually(async () =>
      channel(await h.state(), CALLS)
        .threads[card.ts]?.flatMap((m) => m.files)
        .find((f) => f.audio),
    );
    expect(recording).toMatchObject({ name: expect.stringMatching(/^recording-call-[0-9a-f]+\.wav$/), type: 'WAV' });
    const played = await request(`${h.base}/playground/files/${recording.id}`);
    expect(played.headers['content-type']).toBe('audio/wav');
    // It plays as long as the card says the call lasted.
    const durationMs = outcome.simulation?.event.durationMs as number;
    expect(durationMs).toBeGreaterThan(20_000);
    expect(wavSeconds(Buffer.from(await played.body.arrayBuffer()))).toBeCloseTo(durationMs / 1000, 2);
  });

  it('shows a customer message with hostile text as text, and creates a handoff session for it', async () => {
    const outcome = await h.post('/playground/simulate', {
      trigger: 'message_received',
      campaignId: 'camp-3',
      customerName: '<img src=x onerror=alert(1)>',
      customerNumber: '+14155550999',
      text: '<script>alert("hi")</script> can I move to Friday?',
    });
    expect(outcome.ok).toBe(true);
    const sessionId = outcome.simulation?.sessionId ?? '';
    expect(h.pg.platform.state.sessions[sessionId]).toEqual({ campaignId: 'camp-3', handoff: true });
    const state = await eventually(async () => {
      const s = await h.state();
      const support = channel(s, SUPPORT);
      const all = [...support.messages, ...Object.values(support.threads).flat()];
      return all.some((m) => m.html.includes('can I move to Friday?')) ? s : undefined;
    });
    const support = channel(state, SUPPORT);
    const html = [...support.messages, ...Object.values(support.threads).flat()].map((m) => m.html).join('\n');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).toContain('&#60;script&#62;');
  });

  it('says why nothing was delivered when no webhook is subscribed', async () => {
    const saved = h.pg.platform.state.subscriptions.splice(0);
    try {
      const outcome = await h.post('/playground/simulate', { trigger: 'call_started', campaignId: 'camp-2' });
      expect(outcome.ok).toBe(false);
      expect(outcome.error).toContain('/campaign subscribe camp-2');
    } finally {
      h.pg.platform.state.subscriptions.push(...saved);
    }
  });
});

describe('reports', () => {
  it('fires a channel’s scheduled digest, and pushes usage over a quota-alert threshold, from the Simulate panel', async () => {
    const none = await h.post('/playground/report', { digest: true });
    expect(none.ok).toBe(false);
    expect(none.error).toContain('/campaign digest daily');

    expect(await h.post('/playground/command', { channel: GENERAL, text: 'digest daily * at 09:00' })).toEqual({
      ok: true,
    });
    await eventually(async () =>
      channel(await h.state(), GENERAL).messages.find((m) => m.html.includes('now gets a digest')),
    );
    expect(await h.post('/playground/report', { digest: true })).toEqual({ ok: true });
    const card = await eventually(async () =>
      channel(await h.state(), GENERAL).messages.find((m) => m.html.includes('Daily digest')),
    );
    expect(card.ephemeral).toBe(false);
    // Two weeks of snapshots come with the playground: the first digest shows its period, not "no baseline yet".
    expect(card.html).toContain('in this period');
    expect(card.html).not.toContain('no baseline yet');
    // Its charts are in the card, drawn by the page as Slack draws them: the last 7 days against the week before.
    expect(card.html).toContain(
      '<figure class="bk-chart" data-chart-type="bar"><div class="bk-chart-title">Calls per day</div>',
    );
    expect(card.html).toContain('Last 7 days');
    expect(card.html).toContain('Week before');
    expect(channel(await h.state(), GENERAL).messages.flatMap((m) => m.files)).toEqual([]);

    expect(await h.post('/playground/command', { channel: GENERAL, text: 'quota-alert 90' })).toEqual({ ok: true });
    await eventually(async () =>
      channel(await h.state(), GENERAL).messages.find((m) => m.html.includes('gets a quota alert')),
    );
    expect(channel(await h.state(), GENERAL).messages.some((m) => m.html.includes('Usage crossed'))).toBe(false);
    expect(await h.post('/playground/report', { usagePercent: 95 })).toEqual({ ok: true });
    const alert = await eventually(async () =>
      channel(await h.state(), GENERAL).messages.find((m) => m.html.includes('Usage crossed 90%')),
    );
    expect(alert.html).toContain('95.0%');
  });
});

describe('files and shortcuts', () => {
  it('uploads a file, posts it, and runs the "Clone voice from files" shortcut on it', async () => {
    const up = await request(`${h.base}/playground/upload?name=sample.mp3&type=audio%2Fmpeg`, {
      method: 'POST',
      headers: { 'x-playground': '1', 'content-type': 'application/octet-stream' },
      body: Buffer.alloc(2048, 7),
    });
    const { file } = (await up.body.json()) as { file: { id: string } };
    expect(await h.post('/playground/message', { channel: GENERAL, text: 'my voice', files: [file.id] })).toEqual({
      ok: true,
    });
    const posted = await eventually(async () =>
      channel(await h.state(), GENERAL).messages.find((m) => m.files.some((f) => f.id === file.id)),
    );
    const download = await request(`${h.base}/playground/files/${file.id}`);
    expect(Buffer.from(await download.body.arrayBuffer())).toEqual(Buffer.alloc(2048, 7));
    await h.post('/playground/shortcut', { channel: GENERAL, ts: posted.ts, callbackId: 'clone_voice_from_message' });
    const modal = await eventually(async () => {
      const m = (await h.state()).modal;
      return m?.body.includes('sample.mp3') ? m : undefined;
    });
    await h.post('/playground/view-closed', { viewId: modal.id });
  });
});
