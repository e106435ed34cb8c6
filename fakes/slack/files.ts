/**
 * Files: files.getUploadURLExternal → POST the bytes to upload_url → files.completeUploadExternal (WebClient's
 * `filesUploadV2`); `url_private(_download)` need `Authorization: Bearer <token with files:read>` ("url_private
 * and url_private_download … require an authorization header with a token that has either the files:read or
 * read scopes": https://medium.com/slack-developer-blog/important-changes-to-files-in-the-web-api-eb38f2a9c1e7;
 * files.sharedPublicURL's `not_allowed`: "pass the Slack Bot token … on the headers … when calling
 * `url_private_download`", https://docs.slack.dev/reference/methods/files.sharedPublicURL). A file a person
 * deleted (`deleteFile`) is gone: `files.info` answers `file_deleted`, its URLs 404.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { botMessage } from './chat.js';
import type { SlackState, Handler, PendingUpload } from './state.js';
import type { SlackChannel, SlackFile, SlackUpload } from './types.js';
import { clone, fail, hex, int, invalidArguments, slackId, str } from './util.js';

const FILE_TYPES: Record<string, { filetype: string; mimetype: string; pretty: string }> = {
  txt: { filetype: 'text', mimetype: 'text/plain', pretty: 'Plain Text' },
  text: { filetype: 'text', mimetype: 'text/plain', pretty: 'Plain Text' },
  md: { filetype: 'markdown', mimetype: 'text/plain', pretty: 'Markdown (raw)' },
  csv: { filetype: 'csv', mimetype: 'text/csv', pretty: 'CSV' },
  json: { filetype: 'json', mimetype: 'application/json', pretty: 'JSON' },
  html: { filetype: 'html', mimetype: 'text/html', pretty: 'HTML' },
  pdf: { filetype: 'pdf', mimetype: 'application/pdf', pretty: 'PDF' },
  png: { filetype: 'png', mimetype: 'image/png', pretty: 'PNG' },
  jpg: { filetype: 'jpg', mimetype: 'image/jpeg', pretty: 'JPEG' },
  jpeg: { filetype: 'jpg', mimetype: 'image/jpeg', pretty: 'JPEG' },
  gif: { filetype: 'gif', mimetype: 'image/gif', pretty: 'GIF' },
  mp3: { filetype: 'mp3', mimetype: 'audio/mpeg', pretty: 'MP3' },
  wav: { filetype: 'wav', mimetype: 'audio/wav', pretty: 'WAV' },
  m4a: { filetype: 'm4a', mimetype: 'audio/x-m4a', pretty: 'M4A' },
  ogg: { filetype: 'ogg', mimetype: 'audio/ogg', pretty: 'Ogg Vorbis' },
  webm: { filetype: 'webm', mimetype: 'audio/webm', pretty: 'WebM' },
  mp4: { filetype: 'mp4', mimetype: 'video/mp4', pretty: 'MPEG 4 Video' },
};

function fileTypeFor(name: string, mimetype?: string): { filetype: string; mimetype: string; pretty: string } {
  const ext = name.includes('.') ? (name.split('.').pop() ?? '').toLowerCase() : '';
  const known = FILE_TYPES[ext];
  if (known) return mimetype ? { ...known, mimetype } : known;
  if (mimetype) {
    const byMime = Object.values(FILE_TYPES).find((t) => t.mimetype === mimetype);
    if (byMime) return byMime;
  }
  return { filetype: 'binary', mimetype: mimetype ?? 'application/octet-stream', pretty: 'Binary' };
}

function makeFile(
  s: SlackState,
  f: {
    name: string;
    title: string;
    mimetype?: string;
    filetype?: string;
    size: number;
    user: string;
    teamId: string;
    id?: string;
    altText?: string;
  },
): SlackFile {
  const id = f.id ?? slackId('F');
  const type = fileTypeFor(f.name, f.mimetype);
  const team = s.team(f.teamId);
  const safe = encodeURIComponent(f.name);
  const now = Math.floor(Date.now() / 1000);
  const file: SlackFile = {
    id,
    created: now,
    timestamp: now,
    name: f.name,
    title: f.title,
    mimetype: type.mimetype,
    filetype: f.filetype ?? type.filetype,
    pretty_type: type.pretty,
    user: f.user,
    user_team: f.teamId,
    editable: false,
    size: f.size,
    mode: 'hosted',
    is_external: false,
    external_type: '',
    is_public: false,
    public_url_shared: false,
    display_as_bot: false,
    username: '',
    url_private: `${s.opts.fileOrigin ?? s.baseUrl}/files-pri/${f.teamId}-${id}/${safe}`,
    url_private_download: `${s.opts.fileOrigin ?? s.baseUrl}/files-pri/${f.teamId}-${id}/download/${safe}`,
    permalink: `https://${team.domain}.slack.com/files/${f.user}/${id}/${safe}`,
    permalink_public: `https://slack-files.com/${f.teamId}-${id}-${hex(5)}`,
    channels: [],
    groups: [],
    ims: [],
    has_rich_preview: false,
    file_access: 'visible',
  };
  if (f.altText) file.alt_txt = f.altText;
  return file;
}

export function addFile(
  s: SlackState,
  f: {
    name: string;
    mimetype: string;
    data: Buffer;
    filetype?: string;
    title?: string;
    user?: string;
    teamId?: string;
  },
): SlackFile {
  const teamId = f.teamId ?? s.teamId;
  const file = makeFile(s, {
    name: f.name,
    title: f.title ?? f.name,
    mimetype: f.mimetype,
    filetype: f.filetype,
    size: f.data.length,
    user: f.user ?? 'U0SOMEUSER1',
    teamId,
  });
  s.files.set(file.id, { file, data: Buffer.from(f.data), teamId });
  s.seededFileIds.add(file.id);
  return clone(file);
}

export function deleteFile(s: SlackState, id: string): boolean {
  if (!s.files.delete(id)) return false;
  s.seededFileIds.delete(id);
  s.deletedFileIds.add(id);
  return true;
}

export async function handleUpload(
  s: SlackState,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  body: Buffer,
): Promise<void> {
  const key = path.slice('/upload/v1/'.length);
  const fileId = s.uploadKeys.get(key);
  const pending = fileId ? s.pendingUploads.get(fileId) : undefined;
  if (!pending || req.method !== 'POST') {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
    return;
  }
  const ct = req.headers['content-type'] ?? '';
  let data = body;
  if (ct.toLowerCase().startsWith('multipart/form-data')) {
    // WebClient sends the bytes as a multipart part (field `body`); curl users send `file=@...`.
    const form = await new Response(body, { headers: { 'content-type': ct } }).formData();
    const part = [...form.values()].find((v): v is File => typeof v !== 'string');
    data = part ? Buffer.from(await part.arrayBuffer()) : Buffer.alloc(0);
  }
  if (data.length !== pending.length) {
    // The upload is the file the `length` given to files.getUploadURLExternal announced ("Size in bytes of the
    // file being uploaded"), byte for byte; anything else is refused, and a non-200 is how Slack says an upload
    // failed (https://docs.slack.dev/reference/methods/files.getUploadURLExternal/).
    res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(`length mismatch: ${data.length} bytes sent, ${pending.length} announced`);
    return;
  }
  pending.data = data;
  res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(`OK - ${data.length}`);
}

export function handleDownload(s: SlackState, req: IncomingMessage, res: ServerResponse, url: URL): void {
  // /files-pri/<team>-<file>/[download/]<name>
  const m = /^\/files-pri\/([A-Z0-9]+)-([A-Z0-9]+)\//.exec(url.pathname);
  const stored = m?.[2] ? s.files.get(m[2]) : undefined;
  if (m?.[2] && s.deletedFileIds.has(m[2])) {
    s.downloads.push({ fileId: m[2], authorized: false, status: 404, at: Date.now() });
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('file not found');
    return;
  }
  const bearer = req.headers.authorization ? /^Bearer\s+(\S+)/i.exec(req.headers.authorization)?.[1] : undefined;
  const auth = bearer ? s.tokens.get(bearer) : undefined;
  const authorized =
    stored !== undefined &&
    auth !== undefined &&
    !auth.revoked &&
    auth.teamId === stored.teamId &&
    auth.scopes.includes('files:read');
  const record = (status: number): void => {
    s.downloads.push({ fileId: m?.[2] ?? '', authorized, status, at: Date.now() });
  };
  if (!authorized) {
    if (s.opts.unauthenticatedFileDownloads === 'login-page') {
      record(302);
      res.writeHead(302, { location: `${s.baseUrl}/signin?redir=${encodeURIComponent(url.pathname)}` });
      res.end();
      return;
    }
    record(403);
    res.writeHead(403, { 'content-type': 'text/html; charset=utf-8' });
    res.end(loginPage(s.teamName));
    return;
  }
  if (s.opts.fileDownloads === 'cdn-redirect') return void s.fileCdn.redirect(res, stored, m?.[2] ?? '', record);
  const download = url.pathname.includes('/download/');
  record(200);
  res.writeHead(200, {
    'content-type': stored.file.mimetype,
    'content-length': String(stored.data.length),
    ...(download ? { 'content-disposition': `attachment; filename="${stored.file.name.replace(/"/g, '')}"` } : {}),
  });
  res.end(stored.data);
}

export function fileHandlers(s: SlackState): Record<string, Handler> {
  return {
    'files.info': (args, auth) => {
      // Errors: https://docs.slack.dev/reference/methods/files.info (`file_not_found`, `file_deleted`).
      const id = str(args, 'file');
      if (id && s.deletedFileIds.has(id)) return fail('file_deleted');
      const stored = id ? s.files.get(id) : undefined;
      if (!stored || stored.teamId !== auth.teamId) return fail('file_not_found');
      return { ok: true, file: clone(stored.file), comments: [], response_metadata: { next_cursor: '' } };
    },

    'files.getUploadURLExternal': (args, auth) => {
      // Both required (https://docs.slack.dev/reference/methods/files.getUploadURLExternal/): the file's name and
      // its size in bytes, a whole number; a length of 0 is Slack's `missing_argument`.
      const filename = str(args, 'filename');
      const rawLength = str(args, 'length');
      const length = rawLength !== undefined && /^\d{1,15}$/.test(rawLength) ? int(args, 'length') : undefined;
      const messages: string[] = [];
      if (!filename) messages.push('[ERROR] missing required field: filename');
      if (rawLength === undefined || rawLength === '') messages.push('[ERROR] missing required field: length');
      else if (length === undefined) messages.push('[ERROR] length must be a whole number of bytes');
      if (messages.length > 0 || filename === undefined || length === undefined) return invalidArguments(messages);
      if (length === 0) return fail('missing_argument');
      const fileId = slackId('F');
      const key = `Cw${hex(24)}`;
      s.pendingUploads.set(fileId, {
        fileId,
        filename,
        length,
        altText: str(args, 'alt_txt') ?? str(args, 'alt_text'),
        userId: auth.userId,
        teamId: auth.teamId,
      });
      s.uploadKeys.set(key, fileId);
      return { ok: true, upload_url: `${s.baseUrl}/upload/v1/${key}`, file_id: fileId };
    },

    'files.completeUploadExternal': (args, auth) => {
      const parsedFiles = z
        .array(z.object({ id: z.string(), title: z.string().optional() }))
        .min(1)
        .safeParse(args.files);
      if (!parsedFiles.success) return invalidArguments(['[ERROR] missing or invalid required field: files']);
      const channelArg = str(args, 'channel_id') ?? str(args, 'channels');
      const threadTs = str(args, 'thread_ts');
      const initialComment = str(args, 'initial_comment');
      let channel: SlackChannel | undefined;
      if (channelArg) {
        const resolved = s.resolveChannel(channelArg);
        if ('error' in resolved) return fail(resolved.error);
        const access = s.channelAccessError(resolved.channel, auth, true);
        if (access) return fail(access);
        // Sharing a file posts a message: a channel that refuses posts refuses it the same way.
        const restricted = s.postRestriction(resolved.channel.id, threadTs);
        if (restricted) return fail(restricted);
        channel = resolved.channel;
      }
      const pendings: PendingUpload[] = [];
      for (const f of parsedFiles.data) {
        const pending = s.pendingUploads.get(f.id);
        if (!pending || pending.teamId !== auth.teamId || pending.data === undefined) return fail('file_not_found');
        pendings.push(pending);
      }
      const done: SlackFile[] = [];
      const at = Date.now();
      parsedFiles.data.forEach((f, i) => {
        const pending = pendings[i];
        if (!pending?.data) return;
        const file = makeFile(s, {
          id: pending.fileId,
          name: pending.filename,
          title: f.title ?? pending.filename,
          size: pending.data.length,
          user: auth.userId,
          teamId: auth.teamId,
          altText: pending.altText,
        });
        if (channel) {
          const list = channel.id.startsWith('D')
            ? file.ims
            : channel.id.startsWith('G') || channel.is_private
              ? file.groups
              : file.channels;
          list.push(channel.id);
        }
        s.files.set(file.id, { file, data: pending.data, teamId: auth.teamId });
        s.pendingUploads.delete(pending.fileId);
        const upload: SlackUpload = {
          file_id: file.id,
          filename: file.name,
          title: file.title,
          data: pending.data,
          at,
        };
        if (channel) upload.channel_id = channel.id;
        if (threadTs) upload.thread_ts = threadTs;
        if (initialComment !== undefined) upload.initial_comment = initialComment;
        s.uploads.push(upload);
        done.push(file);
      });
      if (channel) {
        // Sharing files into a conversation shows up as one message carrying them (with the comment as text).
        const msg = botMessage(
          s,
          auth,
          channel.id,
          { text: initialComment ?? '', thread_ts: threadTs, blocks: args.blocks },
          s.nextTs(),
        );
        msg.files = clone(done);
        msg.upload = true;
        s.insertMessage(msg);
      }
      return { ok: true, files: clone(done) };
    },
  };
}

/** What slack.com shows a browser that is not signed in. */
export function loginPage(teamName: string): string {
  return (
    `<!DOCTYPE html><html lang="en-US"><head><meta charset="utf-8"><title>Slack</title></head>` +
    `<body><div id="page"><h1>Sign in to ${teamName}</h1><form id="signin_form" action="/signin" method="post">` +
    `<input type="email" name="email"><input type="password" name="password"><button type="submit">Sign in</button>` +
    `</form></div></body></html>`
  );
}
