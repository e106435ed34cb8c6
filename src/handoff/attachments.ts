/**
 * Files in an agent's thread reply reach the customer as links: `PUBLIC_URL/attachments/<token>`, one per
 * file, in send-human-response's `attachments`; each works for ATTACHMENT_TTL_S and streams the Slack file
 * when it is opened (`attachment-route.ts`). Slack's own file links are no use to a customer: they open only
 * with a token of the workspace (`Authorization: Bearer`, files:read).
 *
 * Which files can go is decided when the reply arrives, from what Slack says of each: stored in Slack (not a
 * linked Drive file, not deleted, not hidden by the plan's file limit), on Slack's file service, at most
 * 25 MB. Every other file gets one sentence for its author. A link is made for each send (a Retry makes new
 * ones): only the files' ids and names are kept with the reply, never a link.
 */
import type { WebClient } from '@slack/web-api';
import type { Deps } from '../app/deps.js';
import type { Logger } from '../logger.js';
import { isSlackFileUrl, slackFileOrigin } from '../slack/file-download.js';
import {
  downloadUrl,
  fileLabel,
  formatBytes,
  parseSlackFiles,
  slackFileSchema,
  type SlackFileObject,
} from '../slack/file-object.js';
import { slackErrorCode } from '../slack/post.js';
import { isFileGone } from '../delivery/slack-errors.js';
import type { AttachmentFile } from '../store/index.js';

/** The largest file sent to a customer: what the route streams at most, too. */
export const ATTACHMENT_MAX_BYTES = 25 * 1024 * 1024;
/** Slack shares at most 10 files in one message; more would be a message this app does not know. */
const MAX_FILES = 10;

export const ATTACHMENT_PATH = '/attachments';

/** A file that is not sent, named as its author knows it, and why (completes "“name” was not sent: …"). */
export interface RefusedFile {
  label: string;
  reason: string;
}

/** A reply's files: those that can be sent as links, and the others with the reason for each. */
export interface ReplyFiles {
  files: AttachmentFile[];
  refused: RefusedFile[];
}

type AttachmentDeps = Pick<Deps, 'config' | 'store'>;

/** Which of a reply's files (`files` of its message event) can be sent; `files.info` for a file the event only names. */
export async function replyFiles(
  deps: AttachmentDeps,
  client: WebClient,
  raw: unknown,
  log: Logger,
): Promise<ReplyFiles> {
  const { files: listed, malformed } = parseSlackFiles(raw);
  const refused: RefusedFile[] = [];
  if (malformed > 0)
    refused.push({
      label: `${malformed} file${malformed === 1 ? '' : 's'}`,
      reason: 'Slack described it in a form this app can’t read.',
    });
  if (!deps.config.publicUrl) {
    // Nothing to link to: each file is named, the reason said once.
    for (const file of listed)
      refused.push({
        label: fileLabel(file),
        reason: 'files can’t reach customers until your Slack admin gives this app its public address (`PUBLIC_URL`).',
      });
    return { files: [], refused };
  }
  const origin = slackFileOrigin(deps.config.slack);
  const files: AttachmentFile[] = [];
  for (const [i, given] of listed.entries()) {
    if (i >= MAX_FILES) {
      refused.push({
        label: fileLabel(given),
        reason: `a reply sends at most ${MAX_FILES} files to a customer — send it in another reply.`,
      });
      continue;
    }
    // What the event says settles a deleted, hidden or linked file: only a file that may be sent needs Slack.
    const described = !modeProblem(given) && needsInfo(given) ? await describe(client, given, log) : given;
    if (typeof described === 'string') {
      refused.push({ label: fileLabel(given), reason: described });
      continue;
    }
    const problem = fileProblem(described, origin);
    if (problem) refused.push({ label: fileLabel(described), reason: problem });
    else
      files.push({
        id: described.id,
        name: described.name || described.title || described.id,
        mimetype: described.mimetype || 'application/octet-stream',
        size: described.size ?? 0,
      });
  }
  return { files, refused };
}

/** A new link per file, working ATTACHMENT_TTL_S from now. Throws when the store can't keep them. */
export async function attachmentLinks(
  deps: AttachmentDeps,
  teamId: string,
  files: readonly AttachmentFile[],
): Promise<string[]> {
  const base = deps.config.publicUrl;
  if (!base) throw new Error('PUBLIC_URL is not set: no address for attachment links');
  const ttlMs = deps.config.attachments.ttlS * 1000;
  const links: string[] = [];
  for (const file of files)
    links.push(`${base}${ATTACHMENT_PATH}/${await deps.store.attachments.create(teamId, file, ttlMs)}`);
  return links;
}

/** What a customer reads when a reply has files and no text (the files come as the message's attachments). */
export function filesOnlyMessage(files: readonly AttachmentFile[]): string {
  const names = files.map((f) => f.name).join(', ');
  return files.length === 1 ? `Sent you a file: ${names}` : `Sent you ${files.length} files: ${names}`;
}

/** Why a file Slack described can't be sent, as the end of "“name” was not sent: …"; undefined when it can. */
function fileProblem(file: SlackFileObject, origin: string): string | undefined {
  const problem = modeProblem(file);
  if (problem) return problem;
  const url = downloadUrl(file);
  if (url === undefined || !isSlackFileUrl(url, origin))
    return 'it is not stored on Slack’s file service, so the bot can’t pass it on — upload the file itself.';
  if (file.size === undefined) return 'Slack did not say how large it is — share it again.';
  if (file.size > ATTACHMENT_MAX_BYTES)
    return `it is ${formatBytes(file.size)}, and a file sent to a customer may be at most ${formatBytes(ATTACHMENT_MAX_BYTES)} — share a smaller file, or a link to it.`;
  return undefined;
}

/** A file Slack does not store for the bot to pass on: deleted, hidden by the plan, or a link elsewhere. */
function modeProblem(file: SlackFileObject): string | undefined {
  if (file.mode === 'tombstone') return 'it was deleted from Slack.';
  if (file.mode === 'hidden_by_limit')
    return 'Slack hides it under your workspace’s file history limit, so the bot can’t open it.';
  if (file.mode === 'external' || file.is_external)
    return 'it is a link to another service, not a file stored in Slack — paste its share link in a reply instead.';
  return undefined;
}

/** An event's file that names only its id (a Slack Connect channel's file) or lacks its size or link. */
function needsInfo(file: SlackFileObject): boolean {
  return file.file_access === 'check_file_info' || file.size === undefined || downloadUrl(file) === undefined;
}

/** The file as `files.info` describes it, or the sentence for its author when Slack would not. */
async function describe(client: WebClient, file: SlackFileObject, log: Logger): Promise<SlackFileObject | string> {
  let raw: unknown;
  try {
    raw = (await client.files.info({ file: file.id })).file;
  } catch (err) {
    const code = slackErrorCode(err);
    log.info({ file: file.id, slackError: code }, 'Slack would not describe a file of a handoff reply: not sent');
    return isFileGone(code)
      ? 'it is no longer in Slack.'
      : 'Slack would not let the bot open it just now — share it again in a moment.';
  }
  const parsed = slackFileSchema.safeParse(raw);
  return parsed.success ? parsed.data : 'Slack described it in a form this app can’t read.';
}
