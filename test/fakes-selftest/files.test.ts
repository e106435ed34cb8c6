/**
 * filesUploadV2 (getUploadURLExternal → POST bytes → completeUploadExternal) and url_private downloads,
 * exercised with the real WebClient against the fake.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LogLevel, WebClient } from '@slack/web-api';
import { startFakeSlack, type FakeSlack } from '../fakes/slack.js';

let fake: FakeSlack;
let client: WebClient;

beforeAll(async () => {
  fake = await startFakeSlack();
  client = new WebClient(fake.botToken, { slackApiUrl: fake.apiUrl, logLevel: LogLevel.ERROR });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => fake.reset());

describe('fake Slack files', () => {
  it('completes a filesUploadV2 of a text file into a thread, with the exact bytes', async () => {
    const parent = await client.chat.postMessage({ channel: 'C0CALLS0001', text: 'Call summary' });
    const transcript = 'Agent: Hello!\nCaller: Hi — I’d like to book. ✓\n'.repeat(50);
    const res = await client.filesUploadV2({
      channel_id: 'C0CALLS0001',
      thread_ts: parent.ts!,
      filename: 'transcript.txt',
      title: 'Full transcript',
      content: transcript,
      initial_comment: 'Full transcript attached',
    });
    expect(res.ok).toBe(true);

    expect(fake.calls.map((c) => c.method)).toEqual([
      'chat.postMessage',
      'files.getUploadURLExternal',
      'files.completeUploadExternal',
    ]);
    expect(fake.callsTo('files.getUploadURLExternal')[0]?.args).toMatchObject({
      filename: 'transcript.txt',
      length: String(Buffer.byteLength(transcript)),
    });
    expect(fake.callsTo('files.completeUploadExternal')[0]?.args).toMatchObject({
      channel_id: 'C0CALLS0001',
      thread_ts: parent.ts,
      initial_comment: 'Full transcript attached',
      files: [{ id: expect.stringMatching(/^F/), title: 'Full transcript' }],
    });

    expect(fake.uploads).toHaveLength(1);
    const upload = fake.uploads[0]!;
    expect(upload).toMatchObject({
      filename: 'transcript.txt',
      title: 'Full transcript',
      channel_id: 'C0CALLS0001',
      thread_ts: parent.ts,
      initial_comment: 'Full transcript attached',
    });
    expect(upload.data.equals(Buffer.from(transcript, 'utf8'))).toBe(true);

    // The share shows up in the thread, like Slack's file message.
    const thread = fake.thread('C0CALLS0001', parent.ts!);
    expect(thread.at(-1)).toMatchObject({
      text: 'Full transcript attached',
      thread_ts: parent.ts,
      files: [expect.objectContaining({ name: 'transcript.txt', mimetype: 'text/plain' })],
    });
  });

  it('uploads binary Buffers byte-for-byte', async () => {
    const bytes = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7) % 256));
    await client.filesUploadV2({ channel_id: 'C0CALLS0001', filename: 'voice.wav', file: bytes });
    expect(fake.uploads[0]?.data.equals(bytes)).toBe(true);
    const info = await client.files.info({ file: fake.uploads[0]!.file_id });
    expect(info.file).toMatchObject({ name: 'voice.wav', size: 4096, filetype: 'wav' });
  });

  it('serves url_private_download only with the bearer token (403 HTML without)', async () => {
    const data = Buffer.from('RIFF....WAVEfmt fake audio');
    const file = fake.addFile({ name: 'sample.wav', mimetype: 'audio/wav', data });
    expect(file).toMatchObject({
      id: expect.stringMatching(/^F/),
      name: 'sample.wav',
      mimetype: 'audio/wav',
      filetype: 'wav',
      size: data.length,
    });

    const anonymous = await fetch(file.url_private_download);
    expect(anonymous.status).toBe(403);
    expect(anonymous.headers.get('content-type')).toContain('text/html');
    const wrong = await fetch(file.url_private_download, { headers: { authorization: 'Bearer xoxb-wrong' } });
    expect(wrong.status).toBe(403);

    const ok = await fetch(file.url_private_download, { headers: { authorization: `Bearer ${fake.botToken}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('audio/wav');
    expect(Buffer.from(await ok.arrayBuffer()).equals(data)).toBe(true);
    expect(fake.downloads.map((d) => [d.fileId, d.status])).toEqual([
      [file.id, 403],
      [file.id, 403],
      [file.id, 200],
    ]);

    const info = await client.files.info({ file: file.id });
    expect(info.file?.url_private_download).toBe(file.url_private_download);
  });

  it('can reproduce Slack’s sign-in page for unauthenticated downloads (200 HTML after a redirect)', async () => {
    const browserLike = await startFakeSlack({ unauthenticatedFileDownloads: 'login-page' });
    try {
      const file = browserLike.addFile({ name: 'a.mp3', mimetype: 'audio/mpeg', data: Buffer.from('ID3') });
      const res = await fetch(file.url_private);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(await res.text()).toContain('Sign in to');
    } finally {
      await browserLike.close();
    }
  });

  it('can answer authorized downloads with a 302 to a signed CDN URL on another origin that needs no token', async () => {
    const cdnLike = await startFakeSlack({ fileDownloads: 'cdn-redirect' });
    try {
      const data = Buffer.from('ID3 fake audio bytes');
      const file = cdnLike.addFile({ name: 'a b.mp3', mimetype: 'audio/mpeg', data });
      const first = await fetch(file.url_private_download, {
        headers: { authorization: `Bearer ${cdnLike.botToken}` },
        redirect: 'manual',
      });
      expect(first.status).toBe(302);
      const cdnUrl = new URL(first.headers.get('location') ?? '');
      expect(cdnUrl.origin).not.toBe(cdnLike.baseUrl);
      expect(cdnUrl.searchParams.get('sig')).toMatch(/^[0-9a-f]{64}$/);

      const bytes = await fetch(cdnUrl);
      expect(bytes.status).toBe(200);
      expect(Buffer.from(await bytes.arrayBuffer()).equals(data)).toBe(true);
      const tampered = new URL(cdnUrl);
      tampered.searchParams.set('sig', '0'.repeat(64));
      expect((await fetch(tampered)).status).toBe(403);
      // Without a token the file's own URL is still refused.
      expect((await fetch(file.url_private_download, { redirect: 'manual' })).status).toBe(403);

      expect(cdnLike.downloads.map((d) => [d.status, d.authorized, d.cdn])).toEqual([
        [302, true, undefined],
        [200, true, { authorizationHeader: false }],
        [403, false, { authorizationHeader: false }],
        [403, false, undefined],
      ]);
    } finally {
      await cdnLike.close();
    }
  });

  it('lists the channel a person shared a file in, and forgets a file they deleted', async () => {
    const file = fake.addFile({ name: 'form.pdf', mimetype: 'application/pdf', data: Buffer.from('%PDF') });
    fake.addMessage({ channel: 'C0SUPPORT01', text: 'here', subtype: 'file_share', files: [file] });
    expect((await client.files.info({ file: file.id })).file?.channels).toEqual(['C0SUPPORT01']);

    expect(fake.deleteFile(file.id)).toBe(true);
    fake.expectRefusal('files.info', 'file_deleted');
    await expect(client.files.info({ file: file.id })).rejects.toMatchObject({ data: { error: 'file_deleted' } });
    const res = await fetch(file.url_private_download, { headers: { authorization: `Bearer ${fake.botToken}` } });
    expect(res.status).toBe(404);
  });

  it('refuses downloads to a token without files:read', async () => {
    const noFiles = await startFakeSlack({ scopes: ['chat:write'] });
    try {
      const file = noFiles.addFile({ name: 'a.txt', mimetype: 'text/plain', data: Buffer.from('x') });
      const res = await fetch(file.url_private, { headers: { authorization: `Bearer ${noFiles.botToken}` } });
      expect(res.status).toBe(403);
    } finally {
      await noFiles.close();
    }
  });
  it('holds the external upload to Slack’s rules: filename and length required, exactly that many bytes', async () => {
    fake.expectRefusal('files.getUploadURLExternal', 'invalid_arguments');
    fake.expectRefusal('files.getUploadURLExternal', 'missing_argument');
    fake.expectRefusal('files.completeUploadExternal', 'file_not_found');
    const refusal = async (args: Record<string, unknown>) => {
      const err: unknown = await client.apiCall('files.getUploadURLExternal', args).catch((e: unknown) => e);
      return (err as { data?: { error?: string } }).data?.error;
    };
    expect(await refusal({ length: 5 })).toBe('invalid_arguments');
    expect(await refusal({ filename: 'a.mp3' })).toBe('invalid_arguments');
    expect(await refusal({ filename: 'a.mp3', length: '12abc' })).toBe('invalid_arguments');
    expect(await refusal({ filename: 'a.mp3', length: 0 })).toBe('missing_argument');

    const parent = await client.chat.postMessage({ channel: 'C0CALLS0001', text: 'Call completed' });
    const bytes = Buffer.from('ID3 a recording');
    const ticket = await client.files.getUploadURLExternal({ filename: 'call.mp3', length: bytes.length });
    // One byte short, then one too many: refused (non-200), and the file cannot be completed.
    for (const body of [bytes.subarray(1), Buffer.concat([bytes, Buffer.from('!')])]) {
      const res = await fetch(ticket.upload_url!, { method: 'POST', body });
      expect(res.status).toBe(400);
    }
    await expect(
      client.files.completeUploadExternal({ files: [{ id: ticket.file_id! }], channel_id: 'C0CALLS0001' }),
    ).rejects.toMatchObject({ data: { error: 'file_not_found' } });

    const ok = await fetch(ticket.upload_url!, { method: 'POST', body: bytes });
    expect(ok.status).toBe(200);
    await client.files.completeUploadExternal({
      files: [{ id: ticket.file_id!, title: 'Call recording' }],
      channel_id: 'C0CALLS0001',
      thread_ts: parent.ts!,
    });
    expect(fake.uploads.map((u) => [u.data.equals(bytes), u.channel_id, u.thread_ts])).toEqual([
      [true, 'C0CALLS0001', parent.ts],
    ]);
    expect(fake.thread('C0CALLS0001', parent.ts!).at(-1)?.files?.[0]).toMatchObject({
      name: 'call.mp3',
      mimetype: 'audio/mpeg',
      size: bytes.length,
    });
  });
  it('can lose an answer behind an edge: the call is carried out, the caller gets a 503', async () => {
    const parent = await client.chat.postMessage({ channel: 'C0CALLS0001', text: 'Call completed' });
    fake.loseAnswer('chat.postMessage', 1, 'http-503');
    const once = new WebClient(fake.botToken, {
      slackApiUrl: fake.apiUrl,
      logLevel: LogLevel.ERROR,
      retryConfig: { retries: 0 },
    });
    const lost: unknown = await once.chat
      .postMessage({ channel: 'C0CALLS0001', thread_ts: parent.ts!, text: 'a reply' })
      .catch((e: unknown) => e);
    expect(lost).toMatchObject({ code: 'slack_webapi_http_error', statusCode: 503 });
    expect(fake.thread('C0CALLS0001', parent.ts!).map((m) => m.text)).toEqual(['Call completed', 'a reply']);
    expect(fake.callsTo('chat.postMessage').map((c) => [c.status, c.injected])).toEqual([
      [200, undefined],
      [503, true],
    ]);
  });
});
