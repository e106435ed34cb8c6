/**
 * `/campaign clone-voice` (admins) and the "Clone voice from files" shortcut: a modal, then the samples are
 * streamed from Slack into POST /voices. The form is answered once checked (cloning outlasts Slack's 3 s):
 * refusals land on the form, the result follows through the response_url.
 */
import { adminsOnly } from '../app/admin-gate.js';
import type { AllMiddlewareArgs, App, MessageShortcut, SlackShortcutMiddlewareArgs } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { ApiTimeoutError, BadRequestError, PlatformBusyError, type TurnListener, type Voice } from '../api/index.js';
import type { Deps } from '../app/deps.js';
import { NotConnectedError } from '../app/platform-access.js';
import type { Logger } from '../logger.js';
import { escapeMrkdwn, fields, message, section, truncate, type MessagePayload } from '../slack/blocks.js';
import { SlackFileError, slackFileOrigin, slackFileStream } from '../slack/file-download.js';
import { readFiles } from '../slack/modals.js';
import { slackErrorCode } from '../slack/post.js';
import { isFileGone } from '../delivery/slack-errors.js';
import { postToResponseUrl } from '../slack/response-url.js';
import { noticeView } from '../slack/submission.js';
import {
  downloadUrl,
  fileLabel,
  formatBytes,
  parseSlackFiles,
  slackFileSchema,
  type SlackFileObject,
} from '../slack/file-object.js';
import {
  DEFAULT_VOICE_SAMPLE_MAX_BYTES,
  MAX_VOICE_FILES,
  audioContentType,
  sampleProblem,
  tooManyFiles,
  type SampleLimits,
} from './clone-voice-files.js';
import {
  CLONE_VOICE_CALLBACK_ID,
  CLONE_VOICE_TITLE,
  FIELDS,
  cloneVoiceModal,
  readCloneVoiceForm,
  openCloneVoiceMetadata,
  sealCloneVoiceMetadata,
  type CloneVoiceForm,
} from './clone-voice-form.js';
import {
  describeFailure,
  failureMessage,
  failureOf,
  logFailure,
  ourFault,
  upstreamRef,
  type Failure,
} from '../app/failure.js';
import { onFormSubmit, type FormResult, type FormSubmission } from './forms.js';
import type { Subcommand } from './types.js';

/** The message shortcut's callback_id (manifest.yml). */
export const CLONE_VOICE_SHORTCUT_ID = 'clone_voice_from_message';

const ADMIN_ONLY = adminsOnly('clone voices');
const NO_BOT_TOKEN =
  'This app has no Slack bot token for this workspace, so it cannot download the audio files — ask a Slack admin to reinstall the app, then try again.';
const CLONING_STARTED =
  '⏳ Cloning has started — the result will appear where you ran the command or shortcut. You can close this window.';

export const cloneVoice: Subcommand = {
  name: 'clone-voice',
  usage: 'clone-voice',
  summary: 'clone a voice from audio samples (also: the “Clone voice from files” message shortcut)',
  admin: true,
  args: { min: 0, max: 0 },
  async run(ctx) {
    // No bot-token check here: Bolt authorized this very command, so the workspace's installation exists
    // (and CommandContext carries no enterprise id for an org-wide install). Submission checks it.
    if (!(await ctx.deps.platform.apiKeyFor(ctx.teamId))) {
      await ctx.tell(describeFailure(new NotConnectedError(ctx.teamId)));
      return;
    }
    await ctx.client.views.open({
      trigger_id: ctx.triggerId,
      view: cloneVoiceModal({
        maxBytes: maxBytesOf(ctx.deps),
        privateMetadata: sealCloneVoiceMetadata(ctx.deps.config, ctx.teamId, { responseUrl: ctx.responseUrl }),
      }),
    });
  },
  register(app: App, deps: Deps) {
    onFormSubmit(app, deps, {
      callbackId: CLONE_VOICE_CALLBACK_ID,
      title: CLONE_VOICE_TITLE,
      adminOnly: ADMIN_ONLY,
      handle: (s) => checkSubmission(deps, s),
    });
    app.shortcut<MessageShortcut>(CLONE_VOICE_SHORTCUT_ID, (args) => onShortcut(deps, args));
  },
};

function maxBytesOf(deps: Deps): number {
  return deps.voiceSampleMaxBytes ?? DEFAULT_VOICE_SAMPLE_MAX_BYTES;
}

function limitsOf(deps: Deps): SampleLimits {
  return { maxBytes: maxBytesOf(deps), fileOrigin: slackFileOrigin(deps.config.slack) };
}

/** What stops cloning before the form is shown: no bot token to download with, or no platform key. */
async function whyNot(deps: Deps, teamId: string, enterpriseId: string | undefined): Promise<string | undefined> {
  if (!(await deps.tokens.botToken(teamId, enterpriseId))) return NO_BOT_TOKEN;
  if (!(await deps.platform.apiKeyFor(teamId))) return describeFailure(new NotConnectedError(teamId));
  return undefined;
}

// ------------------------------------------------------------------------------------------ shortcut

async function onShortcut(
  deps: Deps,
  { ack, shortcut, client }: SlackShortcutMiddlewareArgs<MessageShortcut> & AllMiddlewareArgs,
): Promise<void> {
  await ack();
  const teamId = shortcut.team?.id ?? shortcut.user.team_id ?? '';
  const userId = shortcut.user.id;
  const logger = deps.logger.child({ team: teamId, user: userId, shortcut: CLONE_VOICE_SHORTCUT_ID });
  const answer = async (text: string) => {
    await postToResponseUrl(
      shortcut.response_url,
      { response_type: 'ephemeral', replace_original: false, text },
      logger,
      deps.config.slack,
    );
  };
  try {
    if (!(await deps.admins.isAdmin(client, teamId, userId))) {
      await answer(ADMIN_ONLY);
      return;
    }
    const blocker = await whyNot(deps, teamId, shortcut.enterprise?.id ?? shortcut.team?.enterprise_id);
    if (blocker) {
      await answer(blocker);
      return;
    }
    const { files, malformed } = parseSlackFiles(shortcut.message.files);
    if (files.length === 0) {
      await answer(
        malformed > 0
          ? 'Slack sent this message’s files in a form this app could not read — run `/campaign clone-voice` and upload them instead.'
          : 'This message has no files — use the shortcut on a message with audio files, or run `/campaign clone-voice` to upload them.',
      );
      return;
    }
    const limits = limitsOf(deps);
    const usable: SlackFileObject[] = [];
    const skipped: string[] = [];
    for (const file of files) {
      const problem = sampleProblem(file, limits);
      if (problem) skipped.push(problem);
      else usable.push(file);
    }
    if (usable.length === 0) {
      await answer(escapeMrkdwn(`None of this message’s files can be a voice sample: ${skipped.join(' ')}`));
      return;
    }
    if (usable.length > MAX_VOICE_FILES) {
      await answer(tooManyFiles(usable.length));
      return;
    }
    await client.views.open({
      trigger_id: shortcut.trigger_id,
      view: cloneVoiceModal({
        maxBytes: limits.maxBytes,
        privateMetadata: sealCloneVoiceMetadata(deps.config, teamId, {
          responseUrl: shortcut.response_url,
          fileIds: usable.map((f) => f.id),
        }),
        fromMessage: { files: usable, skipped },
      }),
    });
    logger.info({ files: usable.length, skipped: skipped.length }, 'clone-voice modal opened from a message');
  } catch (err) {
    logger.warn({ err }, 'clone-voice shortcut failed');
    await answer(ourFault());
  }
}

// ---------------------------------------------------------------------------------------- submission

/** A sample to clone from: a file object Slack sent in the submission, or a message file's id to look up. */
type Sample = { file: SlackFileObject } | { id: string };

/**
 * The checks a submission gets before the modal is answered (run by `onFormSubmit`, after its admin check,
 * all within Slack's 3 s); the download and upload follow once it is answered.
 */
async function checkSubmission(
  deps: Deps,
  { view, teamId, enterpriseId, userId, client, logger }: FormSubmission,
): Promise<FormResult> {
  const meta = openCloneVoiceMetadata(deps.config, teamId, view);
  const form = readCloneVoiceForm(view);
  const errors: Record<string, string> = {};
  // Slack enforces required inputs; these guard against a submission that skipped that.
  if (!form.name) errors[FIELDS.name] = 'Enter a name for the voice.';
  if (!form.language) errors[FIELDS.language] = 'Enter the language of the samples, e.g. en-US.';
  if (!form.gender) errors[FIELDS.gender] = 'Enter the voice’s gender.';
  if (!form.provider) errors[FIELDS.provider] = 'Enter the voice provider.';

  let samples: Sample[] = [];
  if (meta.fileIds) {
    samples = meta.fileIds.map((id) => ({ id }));
  } else {
    const { files, malformed } = parseSlackFiles(readFiles(view, FIELDS.files));
    const count = files.length + malformed;
    const problems = files.map((f) => sampleProblem(f, limitsOf(deps))).filter((p): p is string => p !== undefined);
    if (count === 0) errors[FIELDS.files] = 'Add at least one audio file.';
    else if (count > MAX_VOICE_FILES) errors[FIELDS.files] = tooManyFiles(count);
    else if (problems.length > 0) errors[FIELDS.files] = truncate(problems.join(' '), 1900);
    else if (malformed > 0)
      errors[FIELDS.files] = 'Slack sent a file this app could not read — remove it and add it again.';
    samples = files.map((file) => ({ file }));
  }
  if (Object.keys(errors).length > 0) {
    logger.info({ fields: Object.keys(errors) }, 'clone-voice form refused');
    // The sentence is shown (mrkdwn) only when the answer came late and the fields are gone.
    return { kind: 'invalid', errors, sentence: escapeMrkdwn(truncate(Object.values(errors).join(' '), 1900)) };
  }
  const botToken = await deps.tokens.botToken(teamId, enterpriseId);
  if (!botToken) return { kind: 'done', view: noticeView(CLONE_VOICE_TITLE, `❌ ${NO_BOT_TOKEN}`) };
  const job: CloneJob = { teamId, userId, client, logger, responseUrl: meta.responseUrl, botToken, form, samples };
  return { kind: 'done', lateNote: CLONING_STARTED, after: () => cloneAndReport(deps, job) };
}

interface CloneJob {
  teamId: string;
  userId: string;
  client: WebClient;
  logger: Logger;
  responseUrl: string | undefined;
  botToken: string;
  form: CloneVoiceForm;
  samples: Sample[];
}

/** A refusal found after the modal closed (a message file gone or changed): one sentence, already mrkdwn-safe. */
class SampleRefusal extends Error {
  override name = 'SampleRefusal';
}

async function cloneAndReport(deps: Deps, job: CloneJob): Promise<void> {
  const { logger } = job;
  const say = async (payload: { text: string; blocks?: MessagePayload['blocks'] }) => {
    if (!job.responseUrl) {
      logger.warn('clone-voice has no response_url to report to');
      return;
    }
    await postToResponseUrl(
      job.responseUrl,
      { response_type: 'ephemeral', replace_original: false, ...payload },
      logger,
      deps.config.slack,
    );
  };
  const name = job.form.name ?? '';
  const count = job.samples.length;
  await say({
    text: `⏳ Cloning the voice *${escapeMrkdwn(name)}* from ${count} audio file${count === 1 ? '' : 's'} — this can take a minute; the result will appear here.`,
  });
  // At most five posts to a response_url (https://api.slack.com/interactivity/handling#message_responses):
  // the one above, queued, started and the result. The turn's news is told in order, before the result.
  let news = Promise.resolve();
  const tell = (text: string) => {
    news = news.then(() => say({ text }));
  };
  const turn: TurnListener = {
    queued: (ahead) => {
      logger.info({ ahead }, 'voice clone queued behind the workspace’s other clones');
      tell(queuedText(name, ahead));
    },
    started: () => tell(`⏳ Your voice clone *${escapeMrkdwn(name)}* has started — the result will appear here.`),
  };

  const started = Date.now();
  try {
    const limits = limitsOf(deps);
    const files = await Promise.all(job.samples.map((s) => resolveSample(job.client, s, limits)));
    const api = await deps.platform.clientFor(job.teamId);
    const voice = await api.voices.clone({
      files: files.map((f) => ({
        filename: f.name || `${f.id}${f.filetype ? `.${f.filetype}` : ''}`,
        contentType: audioContentType(f),
        // Lazy: each download starts only when the upload reaches that file, so they stream one by one (and a
        // clone waiting for its turn has downloaded nothing yet).
        data: slackFileStream({
          url: downloadUrl(f) ?? '',
          name: fileLabel(f),
          botToken: job.botToken,
          allowedOrigin: limits.fileOrigin,
          maxBytes: limits.maxBytes,
        }),
      })),
      name,
      language: job.form.language ?? '',
      gender: job.form.gender ?? '',
      provider: job.form.provider ?? '',
      ...(job.form.description ? { description: job.form.description } : {}),
      removeBackgroundNoise: job.form.removeBackgroundNoise,
      turn,
    });
    logger.info({ voice: voice.RowKey, files: files.length, ms: Date.now() - started }, 'voice cloned');
    await news;
    await say(renderVoice(voice, job.userId));
  } catch (err) {
    if (err instanceof PlatformBusyError) logFailure(logger, err, { ms: Date.now() - started }, 'voice cloning failed');
    else logger.warn({ err, ms: Date.now() - started }, 'voice cloning failed');
    await news;
    await say(failureMessage(cloneFailure(err, limitsOf(deps)), '❌'));
  }
}

function queuedText(name: string, ahead: number): string {
  const others = ahead === 1 ? '1 other' : `${ahead} others`;
  return `⏳ Your voice clone *${escapeMrkdwn(name)}* is queued behind ${others} in this workspace — we’ll post here when it starts and when it’s done.`;
}

/** The file object to download: as sent, or from `files.info` (the authoritative download URL) for a message's file. */
async function resolveSample(client: WebClient, sample: Sample, limits: SampleLimits): Promise<SlackFileObject> {
  let file: SlackFileObject;
  if ('file' in sample && downloadUrl(sample.file)) {
    file = sample.file;
  } else {
    // A message's file, or an uploaded one whose object came without a download link: ask Slack.
    const id = 'file' in sample ? sample.file.id : sample.id;
    let raw: unknown;
    try {
      raw = (await client.files.info({ file: id })).file;
    } catch (err) {
      const code = slackErrorCode(err);
      throw new SampleRefusal(
        isFileGone(code)
          ? `The file ${id} is no longer in Slack — it may have been deleted. Share the samples again and retry.`
          : `Slack would not describe the file ${id}${code ? ` (${code})` : ''} — try again in a minute.`,
      );
    }
    const parsed = slackFileSchema.safeParse(raw);
    if (!parsed.success)
      throw new SampleRefusal(
        `Slack described the file ${id} in a form this app could not read — run \`/campaign clone-voice\` and upload it instead.`,
      );
    file = parsed.data;
  }
  const problem = sampleProblem(file, limits);
  if (problem) throw new SampleRefusal(escapeMrkdwn(problem));
  if (!downloadUrl(file))
    throw new SampleRefusal(
      escapeMrkdwn(`Slack gave no download link for “${fileLabel(file)}” — upload it again and retry.`),
    );
  return file;
}

/** One sentence for whatever stopped the clone. Download failures surface through the upload, so look into causes. */
export function cloneFailure(err: unknown, limits: SampleLimits): Failure {
  if (err instanceof SampleRefusal) return { sentence: err.message };
  if (err instanceof PlatformBusyError && err.lane === 'uploads') {
    const { concurrency, maxWaiting, maxWaitMs } = err.limits;
    return {
      sentence:
        err.reason === 'full'
          ? `This workspace already has ${concurrency} voice clones running and ${maxWaiting} waiting, so this one was not started — try again when some of them have finished.`
          : `Your voice clone waited ${Math.round(maxWaitMs / 60_000)} minutes behind this workspace’s other clones and was not started — try again when they have finished.`,
    };
  }
  const download = findCause(err, SlackFileError);
  if (download) {
    // Slack's own status, when it answered one, is for support: below the sentence.
    const status = download.detail.status;
    return {
      sentence: escapeMrkdwn(downloadFailure(download, limits)),
      ...(status !== undefined ? { reference: `Slack’s file service: HTTP ${status}` } : {}),
    };
  }
  if (err instanceof BadRequestError) {
    return {
      sentence: `The platform refused to clone the voice: “${escapeMrkdwn(truncate(err.message, 300))}” — change that in the form and try again.`,
      reference: upstreamRef(err),
    };
  }
  if (err instanceof ApiTimeoutError && err.phase !== 'connect') {
    return {
      sentence:
        'The platform did not answer in time — the voice may still be created, so check the platform’s voice list before trying again.',
    };
  }
  return failureOf(err);
}

function downloadFailure(err: SlackFileError, limits: SampleLimits): string {
  const file = `“${err.fileName}”`;
  switch (err.problem) {
    case 'host':
      return `${file} is not stored on Slack’s file service, so the bot did not fetch it — upload the audio file itself.`;
    case 'forbidden':
      return `Slack refused the bot access to ${file} — share the file where the Campaign app can see it, then try again.`;
    case 'not_found':
      return `Slack no longer has ${file} — it may have been deleted; upload it again.`;
    case 'sign_in':
    case 'not_a_file':
      return `Slack sent a sign-in page instead of ${file}, so the bot was not let in — check that the app has the files:read scope (reinstall it if needed).`;
    case 'redirect':
      return `Slack sent the download of ${file} on to ${err.detail.host ?? 'another site'}, which is not Slack’s file service, so the bot did not follow it — try again; if it keeps happening, tell your Slack admin.`;
    case 'too_many_redirects':
      return `Slack kept redirecting the download of ${file} — try again in a minute.`;
    case 'too_large':
      return `${file} is bigger than the ${formatBytes(err.detail.maxBytes ?? limits.maxBytes)} limit for a voice sample — trim it and try again.`;
    case 'timeout':
      return `Downloading ${file} from Slack took too long — try again in a minute.`;
    case 'network':
      return `The bot could not download ${file} from Slack (connection failed) — try again in a minute.`;
    case 'http':
      return `Slack could not hand the bot ${file} — try again in a minute.`;
  }
}

function findCause<T extends Error>(err: unknown, type: new (...args: never[]) => T): T | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof type) return current;
    current = current.cause;
  }
  return undefined;
}

// ------------------------------------------------------------------------------------------ result

function renderVoice(voice: Voice, userId: string): MessagePayload {
  const name = voice.Name || 'Unnamed voice';
  const preview = previewLink(voice.PreviewUrl);
  const text = `✅ Voice ${name} cloned`;
  return message(text, [
    section(`✅ <@${userId}> cloned the voice *${escapeMrkdwn(name)}*.`),
    fields([
      ['Language', voice.Language ? escapeMrkdwn(voice.Language) : '—'],
      ['Provider', voice.Provider ? escapeMrkdwn(voice.Provider) : '—'],
      ['Gender', voice.Gender ? escapeMrkdwn(voice.Gender) : '—'],
      ['Voice id', voice.RowKey ? `\`${escapeMrkdwn(voice.RowKey)}\`` : '—'],
      ['Preview', preview ? `<${preview}|Listen to the preview>` : '—'],
    ]),
  ]);
}

/** An http(s) preview URL made safe to put inside a mrkdwn link (`|` and `>` would end it early). */
function previewLink(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
    return parsed.href.replace(/\|/g, '%7C').replace(/>/g, '%3E').replace(/</g, '%3C');
  } catch {
    return undefined;
  }
}
