/**
 * `/campaign clone-voice`, over HTTP against the fakes: files are downloaded from the fake Slack with the
 * bot token and streamed to the fake platform, which records the multipart parts byte for byte. The
 * "Clone voice from files" message shortcut's own tests are in clone-voice-shortcut.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ADMIN_ID, MEMBER_ID, TEAM_ID, startHarness } from '../support/harness.js';
import { submitSlowForm } from '../support/forms.js';
import { CALLBACK, CAP, cloneVoiceBot, details, text, upload } from './clone-voice-support.js';

const CHANNEL = 'C0GENERAL01';

const bot = cloneVoiceBot();
const { h, audio, answers, finalAnswer, fromMessage } = bot;

let seq = 0;
async function openFromCommand(userId = ADMIN_ID): Promise<string> {
  const id = `cv${++seq}`;
  const before = h.slack.views(CALLBACK).length;
  const ack = await h.signer.command({ text: 'clone-voice', userId, responseUrlId: id });
  expect(ack.status).toBe(200);
  await h.slack.waitFor(() => h.slack.views(CALLBACK).length > before);
  return id;
}

describe('/campaign clone-voice', () => {
  it('streams two files to POST /voices byte for byte with the text fields, then reports the voice', async () => {
    const a = audio('sample-a.mp3', 40_000);
    const b = audio('sample b.wav', 50_000);
    const id = await openFromCommand();

    const modal = h.slack.views(CALLBACK).at(-1)!.view;
    const element = (
      modal.blocks as Array<{ block_id?: string; element?: { type: string; max_files?: number; filetypes?: string[] } }>
    ).find((bl) => bl.block_id === 'files')?.element;
    expect(element).toMatchObject({ type: 'file_input', max_files: 10 });
    expect(element?.filetypes).toContain('mp3');

    const res = await h.signer.viewSubmission({
      callbackId: CALLBACK,
      userId: ADMIN_ID,
      values: details({
        files: upload([a.file, b.file]),
        description: text('Warm, friendly front-desk voice'),
        remove_noise: {
          value: {
            type: 'checkboxes',
            selected_options: [
              { text: { type: 'plain_text', text: 'Remove background noise' }, value: 'remove_background_noise' },
            ],
          },
        },
      }),
    });
    expect(res.status).toBe(200);
    expect(res.body).toBe(''); // acked at once: the modal closes

    const done = await finalAnswer(id);
    expect(answers(id)[0]).toContain('Cloning the voice *Riley* from 2 audio files');
    expect(done).toContain('cloned the voice *Riley*');
    expect(done).toContain('en-US');
    expect(done).toContain('elevenlabs');
    expect(done).toContain('https://cdn.example.com/voices/voice-1/preview.mp3|Listen to the preview');

    const reqs = h.platform.requests.filter((r) => r.path === '/voices');
    expect(reqs).toHaveLength(1);
    const form = reqs[0]!.multipart!;
    expect(form.fields).toEqual({
      name: 'Riley',
      language: 'en-US',
      gender: 'female',
      provider: 'elevenlabs',
      description: 'Warm, friendly front-desk voice',
      removeBackgroundNoise: 'true',
    });
    expect(form.files.map((f) => [f.field, f.filename, f.contentType])).toEqual([
      ['files', 'sample-a.mp3', 'audio/mpeg'],
      ['files', 'sample b.wav', 'audio/wav'],
    ]);
    expect(form.files[0]!.data.equals(a.data)).toBe(true);
    expect(form.files[1]!.data.equals(b.data)).toBe(true);
    // Downloaded with the bot token, each once.
    expect(h.slack.downloads.map((d) => [d.fileId, d.authorized, d.status])).toEqual([
      [a.file.id, true, 200],
      [b.file.id, true, 200],
    ]);
    expect(h.logs()).not.toContain(h.slack.botToken);
  });

  it('sends removeBackgroundNoise=false and no description when left empty', async () => {
    const a = audio('one.mp3', 1000);
    const id = await openFromCommand();
    await h.signer.viewSubmission({
      callbackId: CALLBACK,
      userId: ADMIN_ID,
      values: details({ files: upload([a.file]) }),
    });
    await finalAnswer(id);
    expect(h.platform.requests.find((r) => r.path === '/voices')?.multipart?.fields).toEqual({
      name: 'Riley',
      language: 'en-US',
      gender: 'female',
      provider: 'elevenlabs',
      removeBackgroundNoise: 'false',
    });
  });

  it('refuses a non-audio file on the upload field, naming it, and downloads nothing', async () => {
    const a = audio('ok.mp3', 1000);
    const pdf = h.slack.addFile({ name: 'notes.pdf', mimetype: 'application/pdf', data: randomBytes(500) });
    await openFromCommand();
    const res = await h.signer.viewSubmission({
      callbackId: CALLBACK,
      userId: ADMIN_ID,
      values: details({ files: upload([a.file, pdf]) }),
    });
    expect(res.json).toEqual({
      response_action: 'errors',
      errors: { files: expect.stringContaining('“notes.pdf” is not an audio file') },
    });
    expect(h.slack.downloads).toHaveLength(0);
    expect(h.platform.requests).toHaveLength(0);
  });

  it('refuses an oversize file on the upload field, naming it and the limit', async () => {
    const big = audio('long-take.wav', CAP + 1);
    await openFromCommand();
    const res = await h.signer.viewSubmission({
      callbackId: CALLBACK,
      userId: ADMIN_ID,
      values: details({ files: upload([big.file]) }),
    });
    expect(res.json).toEqual({
      response_action: 'errors',
      errors: { files: expect.stringMatching(/“long-take\.wav” is 64 KB, over the 64 KB limit/) },
    });
    expect(h.slack.downloads).toHaveLength(0);
  });

  it('stops a download past the cap even when the file object understated its size', async () => {
    const big = audio('sneaky.mp3', CAP * 2);
    const id = await openFromCommand();
    const res = await h.signer.viewSubmission({
      callbackId: CALLBACK,
      userId: ADMIN_ID,
      values: details({ files: upload([{ ...big.file, size: 10 }]) }),
    });
    expect(res.body).toBe('');
    const done = await finalAnswer(id);
    expect(done).toContain('“sneaky.mp3” is bigger than the 64 KB limit for a voice sample');
    expect(h.platform.state.voices).toHaveLength(0);
  });

  it('refuses a download link that is not on Slack’s file host, without fetching it', async () => {
    let hits = 0;
    const elsewhere: Server = createServer((_req, res) => {
      hits += 1;
      res.end('audio');
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = elsewhere.address() as AddressInfo;
      const a = audio('voice.mp3', 1000);
      const forged = {
        ...a.file,
        url_private_download: `http://127.0.0.1:${port}/voice.mp3`,
        url_private: `http://127.0.0.1:${port}/voice.mp3`,
      };
      await openFromCommand();
      const res = await h.signer.viewSubmission({
        callbackId: CALLBACK,
        userId: ADMIN_ID,
        values: details({ files: upload([forged]) }),
      });
      expect(res.json).toEqual({
        response_action: 'errors',
        errors: { files: expect.stringContaining('“voice.mp3” is not stored on Slack') },
      });
      expect(hits).toBe(0);
      expect(h.platform.requests).toHaveLength(0);
    } finally {
      await new Promise<void>((resolve) => elsewhere.close(() => resolve()));
    }
  });

  it('refuses more than 10 files', async () => {
    const files = Array.from({ length: 11 }, (_, i) => audio(`s${i}.mp3`, 100).file);
    await openFromCommand();
    const res = await h.signer.viewSubmission({
      callbackId: CALLBACK,
      userId: ADMIN_ID,
      values: details({ files: upload(files) }),
    });
    expect(res.json).toEqual({
      response_action: 'errors',
      errors: { files: expect.stringContaining('at most 10 audio files; 11 were given') },
    });
  });

  it('platform 400: one sentence with the platform’s reason, the request id in a context line', async () => {
    const a = audio('a.mp3', 1000);
    h.platform.inject({
      path: '/voices',
      status: 400,
      message: 'gender must be one of: female, male, neutral',
      times: 1,
    });
    const id = await openFromCommand();
    await h.signer.viewSubmission({
      callbackId: CALLBACK,
      userId: ADMIN_ID,
      values: details({ files: upload([a.file]) }),
    });
    const done = await finalAnswer(id);
    expect(done).toContain(
      '"text":"❌ The platform refused to clone the voice: “gender must be one of: female, male, neutral” — change that in the form and try again."',
    );
    expect(done).toMatch(
      /"type":"context","elements":\[\{"type":"mrkdwn","text":"HTTP 400 · code BAD_REQUEST · request id req_\d+"/,
    );
  });

  it('platform 500 and a dropped connection each get one sentence', async () => {
    const a = audio('a.mp3', 1000);
    h.platform.inject({ path: '/voices', status: 500, times: 1 });
    let id = await openFromCommand();
    await h.signer.viewSubmission({
      callbackId: CALLBACK,
      userId: ADMIN_ID,
      values: details({ files: upload([a.file]) }),
    });
    const failed = await finalAnswer(id);
    expect(failed).toContain('"text":"❌ The platform had an internal error — try again in a minute;');
    expect(failed).toMatch(
      /"type":"context","elements":\[\{"type":"mrkdwn","text":"HTTP 500 · code INTERNAL_SERVER_ERROR · request id req_\d+"/,
    );

    h.platform.inject({ path: '/voices', reset: true, times: 1 });
    id = await openFromCommand();
    await h.signer.viewSubmission({
      callbackId: CALLBACK,
      userId: ADMIN_ID,
      values: details({ files: upload([a.file]) }),
    });
    expect(await finalAnswer(id)).toContain('could not be reached');
  });

  it('Slack refusing a download (403) names the file', async () => {
    const ghost = { ...audio('ghost.mp3', 1000).file };
    ghost.url_private_download = `${h.slack.baseUrl}/files-pri/${h.slack.teamId}-F0GONE00001/download/ghost.mp3`;
    const id = await openFromCommand();
    await h.signer.viewSubmission({
      callbackId: CALLBACK,
      userId: ADMIN_ID,
      values: details({ files: upload([ghost]) }),
    });
    const refused = await finalAnswer(id);
    expect(refused).toContain('"text":"❌ Slack refused the bot access to “ghost.mp3” — share the file where');
    expect(refused).toContain('"type":"context","elements":[{"type":"mrkdwn","text":"Slack’s file service: HTTP 403"');
    expect(h.platform.state.voices).toHaveLength(0);
  });

  it('refuses non-admins: the command, the shortcut and a submission', async () => {
    const id = `na${++seq}`;
    await h.signer.command({ text: 'clone-voice', userId: MEMBER_ID, responseUrlId: id });
    const refused = await h.slack.waitFor(() => answers(id)[0]);
    expect(refused).toContain('Only Slack workspace admins and owners');

    const a = audio('a.mp3', 1000);
    const msg = h.slack.addMessage({ channel: CHANNEL, text: 'samples', files: [a.file] });
    await fromMessage(msg, 'na-sc', MEMBER_ID);
    expect(await h.slack.waitFor(() => answers('na-sc')[0])).toContain('can clone voices');

    const res = await h.signer.viewSubmission({ callbackId: CALLBACK, userId: MEMBER_ID, values: {} });
    expect(JSON.stringify(res.json)).toContain('can clone voices');
    expect(h.slack.views(CALLBACK)).toHaveLength(0);
    expect(h.slack.downloads).toHaveLength(0);
    expect(h.platform.requests).toHaveLength(0);
  });
});

describe('a submission while users.info is rate limited', () => {
  it('is answered within Slack’s 3 s with the working view, then updated, and the voice is still cloned', async () => {
    const a = audio('patient.mp3', 2000);
    const id = await openFromCommand();
    const viewId = h.slack.views(CALLBACK).at(-1)!.view.id;
    // The admin verdict cached when the modal opened has expired by the time the form is sent.
    await h.bot.deps.store.cache.forget(TEAM_ID, `admin:${ADMIN_ID}`);
    // Slack answers 429 + Retry-After and the Web API client waits it out before asking again
    // (https://api.slack.com/apis/rate-limits), longer than a view submission may take to be answered
    // (https://api.slack.com/surfaces/modals#interactions: "within 3 seconds").
    h.slack.rateLimit({ method: 'users.info', retryAfterSec: 3 });
    await submitSlowForm(h, viewId, {
      callbackId: CALLBACK,
      userId: ADMIN_ID,
      values: details({ files: upload([a.file]) }),
    });
    // Once the check passes, the modal says the cloning has started (not "Done": the voice is not there yet).
    const shown = JSON.stringify(h.slack.view(viewId)?.view.blocks);
    expect(shown).toContain('Cloning has started');
    expect(shown).not.toContain('Done');

    const done = await finalAnswer(id);
    expect(done).toContain('cloned the voice *Riley*');
    expect(h.slack.responses.filter((r) => r.id === id).every((r) => r.status === 200)).toBe(true);
    const form = h.platform.requests.find((r) => r.path === '/voices')?.multipart;
    expect(form?.files.map((f) => f.filename)).toEqual(['patient.mp3']);
    expect(form?.files[0]!.data.equals(a.data)).toBe(true);
  }, 15_000);

  it('an admin demoted while the modal was open is refused in the modal after a slow check, and nothing is cloned', async () => {
    const a = audio('late.mp3', 1000);
    const id = await openFromCommand();
    const viewId = h.slack.views(CALLBACK).at(-1)!.view.id;
    const admin = h.slack.user(ADMIN_ID)!;
    h.slack.addUser({ ...admin, is_admin: false });
    try {
      await h.bot.deps.store.cache.forget(TEAM_ID, `admin:${ADMIN_ID}`);
      h.slack.rateLimit({ method: 'users.info', retryAfterSec: 3, times: 1 });
      await submitSlowForm(h, viewId, {
        callbackId: CALLBACK,
        userId: ADMIN_ID,
        values: details({ files: upload([a.file]) }),
      });
      expect(JSON.stringify(h.slack.view(viewId)?.view.blocks)).toContain('can clone voices');
      expect(answers(id)).toEqual([]);
      expect(h.slack.downloads).toHaveLength(0);
      expect(h.platform.requests).toHaveLength(0);
    } finally {
      h.slack.addUser(admin);
      await h.bot.deps.store.cache.forget(TEAM_ID, `admin:${ADMIN_ID}`); // the refusal was cached
    }
  }, 15_000);
});

// Slack's file_input takes files of at most 10 MB ("There is a 10MB file size limit"):
// https://docs.slack.dev/reference/block-kit/block-elements/file-input-element
describe('the default size cap: Slack’s 10 MB upload limit', () => {
  const TEN_MB = 10 * 1024 * 1024;

  it('is promised in the modal, refuses a bigger file by name, and stops a download past it', async () => {
    const d = await startHarness();
    try {
      await d.signer.command({ text: 'clone-voice', userId: ADMIN_ID, responseUrlId: 'cap-open' });
      const opened = await d.slack.waitFor(() => d.slack.views(CALLBACK).at(-1));
      const files = (opened.view.blocks as Array<{ block_id?: string; hint?: { text: string } }>).find(
        (b) => b.block_id === 'files',
      );
      expect(files?.hint?.text).toContain('each at most 10 MB');
      expect(d.slack.callsTo('views.open').at(-1)?.response.ok).toBe(true);

      const big = d.slack.addFile({ name: 'long-take.wav', mimetype: 'audio/wav', data: randomBytes(TEN_MB + 1) });
      const refused = await d.signer.viewSubmission({
        callbackId: CALLBACK,
        userId: ADMIN_ID,
        values: details({ files: upload([big]) }),
      });
      expect(refused.json).toEqual({
        response_action: 'errors',
        errors: { files: expect.stringContaining('“long-take.wav” is 10 MB, over the 10 MB limit') },
      });

      // A file object that understates its size is stopped while streaming, at the same cap.
      await d.signer.command({ text: 'clone-voice', userId: ADMIN_ID, responseUrlId: 'cap-stream' });
      await d.slack.waitFor(() => d.slack.views(CALLBACK).length >= 2);
      const sneaky = d.slack.addFile({
        name: 'sneaky.wav',
        mimetype: 'audio/wav',
        data: randomBytes(TEN_MB + 64 * 1024),
      });
      await d.signer.viewSubmission({
        callbackId: CALLBACK,
        userId: ADMIN_ID,
        values: details({ files: upload([{ ...sneaky, size: 1000 }]) }),
      });
      const done = await d.slack.waitFor(
        () =>
          d.slack.responses
            .filter((r) => r.id === 'cap-stream')
            .map((r) => JSON.stringify(r.body))
            .find((a) => a.includes('❌')),
        10_000,
      );
      expect(done).toContain('“sneaky.wav” is bigger than the 10 MB limit for a voice sample');
      expect(d.platform.state.voices).toHaveLength(0);
    } finally {
      await d.close();
    }
  });
});

describe('a workspace not connected to the platform', () => {
  it('is told so at once instead of getting the form', async () => {
    const bare = await startHarness({ defaultApiKey: false });
    try {
      await bare.signer.command({ text: 'clone-voice', userId: ADMIN_ID, responseUrlId: 'nc' });
      const out = await bare.slack.waitFor(() => bare.slack.responses.find((r) => r.id === 'nc'));
      expect(JSON.stringify(out.body)).toContain('not connected to the campaign platform yet');
      expect(bare.slack.views(CALLBACK)).toHaveLength(0);
    } finally {
      await bare.close();
    }
  });
});
