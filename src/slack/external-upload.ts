/**
 * Slack's external upload, for bytes that arrive as a stream of known length (a call's recording): WebClient's
 * `filesUploadV2` takes a whole Buffer, so a 50 MB file would sit in memory; here it flows through.
 *
 * Slack's three steps (https://docs.slack.dev/reference/methods/files.getUploadURLExternal/):
 * 1. `files.getUploadURLExternal` with `filename` and `length` (both required: "Size in bytes of the file being
 *    uploaded") → an upload URL and a file id;
 * 2. a POST of the bytes to the upload URL ("Slack will return HTTP 200 if the upload is successful; a non-200
 *    response indicates a failure");
 * 3. `files.completeUploadExternal` with `channel_id` and `thread_ts` shares the file as a reply in that thread
 *    (https://docs.slack.dev/reference/methods/files.completeUploadExternal/: "Provide another message's ts value
 *    to upload this file as a reply"). With a channel it is a post into that channel, paced as one (src/delivery/pace.ts).
 *
 * Steps 1 and 3 go through the workspace's WebClient (and so through `SlackPace`); step 2 is not a Web API
 * method and has no rate limit, so it is sent here, only to Slack's own file host.
 *
 * Every file the app shares (a call's transcript, its recording) goes through `FileShares`: each step is
 * remembered, so a retry never uploads or shares a second copy.
 */
import type { WebClient } from '@slack/web-api';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { isSlackRedirectTarget } from './file-download.js';
import { slackErrorCode } from './post.js';
import type { JudgeFailure } from '../delivery/idempotent-posts.js';
import { isFileGone } from '../delivery/slack-errors.js';
import type { StepLog, StepRef } from '../delivery/steps.js';

/** The upload URL refused the bytes (a non-200) or could not be reached. */
export class SlackUploadError extends Error {
  override name = 'SlackUploadError';

  constructor(
    readonly problem: 'upload_url' | 'status' | 'network',
    readonly detail: { status?: number; socketCode?: string } = {},
  ) {
    super(
      `Slack's file upload failed: ${problem}${detail.status !== undefined ? ` (HTTP ${detail.status})` : ''}${detail.socketCode ? ` (${detail.socketCode})` : ''}`,
    );
  }
}

/** Headers: Slack's answer comes once it has the bytes; a stall of the stream being sent ends it too. */
const UPLOAD_TIMEOUT_MS = 60_000;

/**
 * Step 2: sends exactly `length` bytes from `body` (undici fails the request if the stream yields more or
 * fewer). The upload URL must be on Slack's file host (`fileOrigin`, see `slackFileOrigin`): the bytes never go
 * anywhere else, whatever the answer to step 1 said. When `body` itself fails, the request fails with a network
 * error: a caller that feeds it from another download keeps that download's error to tell the two apart.
 */
async function sendUpload(
  uploadUrl: string,
  fileOrigin: string,
  upload: { length: number; body: AsyncIterable<Uint8Array>; signal?: AbortSignal },
): Promise<void> {
  const url = URL.canParse(uploadUrl) ? new URL(uploadUrl) : undefined;
  if (!url || !isSlackRedirectTarget(url, fileOrigin)) throw new SlackUploadError('upload_url');
  let status: number;
  try {
    const res = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', 'content-length': String(upload.length) },
      // Not object mode: the stream holds a few KB ahead of the socket, not a number of chunks.
      body: Readable.from(upload.body, { objectMode: false }),
      headersTimeout: UPLOAD_TIMEOUT_MS,
      bodyTimeout: UPLOAD_TIMEOUT_MS,
      ...(upload.signal ? { signal: upload.signal } : {}),
    });
    status = res.statusCode;
    await res.body.dump().catch(() => undefined);
  } catch (err) {
    const code =
      typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
    throw new SlackUploadError('network', code ? { socketCode: code } : {});
  }
  if (status !== 200) throw new SlackUploadError('status', { status });
}

export interface ThreadShare {
  title: string;
  threadTs: string;
  comment?: string | undefined;
}

/**
 * The one way a file reaches a thread, once. Under a step `s` of a queue entry (its channel: where it goes):
 * `s-upload` holds the file id once Slack has the bytes, `s-share` says `sent` from just before the share goes,
 * `s` is the file id once it is in the thread. A share whose answer never came (Slack may have carried it out)
 * is looked up with `files.info` before another is sent: never shown twice, never reported failed when it arrived.
 */
export class FileShares {
  /** `fileOrigin`: Slack's file host (`slackFileOrigin`), the only place the bytes go. */
  constructor(
    private readonly steps: StepLog,
    private readonly judge: JudgeFailure,
    private readonly fileOrigin: string,
  ) {}

  /** The id of the file whose bytes Slack has for this step, if an earlier try uploaded them. */
  uploaded(step: StepRef): Promise<string | null> {
    return this.steps.read(sub(step, 'upload'));
  }

  /** Steps 1 and 2: the bytes into Slack, remembered; the file id. */
  async upload(
    client: WebClient,
    step: StepRef,
    file: { filename: string; length: number; body: AsyncIterable<Uint8Array>; signal?: AbortSignal },
  ): Promise<string> {
    // Step 1: where to send `length` bytes named `filename`.
    const res = await client.files.getUploadURLExternal({ filename: file.filename, length: file.length });
    if (!res.file_id || !res.upload_url) throw new SlackUploadError('upload_url');
    await sendUpload(res.upload_url, this.fileOrigin, file);
    await this.steps.record(sub(step, 'upload'), res.file_id);
    return res.file_id;
  }

  /** Slack lost the upload (`file_not_found` on the share): the bytes go again on the next try. */
  async lost(step: StepRef): Promise<void> {
    await this.steps.record(sub(step, 'upload'), '');
  }

  /** Step 3, once: the uploaded file as a reply in the thread; `found` when an earlier try had shared it. */
  async share(client: WebClient, step: StepRef, fileId: string, share: ThreadShare): Promise<'shared' | 'found'> {
    const sent = sub(step, 'share');
    if ((await this.steps.read(sent)) === 'sent' && (await isSharedIn(client, fileId, step.channel))) {
      await this.steps.record(step, fileId);
      return 'found';
    }
    await this.steps.record(sent, 'sent');
    try {
      await client.files.completeUploadExternal({
        files: [{ id: fileId, title: share.title }],
        channel_id: step.channel,
        thread_ts: share.threadTs,
        ...(share.comment ? { initial_comment: share.comment } : {}),
      });
    } catch (err) {
      // Slack said it did not happen (paced, 429, an error code that is not an unknown outcome): no look-up next time.
      const verdict = this.judge(err).class;
      if (verdict === 'wait' || (verdict !== 'unknown' && slackErrorCode(err) !== undefined))
        await this.steps.record(sent, '');
      throw err;
    }
    await this.steps.record(step, fileId);
    return 'shared';
  }

  /** Bytes held in memory (a transcript), uploaded and shared once in the thread. */
  async post(client: WebClient, step: StepRef, file: ThreadShare & { filename: string; data: Buffer }): Promise<void> {
    if (await this.steps.done(step)) return;
    const upload = () =>
      this.upload(client, step, { ...file, length: file.data.length, body: Readable.from([file.data]) });
    const fileId = (await this.uploaded(step)) || (await upload());
    try {
      await this.share(client, step, fileId, file);
    } catch (err) {
      // Slack lost the upload (it expired before its share, e.g. behind a long wait): the bytes go again, once.
      if (!isFileGone(slackErrorCode(err))) throw err;
      await this.share(client, step, await upload(), file);
    }
  }
}

function sub(step: StepRef, part: string): StepRef {
  return { ...step, step: `${step.step}-${part}` };
}

/**
 * Whether Slack has the file shared in the channel already (the file object's `channels` / `groups` / `ims`, or
 * its `shares`: https://docs.slack.dev/reference/objects/file-object). A file Slack no longer has
 * (`file_not_found`, `file_deleted`: https://docs.slack.dev/reference/methods/files.info) is not; any other
 * failure is thrown — unsure, the share waits rather than go twice.
 */
async function isSharedIn(client: WebClient, fileId: string, channel: string): Promise<boolean> {
  const file = await client.files.info({ file: fileId }).then(
    (res) => res.file,
    (err: unknown) => {
      if (isFileGone(slackErrorCode(err))) return undefined;
      throw err;
    },
  );
  if (!file) return false;
  const lists = [file.channels, file.groups, file.ims];
  return (
    lists.some((ids) => ids?.includes(channel)) ||
    Boolean(file.shares?.public?.[channel] ?? file.shares?.private?.[channel])
  );
}
