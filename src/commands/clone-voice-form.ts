/**
 * The clone-voice modal: one form for both ways in. From `/campaign clone-voice` it has an upload field;
 * from the message shortcut it lists the message's audio files instead (an upload field cannot be
 * prefilled) and carries their ids in `private_metadata`.
 */
import type { ViewOutput } from '@slack/bolt';
import type { KnownBlock } from '@slack/types';
import type { ModalView } from '@slack/types';
import { z } from 'zod';
import { context, escapeMrkdwn, section } from '../slack/blocks.js';
import type { Config } from '../config.js';
import { checkboxes, fileInput, modal, readChecked, readText, textInput } from '../slack/modals.js';
import { metadataKey, openMetadata, sealMetadata } from '../slack/sealed-metadata.js';
import { fileLabel, formatBytes, type SlackFileObject } from '../slack/file-object.js';
import { AUDIO_FILETYPES, MAX_VOICE_FILES } from './clone-voice-files.js';

export const CLONE_VOICE_CALLBACK_ID = 'clone_voice_modal';
export const CLONE_VOICE_TITLE = 'Clone voice';

export const FIELDS = {
  files: 'files',
  name: 'name',
  language: 'language',
  gender: 'gender',
  provider: 'provider',
  description: 'description',
  removeNoise: 'remove_noise',
} as const;

const REMOVE_NOISE = 'remove_background_noise';

const metadataSchema = z.object({
  responseUrl: z.string().url().optional(),
  /** Set when opened from a message: the files to clone from (ids only; `files.info` is asked on submit). */
  fileIds: z.array(z.string().min(1).max(40)).min(1).max(MAX_VOICE_FILES).optional(),
});
export type CloneVoiceMetadata = z.infer<typeof metadataSchema>;

/** Sealed like every form's (`onFormSubmit` refuses one the bot did not seal), so the file ids can't be swapped. */
export function sealCloneVoiceMetadata(config: Config, teamId: string, metadata: CloneVoiceMetadata): string {
  return sealMetadata(metadataKey(config), { callbackId: CLONE_VOICE_CALLBACK_ID, teamId }, metadata);
}

export function openCloneVoiceMetadata(config: Config, teamId: string, view: ViewOutput): CloneVoiceMetadata {
  return (
    openMetadata(
      metadataKey(config),
      { callbackId: CLONE_VOICE_CALLBACK_ID, teamId },
      view.private_metadata,
      metadataSchema,
    ) ?? {}
  );
}

export interface CloneVoiceForm {
  name: string | undefined;
  language: string | undefined;
  gender: string | undefined;
  provider: string | undefined;
  description: string | undefined;
  removeBackgroundNoise: boolean;
}

export function readCloneVoiceForm(view: ViewOutput): CloneVoiceForm {
  return {
    name: readText(view, FIELDS.name),
    language: readText(view, FIELDS.language),
    gender: readText(view, FIELDS.gender),
    provider: readText(view, FIELDS.provider),
    description: readText(view, FIELDS.description),
    removeBackgroundNoise: readChecked(view, FIELDS.removeNoise).includes(REMOVE_NOISE),
  };
}

/** The modal. `fromMessage` lists those files (and the ones left out, with why) instead of the upload field. */
export function cloneVoiceModal(opts: {
  maxBytes: number;
  /** From `sealCloneVoiceMetadata`. */
  privateMetadata: string;
  fromMessage?: { files: SlackFileObject[]; skipped: string[] };
}): ModalView {
  const limit = `Up to ${MAX_VOICE_FILES} audio files (MP3, WAV, M4A, OGG, FLAC…), each at most ${formatBytes(opts.maxBytes)}.`;
  const samples: KnownBlock[] = opts.fromMessage
    ? [
        section(
          `*Audio samples from the message* (${opts.fromMessage.files.length}):\n` +
            opts.fromMessage.files
              .map((f) => `• ${escapeMrkdwn(fileLabel(f))}${f.size !== undefined ? ` — ${formatBytes(f.size)}` : ''}`)
              .join('\n'),
        ),
        ...(opts.fromMessage.skipped.length > 0
          ? [context(`Not used: ${opts.fromMessage.skipped.map(escapeMrkdwn).join(' ')}`)]
          : []),
      ]
    : [
        fileInput(FIELDS.files, 'Audio samples', {
          filetypes: AUDIO_FILETYPES,
          maxFiles: MAX_VOICE_FILES,
          hint: limit,
        }),
      ];

  return modal({
    callbackId: CLONE_VOICE_CALLBACK_ID,
    title: CLONE_VOICE_TITLE,
    submit: 'Clone voice',
    privateMetadata: opts.privateMetadata,
    blocks: [
      ...samples,
      textInput(FIELDS.name, 'Voice name', { placeholder: 'e.g. Riley — front desk', maxLength: 200 }),
      textInput(FIELDS.language, 'Language', { placeholder: 'e.g. en-US', maxLength: 50 }),
      // The platform's allowed values for gender and provider are not documented yet, so both are free
      // text and the platform's own refusal (which names the allowed values) comes back to the user.
      textInput(FIELDS.gender, 'Gender', {
        placeholder: 'e.g. female',
        hint: 'As the platform names it.',
        maxLength: 50,
      }),
      textInput(FIELDS.provider, 'Provider', {
        placeholder: 'e.g. elevenlabs',
        hint: 'The voice provider, as the platform names it.',
        maxLength: 100,
      }),
      textInput(FIELDS.description, 'Description', { optional: true, multiline: true, maxLength: 1000 }),
      checkboxes(
        FIELDS.removeNoise,
        'Audio cleanup',
        [{ value: REMOVE_NOISE, text: 'Remove background noise', description: 'Clean the samples before cloning.' }],
        {
          optional: true,
        },
      ),
    ],
  });
}
