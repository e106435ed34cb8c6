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
 */
import type { WebClient } from '@slack/web-api';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { isSlackRedirectTarget } from './file-download.js';

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

export interface UploadTicket {
  fileId: string;
  uploadUrl: string;
}

/** Step 1: where to send `length` bytes named `filename`. */
export async function reserveUpload(
  client: WebClient,
  file: { filename: string; length: number },
): Promise<UploadTicket> {
  const res = await client.files.getUploadURLExternal({ filename: file.filename, length: file.length });
  if (!res.file_id || !res.upload_url) throw new SlackUploadError('upload_url');
  return { fileId: res.file_id, uploadUrl: res.upload_url };
}

/** Headers: Slack's answer comes once it has the bytes; a stall of the stream being sent ends it too. */
const UPLOAD_TIMEOUT_MS = 60_000;

/**
 * Step 2: sends exactly `length` bytes from `body` (undici fails the request if the stream yields more or
 * fewer). The upload URL must be on Slack's file host (`fileOrigin`, see `slackFileOrigin`): the bytes never go
 * anywhere else, whatever the answer to step 1 said. When `body` itself fails, the request fails with a network
 * error: a caller that feeds it from another download keeps that download's error to tell the two apart.
 */
export async function sendUpload(
  ticket: UploadTicket,
  fileOrigin: string,
  upload: { length: number; body: AsyncIterable<Uint8Array>; signal?: AbortSignal },
): Promise<void> {
  const url = URL.canParse(ticket.uploadUrl) ? new URL(ticket.uploadUrl) : undefined;
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

/** Step 3: the uploaded file as a reply in the thread of `threadTs`. */
export async function shareInThread(
  client: WebClient,
  share: { fileId: string; title: string; channel: string; threadTs: string; comment?: string },
): Promise<void> {
  await client.files.completeUploadExternal({
    files: [{ id: share.fileId, title: share.title }],
    channel_id: share.channel,
    thread_ts: share.threadTs,
    ...(share.comment ? { initial_comment: share.comment } : {}),
  });
}
