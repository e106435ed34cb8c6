/**
 * Which Slack files `/campaign clone-voice` accepts as voice samples, and how a refusal names the file.
 *
 * Slack file objects arrive from a signed upload field, a message shortcut's message or `files.info`
 * (narrowed in src/slack/file-object.ts). The checks run before anything is downloaded, so a wrong file is
 * refused in the form (or in the shortcut's answer) rather than after a long upload.
 */
import { isSlackFileUrl } from '../slack/file-download.js';
import { downloadUrl, fileLabel, formatBytes, type SlackFileObject } from '../slack/file-object.js';

/** Slack's `file_input` takes at most 10 files; the platform's own limit is not documented. */
export const MAX_VOICE_FILES = 10;
/**
 * Per-file cap on a voice sample (bytes), unless the bot is built with another (`voiceSampleMaxBytes`): Slack's
 * `file_input` takes files of at most 10 MB, so the modal promises that and message files are held to it too.
 */
export const DEFAULT_VOICE_SAMPLE_MAX_BYTES = 10 * 1024 * 1024;

/** Audio extensions offered in the upload picker (it only filters; the checks below decide). */
export const AUDIO_FILETYPES = [
  'mp3',
  'wav',
  'm4a',
  'ogg',
  'oga',
  'opus',
  'flac',
  'aac',
  'aiff',
  'aif',
  'wma',
  'amr',
  'webm',
] as const;
/**
 * Slack `filetype`s that are audio whatever the mimetype says (Slack sometimes reports octet-stream); not
 * webm, which may as well be a video.
 */
const AUDIO_SLACK_FILETYPES = new Set<string>(AUDIO_FILETYPES.filter((type) => type !== 'webm'));

function isAudio(file: SlackFileObject): boolean {
  const mime = (file.mimetype ?? '').toLowerCase();
  if (mime.startsWith('audio/')) return true;
  return AUDIO_SLACK_FILETYPES.has((file.filetype ?? '').toLowerCase());
}

/** The content type the sample is uploaded with. */
export function audioContentType(file: SlackFileObject): string {
  const mime = (file.mimetype ?? '').toLowerCase();
  return mime.startsWith('audio/') ? mime : 'application/octet-stream';
}

export interface SampleLimits {
  maxBytes: number;
  /** Slack's file origin (see `slackFileOrigin`). */
  fileOrigin: string;
}

/**
 * Why this file cannot be a voice sample, as a plain sentence naming it (fit for a modal field error,
 * which Slack shows as plain text); undefined when it can. Checks what the file object says; the download
 * checks the size and host again.
 */
export function sampleProblem(file: SlackFileObject, limits: SampleLimits): string | undefined {
  const label = `“${fileLabel(file)}”`;
  if (file.mode === 'tombstone') return `${label} was deleted from Slack.`;
  if (!isAudio(file))
    return `${label} is not an audio file${file.filetype ? ` (${file.filetype})` : ''} — use MP3, WAV, M4A, OGG or FLAC samples.`;
  if (file.size !== undefined && file.size > limits.maxBytes) {
    return `${label} is ${formatBytes(file.size)}, over the ${formatBytes(limits.maxBytes)} limit for a voice sample — trim it and try again.`;
  }
  const url = downloadUrl(file);
  if (url !== undefined && !isSlackFileUrl(url, limits.fileOrigin)) {
    return `${label} is not stored on Slack's file service (its download link points elsewhere), so the bot will not fetch it — upload the audio file itself.`;
  }
  return undefined;
}

export function tooManyFiles(count: number): string {
  return `A voice is cloned from at most ${MAX_VOICE_FILES} audio files; ${count} were given — pick the best ${MAX_VOICE_FILES}.`;
}
