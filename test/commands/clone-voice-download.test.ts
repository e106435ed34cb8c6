/**
 * Downloading voice samples from Slack. The bot token goes to Slack's file origin and nowhere else. Slack
 * answers many authorized `url_private_download` requests with a redirect — to its file host or to a signed,
 * expiring CDN URL that needs no token — so those are followed (a few hops), without the token off that
 * origin; a redirect to the sign-in page or to another host is refused with a sentence naming the file.
 *
 * Slack: the file URLs need `Authorization: Bearer` with files:read
 * (https://docs.slack.dev/reference/objects/file-object#authentication); a client that sends the token past
 * the redirect, or treats the 302 as a failure, gets Slack's sign-in page or an error.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { cloneFailure } from '../../src/commands/clone-voice.js';
import {
  isSlackRedirectTarget,
  SlackFileError,
  slackFileOrigin,
  slackFileStream,
} from '../../src/slack/file-download.js';
import { startFakeSlack } from '../fakes/slack.js';
import { ADMIN_ID } from '../support/harness.js';
import { CALLBACK, CAP, cloneVoiceBot, details } from './clone-voice-support.js';

const CHANNEL = 'C0VOICES001';

const bot = cloneVoiceBot({ fileDownloads: 'cdn-redirect' });
const { h, audio, finalAnswer, fromMessage, submitForm } = bot;

/** Each download as Slack saw it: the file origin's 302 (with the token), then the CDN's 200 (without). */
function downloadTrail() {
  return h.slack.downloads.map((d) => [d.fileId, d.status, d.authorized, d.cdn]);
}

describe('voice samples Slack serves through its CDN', () => {
  it('/campaign clone-voice: the voice is cloned from the redirected downloads, and the token never reaches the CDN', async () => {
    const a = audio('intro.mp3', 30_000);
    const b = audio('outro.wav', 20_000);
    await h.signer.command({ text: 'clone-voice', userId: ADMIN_ID, responseUrlId: 'cdn1' });
    await h.slack.waitFor(() => h.slack.views(CALLBACK).at(-1));
    expect(h.slack.callsTo('views.open').at(-1)?.response.ok).toBe(true);

    const files = { value: { type: 'file_input', files: [a.file, b.file] } };
    const res = await h.signer.viewSubmission({
      callbackId: CALLBACK,
      userId: ADMIN_ID,
      values: { ...details(), files },
    });
    expect(res.status).toBe(200);
    expect(await finalAnswer('cdn1')).toContain('cloned the voice *Riley*');

    const form = h.platform.requests.find((r) => r.path === '/voices')!.multipart!;
    expect(form.files.map((f) => f.filename)).toEqual(['intro.mp3', 'outro.wav']);
    expect(form.files[0]!.data.equals(a.data)).toBe(true);
    expect(form.files[1]!.data.equals(b.data)).toBe(true);
    expect(downloadTrail()).toEqual([
      [a.file.id, 302, true, undefined],
      [a.file.id, 200, true, { authorizationHeader: false }],
      [b.file.id, 302, true, undefined],
      [b.file.id, 200, true, { authorizationHeader: false }],
    ]);
    // The signed CDN address is a credential of its own: it stays out of the logs.
    expect(h.logs()).not.toContain('sig=');
    expect(h.logs()).not.toContain(h.slack.botToken);
  });

  it('“Clone voice from files” on a message: cloned from the download URLs files.info gives, through the CDN', async () => {
    const a = audio('take-1.mp3', 10_000);
    const msg = h.slack.addMessage({ channel: CHANNEL, text: 'samples', files: [a.file] });
    await fromMessage(msg, 'cdn2');
    await submitForm();
    expect(await finalAnswer('cdn2')).toContain('cloned the voice *Riley*');

    expect(h.slack.callsTo('files.info').map((c) => c.response.ok)).toEqual([true]);
    expect(h.platform.requests.find((r) => r.path === '/voices')!.multipart!.files[0]!.data.equals(a.data)).toBe(true);
    expect(downloadTrail()).toEqual([
      [a.file.id, 302, true, undefined],
      [a.file.id, 200, true, { authorizationHeader: false }],
    ]);
  });
});

// ------------------------------------------------------------------------------------------ the download itself

interface Site {
  origin: string;
  hits: Array<{ path: string; authorization: string | undefined }>;
  close(): Promise<void>;
}

/** A plain HTTP server standing in for one host (Slack's file origin, its CDN, somewhere else). */
async function site(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<Site> {
  const hits: Site['hits'] = [];
  const server = createServer((req, res) => {
    hits.push({ path: req.url ?? '', authorization: req.headers.authorization });
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function redirect(res: ServerResponse, location: string): void {
  res.writeHead(302, { location });
  res.end();
}

async function read(url: string, allowedOrigin: string): Promise<{ bytes: Buffer; err: SlackFileError | undefined }> {
  const chunks: Uint8Array[] = [];
  try {
    for await (const chunk of slackFileStream({ url, name: 'a.mp3', botToken: 'xoxb-t', allowedOrigin, maxBytes: CAP }))
      chunks.push(chunk);
  } catch (e) {
    if (!(e instanceof SlackFileError)) throw e;
    return { bytes: Buffer.concat(chunks), err: e };
  }
  return { bytes: Buffer.concat(chunks), err: undefined };
}

const sentence = (err: SlackFileError | undefined, origin: string) =>
  cloneFailure(err, { maxBytes: CAP, fileOrigin: origin }).sentence;

describe('Slack file download', () => {
  it('allows only Slack’s file host: files.slack.com for the real API, the stand-in’s own origin otherwise', () => {
    const slack = { domain: 'slack.com', apiUrl: 'https://slack.com/api/' };
    expect(slackFileOrigin(slack)).toBe('https://files.slack.com');
    expect(slackFileOrigin({ ...slack, apiUrl: 'https://acme.enterprise.slack.com/api/' })).toBe(
      'https://files.slack.com',
    );
    expect(slackFileOrigin({ domain: 'slack-gov.com', apiUrl: 'https://slack-gov.com/api/' })).toBe(
      'https://files.slack-gov.com',
    );
    expect(slackFileOrigin(h.config.slack)).toBe(h.slack.baseUrl);
  });

  it('follows redirects only to Slack’s own hosts over https (for the real API), or the stand-in’s host', () => {
    const real = 'https://files.slack.com';
    const follows = (url: string, origin = real) => isSlackRedirectTarget(new URL(url), origin);
    expect(follows('https://files.slack.com/files-pri/T1-F1/download/a.mp3')).toBe(true);
    expect(follows('https://files-edge.slack.com/T1-F1/a.mp3?sig=x')).toBe(true);
    expect(follows('https://slack-files.com/files-pri/T1-F1/a.mp3?sig=x')).toBe(true);
    expect(follows('https://a.slack-edge.com/T1-F1/a.mp3')).toBe(true);
    expect(follows('http://files.slack.com/files-pri/T1-F1/a.mp3')).toBe(false);
    expect(follows('https://slack.com.example.net/a.mp3')).toBe(false);
    expect(follows('https://example.net/a.mp3')).toBe(false);
    expect(follows('https://files.slack-gov.com/x', 'https://files.slack-gov.com')).toBe(true);
    expect(follows('https://files.slack.com/x', 'https://files.slack-gov.com')).toBe(false);
    expect(follows('http://127.0.0.1:1234/files-cdn/x', 'http://127.0.0.1:999')).toBe(true);
    expect(follows('http://localhost:1234/files-cdn/x', 'http://127.0.0.1:999')).toBe(false);
  });

  it('sends the token on every hop on Slack’s file origin and on none elsewhere', async () => {
    const data = randomBytes(5000);
    const cdn = await site((_req, res) => {
      res.writeHead(200, { 'content-type': 'audio/mpeg' });
      res.end(data);
    });
    const files = await site((req, res) => {
      if (req.url === '/files-pri/T1-F1/download/a.mp3')
        redirect(res, '/files-pri/T1-F1/a.mp3'); // relative: same origin
      else redirect(res, `${cdn.origin}/T1-F1/a.mp3?exp=1&sig=abc`);
    });
    try {
      const got = await read(`${files.origin}/files-pri/T1-F1/download/a.mp3`, files.origin);
      expect(got.err).toBeUndefined();
      expect(got.bytes.equals(data)).toBe(true);
      expect(files.hits.map((x) => x.authorization)).toEqual(['Bearer xoxb-t', 'Bearer xoxb-t']);
      expect(cdn.hits).toEqual([{ path: '/T1-F1/a.mp3?exp=1&sig=abc', authorization: undefined }]);
    } finally {
      await Promise.all([files.close(), cdn.close()]);
    }
  });

  it('refuses a redirect off Slack’s hosts without contacting it, and says so (not a scope problem)', async () => {
    const elsewhere = await site((_req, res) => res.end('audio'));
    const port = new URL(elsewhere.origin).port;
    const files = await site((_req, res) => redirect(res, `http://localhost:${port}/a.mp3`));
    try {
      const got = await read(`${files.origin}/files-pri/T1-F1/download/a.mp3`, files.origin);
      expect(got.err?.problem).toBe('redirect');
      expect(elsewhere.hits).toHaveLength(0);
      const told = sentence(got.err, files.origin);
      expect(told).toContain('“a.mp3”');
      expect(told).toContain('localhost, which is not Slack’s file service');
      expect(told).not.toContain('files:read');
    } finally {
      await Promise.all([files.close(), elsewhere.close()]);
    }
  });

  it('gives up after a few redirects', async () => {
    let n = 0;
    const files = await site((_req, res) => redirect(res, `/files-pri/T1-F1/a.mp3?hop=${++n}`));
    try {
      const got = await read(`${files.origin}/files-pri/T1-F1/download/a.mp3`, files.origin);
      expect(got.err?.problem).toBe('too_many_redirects');
      expect(files.hits).toHaveLength(4); // the request and three redirects followed
      expect(sentence(got.err, files.origin)).toContain('Slack kept redirecting the download of “a.mp3”');
    } finally {
      await files.close();
    }
  });

  it('does not follow Slack’s redirect to its sign-in page, and names the scope', async () => {
    const fake = await startFakeSlack({ unauthenticatedFileDownloads: 'login-page' });
    try {
      const f = fake.addFile({ name: 'a.mp3', mimetype: 'audio/mpeg', data: randomBytes(100) });
      const got = await read(f.url_private_download, fake.baseUrl);
      expect(got.err?.problem).toBe('sign_in');
      expect(fake.downloads.map((d) => d.status)).toEqual([302]);
      expect(sentence(got.err, fake.baseUrl)).toContain('Slack sent a sign-in page instead of “a.mp3”');
      expect(sentence(got.err, fake.baseUrl)).toContain('files:read');
    } finally {
      await fake.close();
    }
  });

  it('stops streaming past the cap when there is no content-length, and never fetches another host', async () => {
    const chunked = await site((_req, res) => {
      res.writeHead(200, { 'content-type': 'audio/mpeg' }); // no content-length: chunked
      for (let i = 0; i < 8; i++) res.write(randomBytes(16 * 1024));
      res.end();
    });
    try {
      const capped = await read(`${chunked.origin}/a.mp3`, chunked.origin);
      expect(capped.err?.problem).toBe('too_large');
      expect(capped.bytes.length).toBeLessThanOrEqual(CAP);
      expect(chunked.hits).toHaveLength(1);

      const foreign = await read(`${chunked.origin}/a.mp3`, 'https://files.slack.com');
      expect(foreign.err?.problem).toBe('host');
      expect(chunked.hits).toHaveLength(1);
    } finally {
      await chunked.close();
    }
  });
});
