/**
 * What the clone-voice test files share: one bot per file (a small per-file sample cap) on fresh fakes for
 * every test, the form's field values, audio files added to the Slack stand-in, and the command's answers.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, expect } from 'vitest';
import type { FakeSlackOptions, SlackMessage } from '../fakes/slack.js';
import type { SignedResult } from '../fakes/slack-signer.js';
import { ADMIN_ID, startHarness, type Harness } from '../support/harness.js';
import { startedForTests } from '../support/lifetime.js';

export const CALLBACK = 'clone_voice_modal';
const SHORTCUT = 'clone_voice_from_message';
export const CAP = 64 * 1024;

export const text = (value: string) => ({ value: { type: 'plain_text_input', value } });
export const upload = (files: unknown[]) => ({ value: { type: 'file_input', files } });
export const details = (extra: Record<string, Record<string, unknown>> = {}) => ({
  name: text('Riley'),
  language: text('en-US'),
  gender: text('female'),
  provider: text('elevenlabs'),
  ...extra,
});

export interface CloneVoiceBot {
  /** The file's bot (started before its first test; usable inside the tests). */
  readonly h: Harness;
  /** An audio file of `bytes` random bytes, added to the Slack stand-in. */
  audio: (
    name: string,
    bytes: number,
    mimetype?: string,
  ) => { file: ReturnType<Harness['slack']['addFile']>; data: Buffer };
  /** Every answer posted to the command's response_url `id`, as JSON text. */
  answers: (id: string) => string[];
  /** The answer that says how it ended (✅ or ❌). */
  finalAnswer: (id: string) => Promise<string>;
  /** “Clone voice from files” on `message`, by an admin unless `userId` says otherwise; answers go to `responseUrlId`. */
  fromMessage: (
    message: Pick<SlackMessage, 'ts' | 'channel'>,
    responseUrlId: string,
    userId?: string,
  ) => Promise<SignedResult>;
  /** Waits for the clone-voice form, then sends it as an admin with `values` (the voice's details by default). */
  submitForm: (values?: Record<string, Record<string, unknown>>) => Promise<void>;
}

/** Registers the file's hooks: one bot for the file, fakes reset before each test, no stand-in errors after. */
export function cloneVoiceBot(slack: Pick<FakeSlackOptions, 'fileDownloads'> = {}): CloneVoiceBot {
  const bot: CloneVoiceBot = {
    h: startedForTests(() => startHarness({ bot: { voiceSampleMaxBytes: CAP }, slack })),
    fromMessage(message, responseUrlId, userId = ADMIN_ID) {
      return bot.h.signer.shortcut({
        callbackId: SHORTCUT,
        type: 'message_action',
        message: { ts: message.ts },
        channelId: message.channel,
        userId,
        responseUrlId,
      });
    },
    async submitForm(values = details()) {
      await bot.h.slack.waitFor(() => bot.h.slack.views(CALLBACK).at(-1));
      await bot.h.signer.viewSubmission({ callbackId: CALLBACK, userId: ADMIN_ID, values });
    },
    audio: (name, bytes, mimetype = name.endsWith('.wav') ? 'audio/wav' : 'audio/mpeg') => {
      const data = randomBytes(bytes);
      return { file: bot.h.slack.addFile({ name, mimetype, data }), data };
    },
    answers: (id) => bot.h.slack.responses.filter((r) => r.id === id).map((r) => JSON.stringify(r.body)),
    finalAnswer: (id) =>
      bot.h.slack.waitFor(() => bot.answers(id).find((a) => a.includes('✅') || a.includes('❌')), 10_000),
  };
  beforeEach(() => {
    bot.h.platform.reset();
    bot.h.platform.resetState();
    bot.h.slack.reset();
  });
  afterEach(() => {
    expect(bot.h.slack.serverErrors).toEqual([]);
  });
  return bot;
}
