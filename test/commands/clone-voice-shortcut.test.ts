/**
 * The "Clone voice from files" message shortcut, over HTTP against the fakes: the form lists the message's
 * audio files, and on submit they are downloaded from the fake Slack and streamed to the fake platform.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { SlackFile } from '../fakes/slack.js';
import { ADMIN_ID } from '../support/harness.js';
import { CALLBACK, CAP, cloneVoiceBot, details } from './clone-voice-support.js';

const CHANNEL = 'C0GENERAL01';

const bot = cloneVoiceBot();
const { h, audio, answers, finalAnswer, fromMessage, submitForm } = bot;

describe('message shortcut “Clone voice from files”', () => {
  it('lists the message’s audio files, leaves out the others by name, and clones from them on submit', async () => {
    const a = audio('intro.mp3', 30_000);
    const b = audio('outro.wav', 20_000);
    const pdf = h.slack.addFile({ name: 'script.pdf', mimetype: 'application/pdf', data: randomBytes(100) });
    const msg = h.slack.addMessage({ channel: CHANNEL, text: 'Here are the samples', files: [a.file, pdf, b.file] });

    const ack = await fromMessage(msg, 'sc1');
    expect(ack.status).toBe(200);
    const opened = await h.slack.waitFor(() => h.slack.views(CALLBACK).at(-1));
    const shown = JSON.stringify(opened.view.blocks);
    expect(shown).toContain('intro.mp3');
    expect(shown).toContain('outro.wav');
    expect(shown).toContain('Not used: “script.pdf” is not an audio file');
    expect(shown).not.toContain('file_input');
    // The metadata is sealed (`{ d, s }`): the file ids travel in `d`, bound to this form by the seal.
    expect(JSON.parse(JSON.parse(opened.view.private_metadata).d)).toMatchObject({ fileIds: [a.file.id, b.file.id] });

    const res = await h.signer.viewSubmission({ callbackId: CALLBACK, userId: ADMIN_ID, values: details() });
    expect(res.body).toBe('');
    const done = await finalAnswer('sc1');
    expect(done).toContain('cloned the voice *Riley*');

    // The authoritative download URL comes from files.info.
    expect(
      h.slack
        .callsTo('files.info')
        .map((c) => c.args.file)
        .sort(),
    ).toEqual([a.file.id, b.file.id].sort());
    const form = h.platform.requests.find((r) => r.path === '/voices')!.multipart!;
    expect(form.files.map((f) => f.filename)).toEqual(['intro.mp3', 'outro.wav']);
    expect(form.files[0]!.data.equals(a.data)).toBe(true);
    expect(form.files[1]!.data.equals(b.data)).toBe(true);
    expect(form.fields).toMatchObject({ name: 'Riley', language: 'en-US', gender: 'female', provider: 'elevenlabs' });
    // The user's message is left alone.
    expect(h.slack.message(CHANNEL, msg.ts)?.text).toBe('Here are the samples');
  });

  it('answers with a refusal naming the files when none is usable', async () => {
    const pdf = h.slack.addFile({ name: 'script.pdf', mimetype: 'application/pdf', data: randomBytes(100) });
    const big = audio('huge.wav', CAP + 100);
    const msg = h.slack.addMessage({ channel: CHANNEL, text: 'files', files: [pdf, big.file] });
    await fromMessage(msg, 'sc2');
    const out = await h.slack.waitFor(() => answers('sc2')[0]);
    expect(out).toContain('“script.pdf” is not an audio file');
    expect(out).toContain('“huge.wav” is 64 KB, over the 64 KB limit');
    expect(h.slack.views(CALLBACK)).toHaveLength(0);
  });

  it('answers when the message has no files, or too many audio files', async () => {
    const plain = h.slack.addMessage({ channel: CHANNEL, text: 'no files here' });
    await fromMessage(plain, 'sc3');
    expect(await h.slack.waitFor(() => answers('sc3')[0])).toContain('This message has no files');

    const many = h.slack.addMessage({
      channel: CHANNEL,
      text: 'lots',
      files: Array.from({ length: 11 }, (_, i) => audio(`m${i}.mp3`, 100).file),
    });
    await fromMessage(many, 'sc4');
    expect(await h.slack.waitFor(() => answers('sc4')[0])).toContain('at most 10 audio files; 11 were given');
  });

  it('a submission whose file ids were swapped (metadata not sealed by the bot) is refused, and nothing is read or uploaded', async () => {
    const a = audio('mine.mp3', 1000);
    const other = audio('someone-elses.mp3', 1000);
    const msg = h.slack.addMessage({ channel: CHANNEL, text: 'samples', files: [a.file] });
    await fromMessage(msg, 'sc6');
    await h.slack.waitFor(() => h.slack.views(CALLBACK).at(-1));
    const forged = JSON.stringify({ fileIds: [other.file.id] });
    const res = await h.signer.viewSubmission({
      callbackId: CALLBACK,
      userId: ADMIN_ID,
      values: details(),
      privateMetadata: forged,
    });
    expect(JSON.stringify(res.json)).toContain('could not be verified');
    expect(h.slack.callsTo('files.info')).toHaveLength(0);
    expect(h.slack.downloads).toHaveLength(0);
    expect(h.platform.requests).toHaveLength(0);
  });

  it('a message file that is gone by submit time is reported, and nothing is uploaded', async () => {
    const a = audio('kept.mp3', 1000);
    const gone = { ...a.file, id: 'F0DELETED01', name: 'gone.mp3' } satisfies SlackFile;
    const msg = h.slack.addMessage({ channel: CHANNEL, text: 'samples', files: [a.file, gone] });
    h.slack.expectRefusal('files.info', 'file_not_found');
    await fromMessage(msg, 'sc5');
    await submitForm();
    expect(await finalAnswer('sc5')).toContain('The file F0DELETED01 is no longer in Slack');
    expect(h.platform.requests).toHaveLength(0);
  });
});
